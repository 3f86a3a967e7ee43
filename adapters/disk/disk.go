// Package disk executes the core's storage.Requests against real files under
// a root directory and reports storage.Completions.
//
// Disk is the scheduler: it orders requests (those on one file, or on a
// directory and anything below it, run in submission order; unrelated files
// run in parallel on a bounded pool of workers), caches descriptors, and
// classifies errors. Backend is the system calls; Pwrite is the portable one.
package disk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// Defaults of Options.
const (
	WorkersDefault           = 8
	FilesOpenMaxDefault      = 1024
	RequestsQueuedMaxDefault = 4096
	// workersMax is the largest sharding.partition_io_capacity (config).
	workersMax = 1024
	// channelSlotsMax bounds the buffers of the submission and completion
	// channels. RequestsQueuedMax may be far larger (the server sets it far
	// above what the node can have in flight), and a channel buffer is
	// allocated whole and, holding pointers, scanned by every GC cycle; so
	// completions past this many wait in dispatch's backlog instead, which
	// only grows as far as it is used.
	channelSlotsMax = 4096
)

// ErrBusy is returned by Submit when the requests would exceed the bound on
// requests whose completion the caller has not yet received. Receive
// completions, then submit again.
var ErrBusy = errors.New("disk: too many requests in flight")

// ErrClosed is returned by Submit after Close.
var ErrClosed = errors.New("disk: closed")

// Options tune a Disk; zero fields take the defaults.
type Options struct {
	Backend           Backend // Pwrite{} when nil
	Workers           int     // goroutines running system calls
	FilesOpenMax      int     // descriptors kept open; must exceed Workers
	RequestsQueuedMax int     // submitted requests whose completion is not yet received
}

// Disk runs requests on files below one root directory.
type Disk struct {
	exec        executor
	queuedMax   int
	submitMu    sync.Mutex // orders submissions and guards closed
	closed      bool
	inFlight    atomic.Int64 // submitted, completion not yet in completions
	submits     chan []*node
	work        chan *node
	done        chan *node
	completions chan storage.Completion
	stopped     chan struct{}
}

// New starts a Disk over root, an existing directory (the storage gate has
// admitted it).
func New(root string, opts Options) (*Disk, error) {
	opts = withDefaults(opts)
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("disk: %w", err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("disk: root: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("disk: root %s is not a directory", abs)
	}
	d := &Disk{
		exec:        executor{root: abs, backend: opts.Backend, files: newFDCache(opts.Backend, opts.FilesOpenMax)},
		queuedMax:   opts.RequestsQueuedMax,
		submits:     make(chan []*node, min(opts.RequestsQueuedMax, channelSlotsMax)),
		work:        make(chan *node),
		done:        make(chan *node, opts.Workers),
		completions: make(chan storage.Completion, min(opts.RequestsQueuedMax, channelSlotsMax)),
		stopped:     make(chan struct{}),
	}
	var workers sync.WaitGroup
	for range opts.Workers {
		workers.Go(d.worker)
	}
	go d.dispatch(&workers)
	return d, nil
}

func withDefaults(o Options) Options {
	if o.Backend == nil {
		o.Backend = Pwrite{}
	}
	if o.Workers == 0 {
		o.Workers = WorkersDefault
	}
	if o.FilesOpenMax == 0 {
		o.FilesOpenMax = max(FilesOpenMaxDefault, o.Workers+1)
	}
	if o.RequestsQueuedMax == 0 {
		o.RequestsQueuedMax = RequestsQueuedMaxDefault
	}
	if o.Workers <= 0 || o.Workers > workersMax {
		assert.Failf("disk: %d workers", o.Workers)
	}
	// More descriptors than workers, so some cached one is always unused and evictable.
	if o.FilesOpenMax <= o.Workers {
		assert.Failf("disk: %d descriptors for %d workers", o.FilesOpenMax, o.Workers)
	}
	if o.RequestsQueuedMax <= 0 {
		assert.Failf("disk: queue of %d", o.RequestsQueuedMax)
	}
	return o
}

// Submit queues reqs, all or none, without waiting for the disk. Requests on
// one path run in the order submitted. Write data is not copied: it must stay
// unchanged until the write completes. A malformed request is a bug in the
// caller and panics.
func (d *Disk) Submit(reqs ...storage.Request) error {
	if len(reqs) == 0 {
		return nil
	}
	if len(reqs) > d.queuedMax {
		assert.Failf("disk: batch of %d exceeds the queue of %d", len(reqs), d.queuedMax)
	}
	nodes := make([]*node, len(reqs))
	for i := range reqs {
		if err := reqs[i].Check(); err != nil {
			assert.Failf("disk: %v", err)
		}
		nodes[i] = &node{req: reqs[i], claims: claimsOf(&reqs[i])}
	}
	d.submitMu.Lock()
	defer d.submitMu.Unlock()
	if d.closed {
		return ErrClosed
	}
	// Read inFlight before len(completions): a completion moving between them
	// is counted twice, never missed (dispatch sends it before decrementing).
	used := int(d.inFlight.Load()) + len(d.completions)
	if used+len(reqs) > d.queuedMax {
		return ErrBusy
	}
	d.inFlight.Add(int64(len(reqs)))
	// Blocks only while dispatch is channelSlotsMax batches behind; dispatch
	// always takes submissions, whatever else waits.
	d.submits <- nodes
	return nil
}

// Completions delivers one completion per submitted request, in the order
// they completed. Completions the reader has not taken wait in the Disk (the
// channel buffer, then a backlog), so the Disk never waits for its reader. It
// is closed after Close once every completion has been delivered.
func (d *Disk) Completions() <-chan storage.Completion { return d.completions }

// Close stops accepting requests, waits until every submitted request has
// completed and closes the descriptors. Completions then delivers what is
// left and is closed.
func (d *Disk) Close() {
	d.submitMu.Lock()
	if !d.closed {
		d.closed = true
		close(d.submits)
	}
	d.submitMu.Unlock()
	<-d.stopped
}

func (d *Disk) worker() {
	for n := range d.work {
		n.completion = d.exec.execute(&n.req)
		d.done <- n
	}
}

// dispatch owns the scheduler: it takes submissions, hands runnable requests
// to workers and reports completions, until closed and drained.
func (d *Disk) dispatch(workers *sync.WaitGroup) {
	s := newScheduler()
	var backlog completionQueue
	submits := d.submits
	for submits != nil || s.pending > 0 {
		var work chan *node
		next := s.peek()
		if next != nil {
			work = d.work
		}
		var deliver chan storage.Completion
		if backlog.len() > 0 {
			deliver = d.completions
		}
		select {
		case nodes, ok := <-submits:
			if !ok {
				submits = nil
				continue
			}
			for _, n := range nodes {
				s.add(n)
			}
		case work <- next:
			s.pop()
		case n := <-d.done:
			s.complete(n)
			backlog.push(n.completion)
			if backlog.len() > d.queuedMax {
				assert.Failf("disk: backlog of %d completions", backlog.len())
			}
			d.deliverBuffered(&backlog)
		case deliver <- backlog.front():
			backlog.pop()
			d.inFlight.Add(-1)
			d.deliverBuffered(&backlog)
		}
	}
	close(d.work)
	workers.Wait()
	d.exec.files.closeAll()
	close(d.stopped)
	for backlog.len() > 0 {
		d.completions <- backlog.front()
		backlog.pop()
		d.inFlight.Add(-1)
	}
	close(d.completions)
}

// deliverBuffered moves completions from the backlog into the channel while
// its buffer has room. Decrementing inFlight after the send keeps Submit's
// count (inFlight + buffered) from missing one in between.
func (d *Disk) deliverBuffered(b *completionQueue) {
	for b.len() > 0 && len(d.completions) < cap(d.completions) {
		d.completions <- b.front()
		b.pop()
		d.inFlight.Add(-1)
	}
}
