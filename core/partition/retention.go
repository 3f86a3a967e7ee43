package partition

import (
	"sort"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

// deletable is the number of oldest segments retention may delete: sealed
// durably, fully committed, and never the active one (§4, §10.4).
func (l *Log) deletable() int {
	n := 0
	for n < len(l.segments)-1 {
		s := l.segments[n]
		if s.state != segSealed || s.committedNext != s.next {
			break
		}
		n++
	}
	return n
}

// DeleteSegments deletes the n oldest sealed segments (fewer when fewer
// are sealed) and returns how many it deleted (DeleteSegments, code 503).
func (l *Log) DeleteSegments(n uint32) int {
	if l.phase != phaseReady {
		assert.Failf("partition: DeleteSegments in phase %d", l.phase)
	}
	k := min(int(n), l.deletable())
	l.deleteOldest(k)
	return k
}

// Tick applies retention at time nowMicros: sealed segments whose newest
// batch expired (max timestamp nonzero and max timestamp + expiry <= now),
// then the oldest sealed segments while the partition is above its size
// cap (§10.4). It returns the number of segments deleted.
func (l *Log) Tick(nowMicros uint64) int {
	if l.phase != phaseReady {
		return 0
	}
	deletable := l.deletable()
	k := 0
	if l.cfg.expires() {
		for k < deletable {
			ts := l.segments[k].committedMaxTs
			if ts == 0 || nowMicros < ts || nowMicros-ts < l.cfg.MessageExpiryMicros {
				break
			}
			k++
		}
	}
	if l.cfg.capped() {
		size := l.sizeBytes
		for i := range k {
			size -= l.segments[i].committedBytes
		}
		for k < deletable && size > l.cfg.MaxSizeBytes {
			size -= l.segments[k].committedBytes
			k++
		}
	}
	l.deleteOldest(k)
	return k
}

func (l *Log) deleteOldest(k int) {
	l.sealedGen++
	if k > l.deletable() {
		assert.Failf("partition: deleting %d segments, %d deletable", k, l.deletable())
	}
	for i, s := range l.segments[:k] {
		l.missing -= l.segments[i+1].start - s.next
		s.deleted = true
		l.sizeBytes -= s.committedBytes
		l.submit(storage.Request{Op: storage.OpDelete, File: l.segmentPath(s.start, extLog)}, reqCleanup, s.start)
		l.submit(storage.Request{Op: storage.OpDelete, File: l.segmentPath(s.start, extIndex)}, reqCleanup, s.start)
	}
	n := copy(l.segments, l.segments[k:])
	clear(l.segments[n:])
	l.segments = l.segments[:n]
	l.cache.dropBefore(l.logStart())
}

// Purge empties the partition: one empty segment at offset 0 and no
// consumer offsets, as incarnation revision (0: no marker). Appends and
// offset writes in flight fail with 57 TransientNotCommitted (CGRP-8);
// polls waiting for the disk answer empty. The marker names the new
// incarnation once every delete completed.
func (l *Log) Purge(revision uint64) {
	if l.phase != phaseReady {
		assert.Failf("partition: Purge in phase %d", l.phase)
	}
	l.revision = revision
	l.dueMarker()
	for id, f := range l.inflight {
		// An earlier purge's marker still waits for its deletes, and a
		// marker in flight is still counted as due.
		if f.kind != reqPurgeDelete && f.kind != reqMarker {
			f.kind = reqOrphan
			l.inflight[id] = f
		}
	}
	l.failUncommitted(wire.TransientNotCommitted)
	l.broken = wire.OK
	l.answerPendingPolls()
	l.failPendingOffsets(wire.TransientNotCommitted)
	for _, s := range l.segments {
		s.deleted = true
		l.purgeDelete(l.segmentPath(s.start, extLog))
		l.purgeDelete(l.segmentPath(s.start, extIndex))
	}
	for _, k := range l.dropOffsets() {
		l.purgeDelete(l.offsetPath(k.kind, k.id))
	}
	l.resetJournal()
	if l.purgeDeletes == 0 {
		l.writeRevision()
	}
	l.cache.clear()
	l.resetEmpty()
}

// purgeDelete deletes a file of the purged history; the new marker waits
// for the last such delete (onPurgeDelete).
func (l *Log) purgeDelete(path string) {
	l.purgeDeletes++
	l.submit(storage.Request{Op: storage.OpDelete, File: path}, reqPurgeDelete, 0)
}

func (l *Log) onPurgeDelete() {
	l.purgeDeletes--
	if l.purgeDeletes == 0 {
		l.writeRevision()
	}
}

// answerPendingPolls answers every poll waiting for the disk with nothing,
// in poll id order.
func (l *Log) answerPendingPolls() {
	ids := make([]uint64, 0, len(l.polls))
	for _, p := range l.polls {
		ids = append(ids, p.id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		l.emit(PollDone{ID: id})
	}
	clear(l.polls)
}
