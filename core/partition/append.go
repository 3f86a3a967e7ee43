package partition

import (
	"slices"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// queuedAppend is one stamped record between Append and its commit.
type queuedAppend struct {
	token     uint64
	rec       []byte
	base      uint64
	count     uint32
	timestamp uint64
	seg       *segment
	position  uint64 // byte position in the segment's .log
	sync      bool
	producer  uint64 // the idempotent producer's id, when hasProducer
	// hasProducer marks a send_producer_messages batch: its commit records
	// it in the producer table, its failure abandons it there.
	hasProducer bool
	journaled   bool   // its producer record is written (producer_journal.go)
	record      []byte // its producer record
}

// chunk is what one Flush wrote to one segment: one vectored write, one
// index entry, and an fdatasync when any of its appends asked for one.
type chunk struct {
	seq      uint64
	appends  []queuedAppend
	needSync bool
	written  bool
	synced   bool
}

// CanAppend says whether Append may be called with a record of size bytes:
// OK, 58 TransientNotAccepted while the queue is full, or the code of the
// write failure that broke the log.
func (l *Log) CanAppend(size int) wire.Code {
	switch {
	case l.phase != phaseReady:
		return wire.TransientNotAccepted
	case l.broken != wire.OK:
		return l.broken
	case l.uncommittedCount >= appendsQueuedMax, l.uncommittedBytes+uint64(size) > appendBytesQueuedMax:
		return wire.TransientNotAccepted
	}
	return wire.OK
}

// Append takes ownership of rec, a record the caller validated
// (batch.Validate), assigns it the next offsets and base_timestamp =
// max(nowMicros, the previous one), stamps it in place and queues it for
// the next Flush. The record is reported Committed once written, or once
// synced when sync is set. The caller checked CanAppend.
func (l *Log) Append(rec []byte, nowMicros uint64, sync bool) (token, baseOffset uint64) {
	code := l.CanAppend(len(rec))
	if code != wire.OK {
		assert.Failf("partition: Append refused with %d", code)
	}
	return l.appendRecord(rec, nowMicros, sync)
}

// AppendProducer is Append for a producer batch that Producers().Check
// passed as new: the table holds it as uncommitted until the append
// commits (IDEM-8), and records it at commit (IDEM-9).
func (l *Log) AppendProducer(rec []byte, nowMicros uint64, sync bool, b ProducerBatch) (token, baseOffset uint64) {
	token, baseOffset = l.Append(rec, nowMicros, sync)
	a := &l.queued[len(l.queued)-1]
	assert.That(a.token == token, "partition: producer append not last queued")
	a.producer, a.hasProducer = b.ID, true
	a.record = encodeProducerRecord(b, baseOffset, a.timestamp)
	l.producers.Admit(b, token, a.timestamp)
	return token, baseOffset
}

// Producers is the partition's idempotent producer table.
func (l *Log) Producers() *Producers { return l.producers }

// AppendCommitted is Append for a record a replica set already committed:
// it must apply, so only a log that serves and is not broken is asked; the
// queue bound does not apply (the group's pipeline bounds what is queued).
func (l *Log) AppendCommitted(rec []byte, nowMicros uint64, sync bool) (token, baseOffset uint64) {
	if l.phase != phaseReady || l.broken != wire.OK {
		assert.Failf("partition: AppendCommitted in phase %d, broken %d", l.phase, l.broken)
	}
	return l.appendRecord(rec, nowMicros, sync)
}

// Ready says whether the log serves: not recovering (a boot, or a reopen
// after a failed write) and not failed to recover.
func (l *Log) Ready() bool { return l.phase == phaseReady }

// Broken says whether a write failure broke the log (fail), or a reopen
// failed to read it: it takes no appends until it is reopened or purged.
func (l *Log) Broken() bool { return l.broken != wire.OK || l.phase == phaseFailed }

// LastTimestamp is the newest base_timestamp assigned (the append clock).
func (l *Log) LastTimestamp() uint64 { return l.lastTimestamp }

// NextOffset is the offset the next append gets.
func (l *Log) NextOffset() uint64 { return l.nextOffset }

func (l *Log) appendRecord(rec []byte, nowMicros uint64, sync bool) (token, baseOffset uint64) {
	h := batch.ParseHeader(rec)
	assert.That(h.Length == uint64(len(rec)) && h.Count >= 1, "partition: appending an unvalidated record")
	s := l.active()
	if s.rolled || s.next != l.nextOffset {
		assert.Failf("partition: active segment %d out of step", s.start)
	}

	baseOffset = l.nextOffset
	ts := max(nowMicros, l.lastTimestamp)
	batch.Stamp(rec, uint64(l.cfg.PartitionID), baseOffset, ts)
	token = l.newToken()
	l.queued = append(l.queued, queuedAppend{
		token: token, rec: rec, base: baseOffset, count: h.Count, timestamp: ts,
		seg: s, position: s.sizeBytes, sync: sync,
	})
	s.next += uint64(h.Count)
	s.sizeBytes += uint64(len(rec))
	l.nextOffset += uint64(h.Count)
	l.lastTimestamp = ts
	l.uncommittedCount++
	l.uncommittedBytes += uint64(len(rec))
	if s.sizeBytes >= l.cfg.SegmentSizeBytes {
		l.roll()
	}
	return token, baseOffset
}

// Flush writes out everything queued: per segment one vectored OpWrite of
// the records, one index entry, and one OpSync when an append asked for
// it (group commit). Appends to a segment whose files wait for the seal of
// its predecessor stay queued. The node calls it once per step.
func (l *Log) Flush() {
	if l.phase != phaseReady || l.broken != wire.OK || l.markersDue > 0 {
		return // appends wait for the incarnation's marker (revision.go)
	}
	l.journalQueued()
	limit := slices.IndexFunc(l.queued, func(a queuedAppend) bool { return a.hasProducer && !a.journaled })
	if limit < 0 {
		limit = len(l.queued)
	}
	n := 0
	for n < limit && l.queued[n].seg.state == segOpen {
		s := l.queued[n].seg
		end := n
		for end < limit && l.queued[end].seg == s {
			end++
		}
		l.submitChunk(l.queued[n:end])
		n = end
	}
	l.queued = append(l.queued[:0], l.queued[n:]...)
	l.sealReady()
}

func (l *Log) submitChunk(apps []queuedAppend) {
	s := apps[0].seg
	data := make([][]byte, len(apps))
	needSync := false
	for i, a := range apps {
		data[i] = a.rec
		needSync = needSync || a.sync
		if i > 0 {
			prev := apps[i-1]
			assert.That(a.base == prev.base+uint64(prev.count), "partition: offsets not contiguous in a chunk")
			assert.That(a.position == prev.position+uint64(len(prev.rec)), "partition: positions not contiguous in a chunk")
		}
	}
	c := &chunk{seq: l.chunkSeq, appends: slices.Clone(apps), needSync: needSync}
	l.chunkSeq++
	l.chunks = append(l.chunks, c)

	logFile := l.segmentPath(s.start, extLog)
	l.submit(storage.Request{Op: storage.OpWrite, File: logFile, Offset: apps[0].position, Data: data}, reqChunkWrite, c.seq)
	entry := indexEntry{offset: apps[0].base, timestamp: apps[0].timestamp, position: apps[0].position}
	s.index = append(s.index, entry)
	if uint64(len(s.index)) > l.cfg.indexEntriesMax() {
		assert.Failf("partition: index of segment %d over its bound", s.start)
	}
	l.submit(storage.Request{
		Op: storage.OpWrite, File: l.segmentPath(s.start, extIndex),
		Offset: uint64(len(s.index)-1) * indexEntryBytes, Data: [][]byte{entry.encode()},
	}, reqIndexWrite, s.start)
	if needSync {
		l.submit(storage.Request{Op: storage.OpSync, File: logFile}, reqChunkSync, c.seq)
	}
}

// onChunk records a chunk's write or sync completion and commits every
// chunk at the front that is now complete.
func (l *Log) onChunk(f inflight, comp storage.Completion) {
	c := l.chunkBySeq(f.ref)
	if c == nil {
		return // failed or purged meanwhile
	}
	if comp.Result != storage.ResultOK {
		l.fail(wire.CannotSaveMessagesToSegment, comp)
		return
	}
	if f.kind == reqChunkWrite {
		c.written = true
	} else {
		c.synced = true
	}
	for len(l.chunks) > 0 {
		c := l.chunks[0]
		if !c.written || (c.needSync && !c.synced) {
			break
		}
		l.commitChunk(c)
		l.chunks[0] = nil
		l.chunks = l.chunks[1:]
	}
}

func (l *Log) chunkBySeq(seq uint64) *chunk {
	if len(l.chunks) == 0 || seq < l.chunks[0].seq || seq-l.chunks[0].seq >= uint64(len(l.chunks)) {
		return nil
	}
	c := l.chunks[seq-l.chunks[0].seq]
	assert.That(c.seq == seq, "partition: chunk sequence out of order")
	return c
}

func (l *Log) commitChunk(c *chunk) {
	s := c.appends[0].seg
	for _, a := range c.appends {
		if a.base != l.committedNext {
			assert.Failf("partition: commit of %d but the frontier is %d", a.base, l.committedNext)
		}
		if a.position != s.committedBytes {
			assert.Failf("partition: commit at position %d but %d is committed", a.position, s.committedBytes)
		}
		assert.That(a.base+uint64(a.count) <= l.nextOffset, "partition: commit beyond the assigned offsets")
		s.committedNext = a.base + uint64(a.count)
		s.committedBytes += uint64(len(a.rec))
		s.committedMaxTs = a.timestamp
		l.committedNext = s.committedNext
		l.sizeBytes += uint64(len(a.rec))
		l.uncommittedCount--
		l.uncommittedBytes -= uint64(len(a.rec))
		l.cache.add(cachedRecord{rec: a.rec, base: a.base, count: a.count, timestamp: a.timestamp})
		if a.hasProducer {
			l.producers.Commit(a.producer, a.token, a.base, a.timestamp)
		}
		l.emit(Committed{Token: a.token, BaseOffset: a.base, Count: a.count})
	}
	s.indexCommitted++
	assert.That(s.indexCommitted <= len(s.index), "partition: more committed chunks than index entries")
}

// fail breaks the log after a write failure c: every append not yet
// committed fails, no append is accepted until Purge or a reopen (the
// state of the files' tails is unknown), and WriteFailed reports it once.
func (l *Log) fail(code wire.Code, c storage.Completion) {
	if l.broken != wire.OK {
		return
	}
	l.broken = code
	l.cutUncommitted()
	l.failUncommitted(code)
	l.emit(WriteFailed{Code: code, Err: c.Err})
}

// cutUncommitted truncates the files of segments holding uncommitted
// appends back to their committed bytes and index entries. A write queued
// behind the one that failed may still land past a hole the failed one
// left, and a boot trusts the records before the last index entry: cut,
// the files hold only what was committed (a reopen cuts it again, in case
// a crash came first or a truncate fails).
func (l *Log) cutUncommitted() {
	for i := len(l.segments) - 1; i >= 0; i-- {
		s := l.segments[i]
		if s.committedNext == s.next {
			break
		}
		if s.state == segPendingCreate {
			continue
		}
		l.submit(storage.Request{Op: storage.OpTruncate, File: l.segmentPath(s.start, extLog), Offset: s.committedBytes}, reqOrphan, 0)
		l.submit(storage.Request{Op: storage.OpTruncate, File: l.segmentPath(s.start, extIndex),
			Offset: uint64(s.indexCommitted) * indexEntryBytes}, reqOrphan, 0)
	}
}

// failUncommitted fails every append not yet committed, in offset order.
func (l *Log) failUncommitted(code wire.Code) {
	for _, c := range l.chunks {
		for _, a := range c.appends {
			l.failAppend(a, code)
		}
	}
	for _, a := range l.queued {
		l.failAppend(a, code)
	}
	l.chunks, l.queued = nil, nil
	l.uncommittedCount, l.uncommittedBytes = 0, 0
}

func (l *Log) failAppend(a queuedAppend, code wire.Code) {
	if a.hasProducer {
		l.producers.Abandon(a.producer, a.token)
	}
	l.emit(Failed{Token: a.token, Code: code})
}
