package partition

import (
	"maps"
	"slices"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

// syncsMax bounds the Sync barriers in flight: a replica set's partition
// group asks one at a time, before a checkpoint.
const syncsMax = 16

// Sync makes every append taken so far durable, for a caller whose appends
// did not ask for a sync each (a replica set's group: its journal holds
// them until a checkpoint). It returns a token reported once they are:
// when an append waits in the queue, the newest one's (its chunk then
// syncs and reports Committed, and chunks commit in order, a segment's
// after its predecessor's seal); otherwise a Synced event once the .log of
// every segment written and not yet sealed is synced (requests on one file
// run in submission order, so the sync follows every write submitted).
func (l *Log) Sync() uint64 {
	assert.That(l.phase == phaseReady, "partition: Sync while not serving")
	if n := len(l.queued); n > 0 {
		l.queued[n-1].sync = true
		return l.queued[n-1].token
	}
	token := l.newToken()
	if len(l.syncWait) >= syncsMax {
		assert.Failf("partition: %d Sync barriers in flight", len(l.syncWait))
	}
	files := 0
	for _, s := range append(l.rolling[:len(l.rolling):len(l.rolling)], l.active()) {
		if s.state == segOpen || s.state == segSealing {
			l.submit(storage.Request{Op: storage.OpSync, File: l.segmentPath(s.start, extLog)}, reqSync, token)
			files++
		}
	}
	if files == 0 {
		l.emit(Synced{Token: token})
		return token
	}
	l.syncWait[token] = files
	return token
}

// onSync records one file's sync of a Sync barrier. A failed sync breaks
// the log as a failed append write does: what the file holds is unknown.
func (l *Log) onSync(f inflight, comp storage.Completion) {
	left, ok := l.syncWait[f.ref]
	if !ok {
		return // failed already
	}
	if comp.Result != storage.ResultOK {
		delete(l.syncWait, f.ref)
		l.fail(wire.CannotSaveMessagesToSegment, comp)
		l.emit(Synced{Token: f.ref, Code: wire.CannotSaveMessagesToSegment})
		return
	}
	if left > 1 {
		l.syncWait[f.ref] = left - 1
		return
	}
	delete(l.syncWait, f.ref)
	l.emit(Synced{Token: f.ref})
}

// failSyncs answers every Sync barrier in flight with code (a purge: its
// syncs are orphaned).
func (l *Log) failSyncs(code wire.Code) {
	tokens := slices.Sorted(maps.Keys(l.syncWait))
	clear(l.syncWait)
	for _, t := range tokens {
		l.emit(Synced{Token: t, Code: code})
	}
}
