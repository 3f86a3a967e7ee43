package disk

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/iggygo/iggy/io/storage"
)

// The descriptor cache stays near its bound, syncs dirty descriptors before
// evicting them, and closes everything on Close.
func TestDescriptorCacheBound(t *testing.T) {
	const filesOpenMax, workers, files = 4, 2, 40
	j := newJitter(0)
	d, err := New(t.TempDir(), Options{Backend: j, Workers: workers, FilesOpenMax: filesOpenMax})
	if err != nil {
		t.Fatal(err)
	}
	td := &testDisk{t: t, d: d}
	for f := range files {
		name := fmt.Sprintf("f%02d", f)
		td.ok(create(name))
		td.ok(write(name, 0, []byte(name))) // left dirty on purpose
	}
	syncsBefore := func() int { _, _, s := j.stats(); return s }()
	for f := range files {
		name := fmt.Sprintf("f%02d", f)
		if cs := td.ok(read(name, 0, 8)); string(cs[0].Data) != name {
			t.Fatalf("read %q", cs[0].Data)
		}
	}
	open, peak, syncs := j.stats()
	if open > filesOpenMax || peak > filesOpenMax+workers {
		t.Fatalf("open %d, peak %d, bound %d", open, peak, filesOpenMax)
	}
	if syncs <= syncsBefore {
		t.Fatal("evicting dirty descriptors did not sync them")
	}
	d.Close()
	if open, _, _ := j.stats(); open != 0 {
		t.Fatalf("%d descriptors open after Close", open)
	}
	if _, ok := <-d.Completions(); ok {
		t.Fatal("completions not closed")
	}
	if err := d.Submit(create("late")); !errors.Is(err, ErrClosed) {
		t.Fatalf("submit after close: %v", err)
	}
}

// Once fdatasync of a file fails, every later sync of it fails too: the kernel
// may have dropped the dirty pages, so a later success would be a lie.
func TestWritebackErrorIsSticky(t *testing.T) {
	j := newJitter(0)
	root := t.TempDir()
	td := newTestDisk(t, root, Options{Backend: j})
	td.ok(create("seg"), write("seg", 0, []byte("data")))
	j.mu.Lock()
	j.failSync[root+"/seg"] = true
	j.mu.Unlock()
	cs := td.run(syncReq("seg"))
	if cs[0].Result != storage.ResultIOError || !strings.Contains(cs[0].Err, "seg") {
		t.Fatalf("failed sync reported %d %q", cs[0].Result, cs[0].Err)
	}
	j.mu.Lock()
	j.failSync[root+"/seg"] = false
	j.mu.Unlock()
	for _, req := range []storage.Request{syncReq("seg"), {Op: storage.OpRename, File: "seg", Target: "seg2"}} {
		if cs := td.run(req); cs[0].Result != storage.ResultIOError {
			t.Fatalf("%v after a failed sync: %d", req.Op, cs[0].Result)
		}
	}
	// Deleting the file drops the failed descriptor; a new file starts clean.
	td.ok(storage.Request{Op: storage.OpDelete, File: "seg"}, create("seg"), write("seg", 0, []byte("x")), syncReq("seg"))
}

// blockingBackend holds every write until released, to fill the queue.
type blockingBackend struct {
	Pwrite
	gate chan struct{}
}

func (b blockingBackend) WriteAt(fd int, data [][]byte, off int64) error {
	<-b.gate
	return b.Pwrite.WriteAt(fd, data, off)
}

func TestSubmitRefusesBeyondBound(t *testing.T) {
	const queued = 4
	b := blockingBackend{gate: make(chan struct{})}
	td := newTestDisk(t, t.TempDir(), Options{Backend: b, RequestsQueuedMax: queued})
	td.ok(create("f"))
	reqs := make([]storage.Request, queued)
	for i := range reqs {
		reqs[i] = write("f", uint64(i), []byte("x"))
		reqs[i].ID = storage.ReqID(100 + i)
	}
	if err := td.d.Submit(reqs[:3]...); err != nil {
		t.Fatal(err)
	}
	if err := td.d.Submit(reqs[3:]...); err != nil {
		t.Fatal(err)
	}
	if err := td.d.Submit(write("f", 9, []byte("y"))); !errors.Is(err, ErrBusy) {
		t.Fatalf("submit beyond the bound: %v", err)
	}
	close(b.gate)
	// Completions stay counted until received: still busy after they finish.
	var wg sync.WaitGroup
	wg.Go(func() {
		for range queued {
			<-td.d.Completions()
		}
	})
	wg.Wait()
	if err := td.d.Submit(write("f", 9, []byte("y"))); err != nil {
		t.Fatalf("submit after draining: %v", err)
	}
	<-td.d.Completions()
}

// A delete of a file whose descriptor an eviction is syncing waits for that
// sync instead of closing the descriptor under it.
func TestDeleteWaitsForEvictionSync(t *testing.T) {
	j := newJitter(0)
	root := t.TempDir()
	td := newTestDisk(t, root, Options{Backend: j, Workers: 2, FilesOpenMax: 3})
	td.ok(create("x"), write("x", 0, []byte("dirty")))
	td.ok(create("a"))
	td.ok(create("b"))
	gate := make(chan struct{})
	j.mu.Lock()
	j.syncGate[root+"/x"] = gate
	j.mu.Unlock()
	// Opening c evicts x, the least recently used, which is dirty: its sync blocks.
	if err := td.d.Submit(storage.Request{ID: 900, Op: storage.OpCreate, File: "c"}); err != nil {
		t.Fatal(err)
	}
	if p := <-j.entered; p != root+"/x" {
		t.Fatalf("sync of %s, want x", p)
	}
	if err := td.d.Submit(storage.Request{ID: 901, Op: storage.OpDelete, File: "x"}); err != nil {
		t.Fatal(err)
	}
	close(gate)
	for range 2 {
		if c := <-td.d.Completions(); c.Result != storage.ResultOK {
			t.Fatalf("request %d: %s", c.ID, c.Err)
		}
	}
	if cs := td.run(read("x", 0, 1)); cs[0].Result != storage.ResultNotFound {
		t.Fatalf("x still readable: %+v", cs[0])
	}
}

// A reader that falls behind by more than the channel buffer loses nothing:
// completions past it wait in the backlog, in order, and are still delivered
// after Close, before the channel closes.
func TestBacklogBeyondChannelBuffer(t *testing.T) {
	d, err := New(t.TempDir(), Options{Backend: newJitter(0), RequestsQueuedMax: 3 * channelSlotsMax})
	if err != nil {
		t.Fatal(err)
	}
	total := 2*channelSlotsMax + 7
	reqs := make([]storage.Request, total)
	for i := range reqs {
		reqs[i] = read("missing", 0, 1) // fast: the open fails
		reqs[i].ID = storage.ReqID(i + 1)
	}
	if err := d.Submit(reqs...); err != nil {
		t.Fatal(err)
	}
	d.Close() // every request completes without anyone reading
	seen := make(map[storage.ReqID]bool, total)
	for c := range d.Completions() {
		if c.Result != storage.ResultNotFound || seen[c.ID] {
			t.Fatalf("completion %d: result %d, seen before %v", c.ID, c.Result, seen[c.ID])
		}
		seen[c.ID] = true
	}
	if len(seen) != total {
		t.Fatalf("%d completions of %d", len(seen), total)
	}
}
