// Package disk is the simulator's disk: a deterministic, in-memory executor
// of storage.Requests that keeps, for every file, a volatile image (what
// reads see, the page cache) and a durable image (what survives a crash).
//
// It follows adapters/disk's contract: requests whose paths are equal or
// contain one another complete in submission order (so FIFO per file, and a
// directory operation is ordered with everything below it); unrelated
// requests complete in an order drawn from a seeded PRNG. A write becomes
// durable with the next OpSync of its file (or OpTruncate, OpCreate of the
// existing file, OpRename of it, which all sync); creating, deleting and
// renaming names is durable at completion, as the real disk syncs the
// directories. Crash reverts every file to its durable image, optionally
// keeping a torn prefix of its unsynced writes; faults are injected through
// Options.Faults.
package disk

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// RequestsPendingMax bounds the requests in flight. Requests themselves are
// held to the contract of storage.Request.Check, as on the real disk.
const RequestsPendingMax = 1 << 14

// Options tune a Disk.
type Options struct {
	// Seed seeds the PRNG that orders completions and draws faults.
	Seed uint64
	// TornWrites makes Crash keep a random prefix of each file's unsynced
	// writes, the last of them cut at a random byte; without it a crash
	// loses every unsynced write.
	TornWrites bool
	// Faults, when set, is asked about every request just before it runs.
	Faults Injector
}

// pending is a submitted request that has not completed.
type pending struct {
	req   storage.Request
	names []string // File, and Target for a rename: what it is ordered by
	sum   uint64   // XXH3 of an OpWrite's data at submission
	queue int      // the submitter's queue: order holds within one only
	// blockers counts the earlier pending requests it conflicts with: it
	// is ready at 0. Kept as requests come and go, so choosing the next
	// costs a scan, not a comparison of every pair of the backlog.
	blockers int
}

// Disk executes requests one at a time, in a seeded order. Not safe for
// concurrent use: the simulator's single loop owns it.
type Disk struct {
	opts     Options
	src      *rand.PCG
	rng      *rand.Rand
	fs       *fsys
	pending  []*pending
	executed uint64
}

// New returns an empty disk (the data root exists and is empty).
func New(opts Options) *Disk {
	src := rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)
	return &Disk{opts: opts, src: src, rng: rand.New(src), fs: newFS()}
}

// Rand is the disk's PRNG, for a caller that wants draws in the same stream.
func (d *Disk) Rand() *rand.Rand { return d.rng }

// Submit queues reqs in order. A malformed request is a bug in the core and
// panics. Write data is not copied: like the real disk, the caller must not
// change it until the write completes, which Next checks.
func (d *Disk) Submit(reqs ...storage.Request) { d.SubmitIn(0, reqs...) }

// SubmitIn is Submit on one of several queues over the same files, as the
// shards of a server each run their own disk executor: requests are
// ordered against earlier conflicting requests of their own queue only, so
// a tree delete of one queue and a create below it of another run in
// either order.
func (d *Disk) SubmitIn(queue int, reqs ...storage.Request) {
	if len(d.pending)+len(reqs) > RequestsPendingMax {
		assert.Failf("sim disk: %d requests pending, %d more submitted", len(d.pending), len(reqs))
	}
	for i := range reqs {
		r := reqs[i]
		if err := r.Check(); err != nil {
			assert.Failf("sim disk: %v", err)
		}
		r.Data = slices.Clone(r.Data) // the slice headers, not the bytes
		p := &pending{req: r, names: []string{r.File}, queue: queue}
		if r.Op == storage.OpRename {
			p.names = append(p.names, r.Target)
		}
		if r.Op == storage.OpWrite {
			p.sum = dataSum(r.Data)
		}
		for _, q := range d.pending {
			if conflict(p, q) {
				p.blockers++
			}
		}
		d.pending = append(d.pending, p)
	}
}

// Pending is the number of submitted requests not yet completed.
func (d *Disk) Pending() int { return len(d.pending) }

// Executed is the number of requests completed since New.
func (d *Disk) Executed() uint64 { return d.executed }

// Next executes one request chosen at random among those whose earlier
// conflicting requests have all completed, and returns its completion;
// false when nothing is pending.
func (d *Disk) Next() (storage.Completion, bool) {
	if len(d.pending) == 0 {
		return storage.Completion{}, false
	}
	ready := d.ready()
	if len(ready) <= 0 {
		assert.Failf("sim disk: %d pending, none ready", len(d.pending))
	}
	i := ready[d.rng.IntN(len(ready))]
	p := d.pending[i]
	d.pending = slices.Delete(d.pending, i, i+1)
	for _, q := range d.pending[i:] {
		if conflict(q, p) {
			q.blockers--
		}
	}
	return d.run(p), true
}

// Drain completes every pending request (in a seeded order) and returns the
// completions in the order they happened.
func (d *Disk) Drain() []storage.Completion {
	out := make([]storage.Completion, 0, len(d.pending))
	for {
		c, ok := d.Next()
		if !ok {
			return out
		}
		out = append(out, c)
	}
}

// ready lists the positions of pending requests that no earlier pending
// request conflicts with. The oldest request is always ready.
func (d *Disk) ready() []int {
	var out []int
	for i, p := range d.pending {
		if p.blockers == 0 {
			out = append(out, i)
		}
	}
	return out
}

// conflict: two requests of one queue are ordered when a name of one
// equals or contains a name of the other (adapters/disk's claims).
func conflict(a, b *pending) bool {
	if a.queue != b.queue {
		return false
	}
	for _, x := range a.names {
		for _, y := range b.names {
			if storage.Within(x, y) || storage.Within(y, x) {
				return true
			}
		}
	}
	return false
}

func (d *Disk) run(p *pending) storage.Completion {
	r := &p.req
	if r.Op == storage.OpWrite {
		if dataSum(r.Data) != p.sum {
			assert.Failf("sim disk: request %d: the data of a write to %s changed before it completed", r.ID, r.File)
		}
	}
	d.executed++
	fault := FaultNone
	if d.opts.Faults != nil {
		fault = d.opts.Faults(r, d.rng)
	}
	return applyFault(fault, r, d.rng, d.fs.execute)
}

func dataSum(data [][]byte) uint64 {
	h := xxh3.New()
	for _, b := range data {
		_, _ = h.Write(b)
	}
	return h.Sum64()
}

// String summarizes the disk for failure messages.
func (d *Disk) String() string {
	return fmt.Sprintf("sim disk: %d files, %d dirs, %d pending, %d executed",
		len(d.fs.files), len(d.fs.dirs), len(d.pending), d.executed)
}
