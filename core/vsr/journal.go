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

// journalOpsMax bounds the ops whose file position the journal remembers
// (those after the oldest kept segment's start); checkpoints release them.
const journalOpsMax = 1 << 20

// barrierMax bounds the deletes and truncations in flight that new writes
// wait for.
const barrierMax = segmentsMax + 1

type flush struct {
	write   storage.ReqID // 0: nothing to write (a recovery sync)
	sync    storage.ReqID
	lastOp  uint64
	written bool
	done    bool
}

// Segment is one journal file: the ops from FirstOp on, up to the next
// segment's FirstOp.
type Segment struct {
	FirstOp uint64
}

// SegmentName is the file name of the segment starting at firstOp.
func SegmentName(firstOp uint64) string { return fmt.Sprintf("%020d.wal", firstOp) }

// position is where an op's prepare starts: its segment and byte offset.
type position struct {
	segment uint64 // FirstOp of the segment
	offset  uint64
}

type queuedPrepare struct {
	op  uint64
	raw []byte
}

// Journal appends prepares to write-ahead log segments in one directory.
// Every flush is one vectored write of all queued prepares followed by one
// fdatasync, so many ops share one sync (group commit). A checkpoint rotates
// to a new segment, and releases the segments it covers. A replica of a
// cluster also cuts a suffix that a new view replaced (Truncate) and starts
// over after a state transfer (Reset); both first delete the files they
// drop, and no write is issued until those deletes completed, so a crash
// never leaves a stale segment beside new ones.
type Journal struct {
	disk          Disk
	dir           string
	segments      []Segment // oldest first; the last is written
	pendingCreate bool      // the last segment's file is created at the first flush with none in flight
	sizeBytes     uint64    // of the last segment, written or in flight
	queued        []queuedPrepare
	queuedBytes   uint64
	queuedOp      uint64
	flushes       []flush // in submission order
	writtenOp     uint64  // every op up to it was written (page cache)
	durableOp     uint64  // every op up to it was synced
	rotate        bool    // start a new segment at the next flush
	barrier       []storage.ReqID
	posBase       uint64     // positions[i] is the position of op posBase+1+i
	positions     []position // unknown for ops at or below posBase
	// deferred is recovery's cut, held until ReleaseCut; no write goes out
	// before it.
	deferred []storage.Request
}

// OpenJournal continues a log whose segments are given oldest first; the
// last holds sizeBytes valid bytes, and the ops up to durableOp are durable.
// With no segments it starts one at durableOp+1, creating its file. The
// positions of the ops already there are unknown, so they cannot be
// truncated: a standalone replica never truncates (RecoverJournal is the
// cluster's way in).
func OpenJournal(disk Disk, dir string, segments []Segment, sizeBytes, durableOp uint64) *Journal {
	j := &Journal{disk: disk, dir: dir, segments: segments, sizeBytes: sizeBytes,
		durableOp: durableOp, writtenOp: durableOp, queuedOp: durableOp, posBase: durableOp}
	if len(segments) == 0 {
		j.startSegment()
	}
	return j
}

func (j *Journal) segmentPath(firstOp uint64) string { return j.dir + "/" + SegmentName(firstOp) }

func (j *Journal) last() uint64 { return j.segments[len(j.segments)-1].FirstOp }

func (j *Journal) startSegment() {
	if len(j.segments) >= segmentsMax {
		assert.Failf("journal: %d segments", len(j.segments))
	}
	j.segments = append(j.segments, Segment{FirstOp: j.queuedOp + 1})
	j.sizeBytes = 0
	j.pendingCreate = true
}

// Append queues the sealed prepare raw of op; it becomes durable after a
// Flush and its sync completion.
func (j *Journal) Append(op uint64, raw []byte) {
	if op != j.queuedOp+1 {
		assert.Failf("journal op %d after %d", op, j.queuedOp)
	}
	if len(j.positions) >= journalOpsMax {
		assert.Failf("journal: %d ops since the oldest segment", len(j.positions))
	}
	j.positions = append(j.positions, position{segment: j.last(), offset: j.sizeBytes + j.queuedBytes})
	j.queued = append(j.queued, queuedPrepare{op: op, raw: raw})
	j.queuedBytes += uint64(len(raw))
	j.queuedOp = op
}

// Rotate makes the ops after those queued now go to a new segment, unless
// the last one is still empty (an empty segment is already a fresh start).
func (j *Journal) Rotate() { j.rotate = j.last() <= j.queuedOp }

// Flush writes every queued prepare and syncs, unless too many flushes are
// in flight or deletes are pending; then it rotates if asked to.
func (j *Journal) Flush() {
	if len(j.flushes) >= flushesInFlightMax || len(j.barrier) > 0 || len(j.deferred) > 0 {
		return
	}
	if j.pendingCreate {
		if len(j.flushes) > 0 {
			// A segment starts only once every one before it synced, so
			// unsynced bytes lie in the last segment alone and recovery can
			// tell a crash's lost tail from damage at rest (cutClaim).
			return
		}
		j.pendingCreate = false
		j.disk.Submit(storage.Request{Op: storage.OpCreate, File: j.segmentPath(j.last())})
	}
	if len(j.queued) > 0 {
		data := make([][]byte, len(j.queued))
		for i := range j.queued {
			data[i] = j.queued[i].raw
		}
		w := storage.Request{Op: storage.OpWrite, File: j.segmentPath(j.last()), Offset: j.sizeBytes, Data: data}
		j.sizeBytes += w.Size()
		write := j.disk.Submit(w)
		sync := j.disk.Submit(storage.Request{Op: storage.OpSync, File: w.File})
		j.flushes = append(j.flushes, flush{write: write, sync: sync, lastOp: j.queuedOp})
		j.queued, j.queuedBytes = nil, 0
	}
	if j.rotate {
		j.rotate = false
		if j.last() <= j.queuedOp { // a truncation since Rotate may have emptied the last segment
			j.startSegment()
		}
	}
}

// Complete consumes c if it belongs to the journal and reports whether it did.
// Syncs of different segments may complete out of order; an op is durable
// once every flush up to its own has synced.
func (j *Journal) Complete(c storage.Completion) bool {
	for i, id := range j.barrier {
		if id == c.ID {
			if !(c.Result == storage.ResultOK || c.Result == storage.ResultNotFound) {
				assert.Failf("journal %s: request %d failed: %s", j.dir, c.ID, c.Err)
			}
			j.barrier = append(j.barrier[:i], j.barrier[i+1:]...)
			return true
		}
	}
	for i := range j.flushes {
		f := &j.flushes[i]
		if f.write == c.ID || f.sync == c.ID {
			// A journal that cannot be written cannot promise anything: stop.
			if c.Result != storage.ResultOK {
				assert.Failf("journal %s: request %d failed: %s", j.dir, c.ID, c.Err)
			}
			if f.write == c.ID {
				f.written = true
			} else {
				f.done = true
			}
			j.advance()
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
	j.writtenOp = max(j.writtenOp, j.durableOp)
	for i := 0; i < len(j.flushes) && j.flushes[i].written; i++ {
		j.writtenOp = max(j.writtenOp, j.flushes[i].lastOp)
	}
}

// Truncate drops every op after op: those queued are forgotten, those on
// disk are cut by truncating the segment that holds op+1 at its position
// and deleting the segments after it. The ops must have known positions
// (appended since RecoverJournal or OpenJournal); a replica only cuts ops
// above its commit.
func (j *Journal) Truncate(op uint64) {
	if op >= j.queuedOp {
		return
	}
	if op < j.posBase {
		assert.Failf("journal: truncate to %d, positions known after %d", op, j.posBase)
	}
	flushedOp := j.queuedOp - uint64(len(j.queued))
	if op >= flushedOp {
		keep := op - flushedOp
		for _, q := range j.queued[keep:] {
			j.queuedBytes -= uint64(len(q.raw))
		}
		j.queued = j.queued[:keep]
	} else {
		j.cutFlushed(op)
	}
	j.positions = j.positions[:op-j.posBase]
	j.queuedOp = op
	j.durableOp = min(j.durableOp, op)
	j.writtenOp = min(j.writtenOp, op)
}

// cutFlushed truncates the file holding op+1 and deletes later segments.
func (j *Journal) cutFlushed(op uint64) {
	at := j.positions[op-j.posBase]
	j.queued, j.queuedBytes = nil, 0
	i := len(j.segments) - 1
	if j.pendingCreate && j.last() == at.segment {
		assert.Failf("journal: op %d flushed to an uncreated segment", op+1)
	}
	for j.segments[i].FirstOp != at.segment {
		if i == len(j.segments)-1 && j.pendingCreate {
			j.pendingCreate = false // never created: nothing to delete
		} else {
			j.addBarrier(j.disk.Submit(storage.Request{Op: storage.OpDelete, File: j.segmentPath(j.segments[i].FirstOp)}))
		}
		i--
	}
	j.segments = j.segments[:i+1]
	j.sizeBytes = at.offset
	j.addBarrier(j.disk.Submit(storage.Request{Op: storage.OpTruncate, File: j.segmentPath(at.segment), Offset: at.offset}))
	for k := range j.flushes {
		j.flushes[k].lastOp = min(j.flushes[k].lastOp, op)
	}
}

func (j *Journal) addBarrier(id storage.ReqID) {
	if len(j.barrier) >= barrierMax {
		assert.Failf("journal: %d requests in the barrier", len(j.barrier))
	}
	j.barrier = append(j.barrier, id)
}

// Reset forgets every op and continues after op, the op of a checkpoint the
// caller made durable (a state transfer installed it): every segment is
// deleted, then a new one starts at op+1.
func (j *Journal) Reset(op uint64) {
	for _, s := range j.segments {
		if s.FirstOp == j.last() && j.pendingCreate {
			continue
		}
		j.addBarrier(j.disk.Submit(storage.Request{Op: storage.OpDelete, File: j.segmentPath(s.FirstOp)}))
	}
	j.segments = []Segment{{FirstOp: op + 1}}
	j.pendingCreate = true
	j.sizeBytes = 0
	j.queued, j.queuedBytes = nil, 0
	for k := range j.flushes {
		j.flushes[k].lastOp = op
	}
	j.queuedOp, j.durableOp, j.writtenOp = op, op, op
	j.posBase, j.positions = op, nil
	j.rotate = false
}

// Release deletes the segments whose ops are all at or below checkpointOp;
// the caller guarantees a durable checkpoint covers them.
func (j *Journal) Release(checkpointOp uint64) {
	n := 0
	for n+1 < len(j.segments) && j.segments[n+1].FirstOp-1 <= checkpointOp {
		j.disk.Submit(storage.Request{Op: storage.OpDelete, File: j.segmentPath(j.segments[n].FirstOp)})
		n++
	}
	j.segments = j.segments[n:]
	if first := j.segments[0].FirstOp; first > j.posBase+1 {
		drop := min(first-1-j.posBase, uint64(len(j.positions)))
		j.positions = j.positions[drop:]
		j.posBase += drop
	}
}

// Settled reports whether every truncation and delete has completed, so no
// file holds ops the journal dropped.
func (j *Journal) Settled() bool { return len(j.barrier) == 0 }

// WrittenOp is the highest op whose write completed (page cache).
func (j *Journal) WrittenOp() uint64 { return j.writtenOp }

// DurableOp is the highest op known to be on stable storage.
func (j *Journal) DurableOp() uint64 { return j.durableOp }

// Idle reports whether nothing is queued or in flight.
func (j *Journal) Idle() bool {
	return len(j.queued) == 0 && len(j.flushes) == 0 && len(j.barrier) == 0
}

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
