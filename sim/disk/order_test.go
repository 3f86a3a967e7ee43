package disk

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/iggygo/iggy/io/storage"
)

func seq(j uint64) []byte { return binary.BigEndian.AppendUint64(nil, j) }

// Requests of one file complete in submission order and every read sees the
// write submitted just before it, while files interleave in a seeded order:
// the same seed gives the same order, other seeds other orders.
func TestPerFileFIFOAndSeededInterleaving(t *testing.T) {
	const files, rounds = 6, 20
	orders := map[string]bool{}
	for seed := range uint64(8) {
		order := runInterleaved(t, seed, files, rounds)
		if again := runInterleaved(t, seed, files, rounds); !slices.Equal(order, again) {
			t.Fatalf("seed %d: two runs completed in different orders", seed)
		}
		orders[fmt.Sprint(order)] = true
	}
	if len(orders) < 2 {
		t.Fatal("every seed completed the files in the same order")
	}
}

func runInterleaved(t *testing.T, seed uint64, files, rounds int) []storage.ReqID {
	t.Helper()
	d := New(Options{Seed: seed})
	var reqs []storage.Request
	for f := range files {
		reqs = append(reqs, create(fmt.Sprintf("p/%d/seg", f)))
	}
	ok(t, d, reqs...)
	reqs = reqs[:0]
	for j := range uint64(rounds) {
		for f := range files {
			name := fmt.Sprintf("p/%d/seg", f)
			reqs = append(reqs, write(name, 0, seq(j)), read(name, 0, 8))
		}
	}
	for i := range reqs {
		reqs[i].ID = storage.ReqID(1000 + i)
	}
	d.Submit(reqs...)
	lastPerFile := map[string]int{}
	var order []storage.ReqID
	for _, c := range d.Drain() {
		i := int(c.ID) - 1000
		req := reqs[i]
		if last, seen := lastPerFile[req.File]; seen && last > i {
			t.Fatalf("%s: request %d completed after %d", req.File, last, i)
		}
		lastPerFile[req.File] = i
		if req.Op == storage.OpRead && string(c.Data) != string(seq(uint64(i/(2*files)))) {
			t.Fatalf("%s round %d read %x", req.File, i/(2*files), c.Data)
		}
		order = append(order, c.ID)
	}
	return order
}

// A directory operation is ordered with everything below it: a delete-tree
// waits for earlier writes there, later creates wait for it, and a listing
// sees exactly what was submitted before it.
func TestDirectoryOpsOrderedWithTheirFiles(t *testing.T) {
	for seed := range uint64(20) {
		d := New(Options{Seed: seed})
		var reqs []storage.Request
		for f := range 4 {
			name := fmt.Sprintf("t/x/f%d", f)
			reqs = append(reqs, create(name), write(name, 0, []byte("old data")))
		}
		reqs = append(reqs, delTree("t"), create("t/x/f0"), write("t/x/f0", 0, []byte("new")),
			read("t/x/f0", 0, 16), list("t/x"), create("u/other"))
		cs := ok(t, d, reqs...)
		n := len(cs)
		if string(cs[n-3].Data) != "new" {
			t.Fatalf("seed %d: read %q after delete-tree and re-create", seed, cs[n-3].Data)
		}
		if e := cs[n-2].Entries; len(e) != 1 || e[0].Name != "f0" || e[0].Size != 3 {
			t.Fatalf("seed %d: listing %+v", seed, e)
		}
	}
}

// A rename waits for earlier requests on both names; later ones on either wait for it.
func TestRenameOrderedWithBothNames(t *testing.T) {
	for seed := range uint64(20) {
		d := New(Options{Seed: seed})
		cs := ok(t, d, create("m/tmp"), write("m/tmp", 0, []byte("snapshot")), create("n/final"),
			rename("m/tmp", "n/final"), read("n/final", 0, 64), create("m/tmp"), read("m/tmp", 0, 64))
		if string(cs[4].Data) != "snapshot" || len(cs[6].Data) != 0 {
			t.Fatalf("seed %d: read %q and %q", seed, cs[4].Data, cs[6].Data)
		}
	}
}

// Unrelated requests are all ready at once; the oldest of a chain always is.
func TestReadySet(t *testing.T) {
	d := New(Options{})
	d.Submit(create("a/1"), create("b/1"), write("a/1", 0, []byte("x")), list("a"), create("c"))
	var got []int
	for _, i := range d.ready() {
		got = append(got, int(d.pending[i].req.Op))
	}
	want := []int{int(storage.OpCreate), int(storage.OpCreate), int(storage.OpCreate)}
	if !slices.Equal(got, want) || d.pending[d.ready()[2]].req.File != "c" {
		t.Fatalf("ready ops %v", got)
	}
	if d.Pending() != 5 || len(d.Drain()) != 5 || d.Pending() != 0 || d.Executed() != 5 {
		t.Fatal("drain did not complete everything once")
	}
	if _, more := d.Next(); more {
		t.Fatal("Next on an idle disk")
	}
}
