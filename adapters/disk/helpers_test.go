package disk

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/iggygo/iggy/io/storage"
)

// testDisk wraps a Disk with request ids and a way to wait for completions.
type testDisk struct {
	t      *testing.T
	d      *Disk
	nextID storage.ReqID
}

func newTestDisk(t *testing.T, root string, opts Options) *testDisk {
	t.Helper()
	d, err := New(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	td := &testDisk{t: t, d: d}
	t.Cleanup(d.Close)
	return td
}

// run submits reqs (assigning ids) and returns their completions in request order.
func (td *testDisk) run(reqs ...storage.Request) []storage.Completion {
	td.t.Helper()
	index := make(map[storage.ReqID]int, len(reqs))
	for i := range reqs {
		td.nextID++
		reqs[i].ID = td.nextID
		index[td.nextID] = i
	}
	if err := td.d.Submit(reqs...); err != nil {
		td.t.Fatal(err)
	}
	out := make([]storage.Completion, len(reqs))
	for range reqs {
		select {
		case c := <-td.d.Completions():
			i, ok := index[c.ID]
			if !ok {
				td.t.Fatalf("unexpected completion %d", c.ID)
			}
			out[i] = c
		case <-time.After(10 * time.Second):
			td.t.Fatal("timed out waiting for completions")
		}
	}
	return out
}

// ok runs reqs and fails unless all succeed.
func (td *testDisk) ok(reqs ...storage.Request) []storage.Completion {
	td.t.Helper()
	cs := td.run(reqs...)
	for i, c := range cs {
		if c.Result != storage.ResultOK {
			td.t.Fatalf("request %d (%v %s): result %d: %s", i, reqs[i].Op, reqs[i].File, c.Result, c.Err)
		}
	}
	return cs
}

func create(name string) storage.Request  { return storage.Request{Op: storage.OpCreate, File: name} }
func syncReq(name string) storage.Request { return storage.Request{Op: storage.OpSync, File: name} }
func write(name string, off uint64, data ...[]byte) storage.Request {
	return storage.Request{Op: storage.OpWrite, File: name, Offset: off, Data: data}
}
func read(name string, off, n uint64) storage.Request {
	return storage.Request{Op: storage.OpRead, File: name, Offset: off, Len: n}
}

// jitter is a Backend that delays calls at random, to shake out ordering bugs,
// counts open descriptors, and can fail fdatasync of chosen descriptors.
type jitter struct {
	Pwrite
	delayMax time.Duration

	mu        sync.Mutex
	open      int
	openPeak  int
	datasyncs int
	paths     map[int]string
	failSync  map[string]bool
	// syncGate holds fdatasync of a path until the channel is closed; entered
	// is signalled when such a call starts waiting.
	syncGate map[string]chan struct{}
	entered  chan string
}

func newJitter(delayMax time.Duration) *jitter {
	return &jitter{delayMax: delayMax, paths: map[int]string{}, failSync: map[string]bool{},
		syncGate: map[string]chan struct{}{}, entered: make(chan string, 16)}
}

func (j *jitter) sleep() {
	if j.delayMax > 0 {
		time.Sleep(rand.N(j.delayMax))
	}
}

func (j *jitter) Open(path string, create bool) (int, error) {
	j.sleep()
	fd, err := j.Pwrite.Open(path, create)
	if err == nil {
		j.mu.Lock()
		j.open++
		j.openPeak = max(j.openPeak, j.open)
		j.paths[fd] = path
		j.mu.Unlock()
	}
	return fd, err
}

func (j *jitter) Close(fd int) error {
	j.mu.Lock()
	j.open--
	delete(j.paths, fd)
	j.mu.Unlock()
	return j.Pwrite.Close(fd)
}

func (j *jitter) WriteAt(fd int, data [][]byte, off int64) error {
	j.sleep()
	return j.Pwrite.WriteAt(fd, data, off)
}

func (j *jitter) ReadAt(fd int, buf []byte, off int64) (int, error) {
	j.sleep()
	return j.Pwrite.ReadAt(fd, buf, off)
}

func (j *jitter) Datasync(fd int) error {
	j.sleep()
	j.mu.Lock()
	j.datasyncs++
	path := j.paths[fd]
	fail, gate := j.failSync[path], j.syncGate[path]
	j.mu.Unlock()
	if gate != nil {
		j.entered <- path
		<-gate
	}
	if fail {
		return unix.EIO
	}
	return j.Pwrite.Datasync(fd)
}

func (j *jitter) RemoveTree(path string) error {
	j.sleep()
	return j.Pwrite.RemoveTree(path)
}

func (j *jitter) stats() (open, peak, datasyncs int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.open, j.openPeak, j.datasyncs
}
