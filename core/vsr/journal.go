package vsr

import (
	"fmt"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// Disk is how the core asks for I/O: Submit stamps the request with a fresh id
// and queues it; the completion comes back through the owner's Complete.
// Requests for one file complete in submission order.
type Disk interface {
	Submit(r storage.Request) storage.ReqID
}

// flushesInFlightMax bounds the journal writes awaiting their sync; past it
// the caller keeps prepares queued until one lands (back-pressure).
const flushesInFlightMax = 64

// segmentsMax bounds the journal files kept at once; checkpoints release them.
const segmentsMax = 1024

type flush struct {
	write  storage.ReqID
	sync   storage.ReqID
	lastOp uint64
	done   bool
}

// Segment is one journal file: the ops from FirstOp on, up to the next
// segment's FirstOp.
type Segment struct {
	FirstOp uint64
}

// SegmentName is the file name of the segment starting at firstOp.
func SegmentName(firstOp uint64) string { return fmt.Sprintf("%020d.wal", firstOp) }

// Journal appends prepares to write-ahead log segments in one directory.
// Every flush is one vectored write of all queued prepares followed by one
// fdatasync, so many ops share one sync (group commit). A checkpoint rotates
// to a new segment, and releases the segments it covers.
type Journal struct {
	disk      Disk
	dir       string
	segments  []Segment // oldest first; the last is written
	sizeBytes uint64    // of the last segment
	queued    [][]byte
	queuedOp  uint64
	flushes   []flush // in submission order
	durableOp uint64
	rotate    bool // start a new segment at the next flush
}

// OpenJournal continues a log whose segments are given oldest first; the
// last holds sizeBytes valid bytes, and the ops up to durableOp are durable.
// With no segments it starts one at durableOp+1, creating its file.
func OpenJournal(disk Disk, dir string, segments []Segment, sizeBytes, durableOp uint64) *Journal {
	j := &Journal{disk: disk, dir: dir, segments: segments, sizeBytes: sizeBytes, durableOp: durableOp, queuedOp: durableOp}
	if len(segments) == 0 {
		j.startSegment()
	}
	return j
}

func (j *Journal) path() string {
	return j.dir + "/" + SegmentName(j.segments[len(j.segments)-1].FirstOp)
}

func (j *Journal) startSegment() {
	assert.That(len(j.segments) < segmentsMax, "journal: %d segments", len(j.segments))
	j.segments = append(j.segments, Segment{FirstOp: j.queuedOp + 1})
	j.sizeBytes = 0
	j.disk.Submit(storage.Request{Op: storage.OpCreate, File: j.path()})
}

// Append queues p; it becomes durable after a Flush and its sync completion.
func (j *Journal) Append(p *Prepare) {
	assert.That(p.Op == j.queuedOp+1, "journal op %d after %d", p.Op, j.queuedOp)
	j.queued = append(j.queued, p.Encode(nil))
	j.queuedOp = p.Op
}

// Rotate makes the ops after those queued now go to a new segment.
func (j *Journal) Rotate() { j.rotate = true }

// Flush writes every queued prepare and syncs, unless too many flushes are
// in flight; then it rotates if asked to.
func (j *Journal) Flush() {
	if len(j.flushes) >= flushesInFlightMax {
		return
	}
	if len(j.queued) > 0 {
		w := storage.Request{Op: storage.OpWrite, File: j.path(), Offset: j.sizeBytes, Data: j.queued}
		j.sizeBytes += w.Size()
		write := j.disk.Submit(w)
		sync := j.disk.Submit(storage.Request{Op: storage.OpSync, File: j.path()})
		j.flushes = append(j.flushes, flush{write: write, sync: sync, lastOp: j.queuedOp})
		j.queued = nil
	}
	if j.rotate {
		j.rotate = false
		j.startSegment()
	}
}

// Complete consumes c if it belongs to the journal and reports whether it did.
// Syncs of different segments may complete out of order; an op is durable
// once every flush up to its own has synced.
func (j *Journal) Complete(c storage.Completion) bool {
	for i := range j.flushes {
		f := &j.flushes[i]
		if f.write == c.ID || f.sync == c.ID {
			// A journal that cannot be written cannot promise anything: stop.
			assert.That(c.Result == storage.ResultOK, "journal %s: request %d failed: %s", j.dir, c.ID, c.Err)
			if f.sync == c.ID {
				f.done = true
				j.advance()
			}
			return true
		}
	}
	return false
}

func (j *Journal) advance() {
	n := 0
	for n < len(j.flushes) && j.flushes[n].done {
		j.durableOp = j.flushes[n].lastOp
		n++
	}
	j.flushes = j.flushes[n:]
}

// Release deletes the segments whose ops are all at or below checkpointOp;
// the caller guarantees a durable checkpoint covers them.
func (j *Journal) Release(checkpointOp uint64) {
	n := 0
	for n+1 < len(j.segments) && j.segments[n+1].FirstOp-1 <= checkpointOp {
		j.disk.Submit(storage.Request{Op: storage.OpDelete, File: j.dir + "/" + SegmentName(j.segments[n].FirstOp)})
		n++
	}
	j.segments = j.segments[n:]
}

// DurableOp is the highest op known to be on stable storage.
func (j *Journal) DurableOp() uint64 { return j.durableOp }

// Idle reports whether nothing is queued or in flight.
func (j *Journal) Idle() bool { return len(j.queued) == 0 && len(j.flushes) == 0 }

// Scan parses a journal file's bytes and returns its whole, valid prepares in
// file order and the length of the valid prefix; bytes past it are a torn
// or corrupt tail to cut.
func Scan(b []byte) ([]Prepare, int) {
	var ps []Prepare
	pos := 0
	for pos < len(b) {
		p, n, ok := DecodePrepare(b[pos:])
		if !ok {
			break
		}
		ps = append(ps, p)
		pos += n
	}
	return ps, pos
}
