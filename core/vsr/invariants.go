package vsr

import "github.com/iggygo/iggy/internal/assert"

// invariants asserts what every entry point of a Replica leaves true. It
// runs at the end of each (Step, Tick, Propose, TakeReady, …), so a broken
// invariant stops the replica at the input that broke it, not later where
// the damage shows. Every check is a comparison: the loop is bounded by
// ReplicasMax.
func (r *Replica) invariants() {
	if r.id >= r.count || r.count > ReplicasMax || r.quorum != int(r.count)/2+1 {
		assert.Failf("vsr: replica %d of %d, quorum %d", r.id, r.count, r.quorum)
	}
	// Views only move forward, and the durable one trails the current one.
	if r.sb.LogView > r.sb.View || r.sb.View > r.view {
		assert.Failf("vsr: durable log view %d, view %d; current view %d", r.sb.LogView, r.sb.View, r.view)
	}
	// What is checkpointed was applied, what is applied was committed, and
	// the log holds every committed op; memory keeps what is not applied.
	if r.ckptOp > r.applied || r.applied > r.commit || r.commit > r.log.head() || r.log.base > r.applied {
		assert.Failf("vsr: checkpoint %d, applied %d, commit %d, log %d..%d",
			r.ckptOp, r.applied, r.commit, r.log.base, r.log.head())
	}
	if len(r.out) > outboxMax {
		assert.Failf("vsr: %d messages queued, bound %d", len(r.out), outboxMax)
	}
	assert.That(r.transfer.active || !r.transfer.emitted, "vsr: a state transfer image emitted without a transfer")
	if s := &r.sync; s.active && s.cursor > s.head {
		assert.Failf("vsr: repair cursor %d past its head %d", s.cursor, s.head)
	}
	r.journal.invariants()
	for i := range r.count {
		if a := r.acks[i]; a.durable > a.written && i != r.id {
			assert.Failf("vsr: replica %d acknowledged %d durable but %d written", i, a.durable, a.written)
		}
	}
}

// invariants asserts the journal's watermarks: nothing is durable that
// was not written, nothing written that was not queued.
func (j *Journal) invariants() {
	if j.durableOp > j.writtenOp || j.writtenOp > j.queuedOp {
		assert.Failf("journal: durable %d, written %d, queued %d", j.durableOp, j.writtenOp, j.queuedOp)
	}
	if len(j.segments) == 0 || len(j.segments) > segmentsMax || len(j.flushes) > flushesInFlightMax {
		assert.Failf("journal: %d segments, %d flushes in flight", len(j.segments), len(j.flushes))
	}
}
