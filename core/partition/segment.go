package partition

import (
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

// segState is where a segment is in its life (STOR-45: a segment's files
// are created only after its predecessor was sealed durably).
type segState uint8

const (
	segPendingCreate segState = iota // files not requested yet: the predecessor is sealing
	segOpen                          // files created or queued for creation
	segSealing                       // rolled: .log and .index syncs in flight
	segSealed                        // rolled and durable; only retention changes it
)

// segment is one .log/.index pair. Offsets and byte positions advance
// together: [start, next) are the offsets assigned to it and sizeBytes the
// bytes they take; the committed* fields are the prefix that is committed.
type segment struct {
	start     uint64
	next      uint64
	sizeBytes uint64

	committedNext  uint64
	committedBytes uint64
	committedMaxTs uint64 // base_timestamp of its newest committed batch; 0 when none

	index          []indexEntry // one entry per flushed chunk, as on disk
	indexCommitted int          // entries whose chunk is committed

	state    segState
	rolled   bool // sealed by an append; seal once its queued appends are flushed
	sealWait int  // seal syncs still in flight
	deleted  bool // removed by retention or purge; pending reads re-plan
}

func (s *segment) hasCommitted() bool { return s.committedNext > s.start }

// roll starts a new active segment at the next offset after the active one
// reached the segment size (§10.4). The old one is sealed once all its
// queued appends are written; the new one's files wait for that seal.
func (l *Log) roll() {
	old := l.active()
	if old.rolled {
		assert.Failf("partition: segment %d rolled twice", old.start)
	}
	if len(l.segments) >= segmentsMax {
		assert.Failf("partition: more than %d segments", segmentsMax)
	}
	old.rolled = true
	l.rolling = append(l.rolling, old)
	next := &segment{start: l.nextOffset, next: l.nextOffset, committedNext: l.nextOffset, state: segPendingCreate}
	l.segments = append(l.segments, next)
}

// sealReady submits the seal syncs of rolled segments whose queued appends
// have all been written out, oldest first.
func (l *Log) sealReady() {
	for _, s := range l.rolling {
		if s.state != segOpen || l.hasQueued(s) {
			continue
		}
		s.state = segSealing
		s.sealWait = 2
		l.submit(storage.Request{Op: storage.OpSync, File: l.segmentPath(s.start, extLog)}, reqSeal, s.start)
		l.submit(storage.Request{Op: storage.OpSync, File: l.segmentPath(s.start, extIndex)}, reqSeal, s.start)
	}
}

func (l *Log) hasQueued(s *segment) bool {
	for i := range l.queued {
		if l.queued[i].seg == s {
			return true
		}
	}
	return false
}

// onSegmentFile handles the completion of a segment create, index write or
// seal sync. Any failure breaks the log: the files no longer match memory.
func (l *Log) onSegmentFile(f inflight, c storage.Completion) {
	if c.Result != storage.ResultOK {
		l.fail(wire.CannotSaveMessagesToSegment, c)
		return
	}
	if f.kind != reqSeal || l.broken != wire.OK {
		return
	}
	i := l.segmentIndex(f.ref)
	if i < 0 {
		return // purged meanwhile
	}
	s := l.segments[i]
	if s.state != segSealing || s.sealWait <= 0 {
		assert.Failf("partition: seal completion for segment %d in state %d", s.start, s.state)
	}
	s.sealWait--
	if s.sealWait > 0 {
		return
	}
	s.state = segSealed
	l.sealedGen++
	assert.That(l.rolling[0] == s, "partition: segments sealed out of order")
	l.rolling = l.rolling[1:]
	succ := l.segments[i+1]
	if succ.state != segPendingCreate {
		assert.Failf("partition: successor of %d in state %d", s.start, succ.state)
	}
	l.openSegment(succ)
}

// openSegment creates the files of a segment; writes may follow at once
// because the disk keeps the order of requests for one file.
func (l *Log) openSegment(s *segment) {
	s.state = segOpen
	l.submit(storage.Request{Op: storage.OpCreate, File: l.segmentPath(s.start, extLog)}, reqSegCreate, s.start)
	l.submit(storage.Request{Op: storage.OpCreate, File: l.segmentPath(s.start, extIndex)}, reqSegCreate, s.start)
}

// segmentIndex finds the live segment starting at start, or -1.
func (l *Log) segmentIndex(start uint64) int {
	lo, hi := 0, len(l.segments)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if l.segments[mid].start < start {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(l.segments) && l.segments[lo].start == start {
		return lo
	}
	return -1
}

// segmentFor is the segment holding offset off (the last one starting at
// or before it); off must be at or after the log start.
func (l *Log) segmentFor(off uint64) *segment {
	lo, hi := 0, len(l.segments)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if l.segments[mid].start <= off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo <= 0 {
		assert.Failf("partition: offset %d before the log start %d", off, l.logStart())
	}
	return l.segments[lo-1]
}
