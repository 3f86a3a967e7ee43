package disk

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iggygo/iggy/io/storage"
)

// stallingBackend is the real backend, except that writes to one file wait
// until released, and it records the most calls running at once.
type stallingBackend struct {
	Pwrite
	stallName string
	release   chan struct{}
	mu        sync.Mutex
	fds       map[int]string
	running   atomic.Int32
	peak      atomic.Int32
}

func (b *stallingBackend) Open(path string, create bool) (int, error) {
	fd, err := b.Pwrite.Open(path, create)
	if err == nil {
		b.mu.Lock()
		b.fds[fd] = filepath.Base(path)
		b.mu.Unlock()
	}
	return fd, err
}

func (b *stallingBackend) WriteAt(fd int, data [][]byte, off int64) error {
	now := b.running.Add(1)
	defer b.running.Add(-1)
	for {
		peak := b.peak.Load()
		if now <= peak || b.peak.CompareAndSwap(peak, now) {
			break
		}
	}
	b.mu.Lock()
	name := b.fds[fd]
	b.mu.Unlock()
	if name == b.stallName {
		<-b.release
	}
	return b.Pwrite.WriteAt(fd, data, off)
}

// A write stuck on one partition's file holds back neither the other files'
// requests nor the loop (Submit returns at once), and no more calls run
// at once than the disk has workers: partition file I/O runs as bounded
// jobs (sharding.partition_io_capacity sets the bound per shard).
//
// covers FLOW-8
func TestStalledFileDoesNotHoldOthers(t *testing.T) {
	const workers = 3
	b := &stallingBackend{stallName: "slow.log", release: make(chan struct{}), fds: map[int]string{}}
	td := newTestDisk(t, t.TempDir(), Options{Backend: b, Workers: workers})
	td.ok(create("slow.log"), create("a.log"), create("b.log"))
	td.nextID++
	stuck := write("slow.log", 0, []byte("stuck"))
	stuck.ID = td.nextID
	if err := td.d.Submit(stuck); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		td.ok(write("a.log", uint64(i), []byte("a")), write("b.log", uint64(i), []byte("b")))
	}
	close(b.release)
	select {
	case c := <-td.d.Completions():
		if c.ID != stuck.ID || c.Result != storage.ResultOK {
			t.Fatalf("completion %+v, want the released write", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the released write never completed")
	}
	if peak := b.peak.Load(); peak > workers {
		t.Fatalf("%d writes ran at once on %d workers", peak, workers)
	}
}
