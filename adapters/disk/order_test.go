package disk

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/iggygo/iggy/io/storage"
)

func seq(j uint64) []byte { return binary.BigEndian.AppendUint64(nil, j) }

// Requests on one file run in submission order even when the backend delays
// calls at random and many files run in parallel: every read sees exactly the
// write submitted just before it, and completions of one file arrive in order.
func TestPerFileOrderUnderConcurrency(t *testing.T) {
	const files, rounds = 16, 60
	td := newTestDisk(t, t.TempDir(), Options{Backend: newJitter(200 * time.Microsecond), Workers: 8})
	var reqs []storage.Request
	for f := range files {
		reqs = append(reqs, create(fmt.Sprintf("p/%d/seg", f)))
	}
	td.ok(reqs...)
	reqs = reqs[:0]
	for j := range uint64(rounds) {
		for f := range files {
			name := fmt.Sprintf("p/%d/seg", f)
			reqs = append(reqs, write(name, 0, seq(j)), read(name, 0, 8))
		}
	}
	// Submit in one go so everything is queued at once, then check arrival order.
	ids := make(map[storage.ReqID]int)
	for i := range reqs {
		reqs[i].ID = storage.ReqID(1000 + i)
		ids[reqs[i].ID] = i
	}
	if err := td.d.Submit(reqs...); err != nil {
		t.Fatal(err)
	}
	lastPerFile := make(map[string]int)
	for range reqs {
		c := <-td.d.Completions()
		i := ids[c.ID]
		req := reqs[i]
		if c.Result != storage.ResultOK {
			t.Fatalf("%v %s: %s", req.Op, req.File, c.Err)
		}
		if last, seen := lastPerFile[req.File]; seen && last > i {
			t.Fatalf("%s: request %d completed after %d", req.File, last, i)
		}
		lastPerFile[req.File] = i
		if req.Op == storage.OpRead {
			want := seq(uint64(i / (2 * files)))
			if string(c.Data) != string(want) {
				t.Fatalf("%s round %d read %x", req.File, i/(2*files), c.Data)
			}
		}
	}
}

// DeleteTree waits for everything submitted earlier below it, and what is
// submitted later below it waits for the DeleteTree.
func TestDeleteTreeOrderedWithItsFiles(t *testing.T) {
	td := newTestDisk(t, t.TempDir(), Options{Backend: newJitter(300 * time.Microsecond), Workers: 8})
	for round := range 5 {
		var reqs []storage.Request
		for f := range 6 {
			name := fmt.Sprintf("t/%d/x/f%d", round, f)
			reqs = append(reqs, create(name), write(name, 0, []byte("old data")), syncReq(name))
		}
		dir := fmt.Sprintf("t/%d", round)
		fresh := dir + "/x/f0"
		reqs = append(reqs,
			storage.Request{Op: storage.OpDeleteTree, File: dir},
			create(fresh), write(fresh, 0, []byte("new")),
			read(fresh, 0, 16),
			storage.Request{Op: storage.OpList, File: dir + "/x"})
		cs := td.ok(reqs...)
		n := len(cs)
		if string(cs[n-2].Data) != "new" {
			t.Fatalf("round %d: read %q after delete-tree and re-create", round, cs[n-2].Data)
		}
		if e := cs[n-1].Entries; len(e) != 1 || e[0].Name != "f0" || e[0].Size != 3 {
			t.Fatalf("round %d: listing %+v", round, e)
		}
	}
}

// A rename waits for earlier requests on both names, and later ones on either
// name wait for it.
func TestRenameOrderedWithBothNames(t *testing.T) {
	td := newTestDisk(t, t.TempDir(), Options{Backend: newJitter(300 * time.Microsecond), Workers: 8})
	for round := range 10 {
		tmp, final := fmt.Sprintf("m/%d.tmp", round), fmt.Sprintf("m/%d", round)
		body := []byte(fmt.Sprintf("snapshot %d", round))
		cs := td.ok(create(tmp), write(tmp, 0, body), syncReq(tmp),
			storage.Request{Op: storage.OpRename, File: tmp, Target: final},
			read(final, 0, 64))
		if string(cs[4].Data) != string(body) {
			t.Fatalf("round %d: read %q", round, cs[4].Data)
		}
	}
}
