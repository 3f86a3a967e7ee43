package sim

import (
	"fmt"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
)

// Deferred polls in the workload (DEFP-2, DEFP-4, DEFP-11): a share of the
// polls by offset wait up to deferredWaitTicksMax for a min_count, on
// nodes that park at most simParkedMax polls per shard so some are refused.
const (
	deferredOneIn        = 3
	deferredWaitTicksMax = 30
	simParkedMax         = 2
	tickMicros           = 10_000
	// deferredLateTicks is how long after its wait a deferred poll may be
	// answered once faults have healed: the last read and the reply's trip.
	deferredLateTicks = 200
	finalWaitTicks    = 3
)

// Marks of the deferred poll oracle.
const (
	markDeferredShort   = "sim.defer.short_after_wait"
	markDeferredFilled  = "sim.defer.filled"
	markDeferredRefused = "sim.defer.capacity_refused"
	markDeferredTimed   = "sim.defer.late_checked"
	// markDeferredNoQuorum: a poll sent after heal, in a replica set, to a
	// partition group without a quorum serving; its lateness is not judged.
	markDeferredNoQuorum = "sim.defer.late_unchecked_no_quorum"
	// Positions (MSG-3..6): checked in replies with and without messages,
	// and a remembered incarnation sent and refused (its partition was
	// deleted and created again).
	markPositionsMessages  = "sim.poll.positions_with_messages"
	markPositionsEmpty     = "sim.poll.positions_empty"
	markIncarnationSent    = "sim.poll.incarnation_sent"
	markIncarnationRefused = "sim.poll.incarnation_refused"
)

// The deferred poll marks a sweep must hit: polls parked, woken by data and
// by their wait, refused at capacity, answered short only after their wait
// and filled, and judged for lateness after heal. A replica set's sweep
// rarely wakes one by data (its polls read through the group first).
var (
	deferredRequired = append([]string{"node.defer.parked", "node.defer.woken_by_data", "node.defer.woken_by_timeout",
		"node.defer.capacity_refused", markDeferredShort, markDeferredFilled, markDeferredRefused, markDeferredTimed,
		markPositionsMessages, markPositionsEmpty, markIncarnationSent}, groupedRequired...)
	deferredClusterRequired = []string{"node.defer.parked", "node.defer.woken_by_timeout", markDeferredShort,
		markDeferredFilled, markDeferredTimed, markPositionsMessages, markPositionsEmpty}
)

// deferredAsk is what a deferred poll asked for.
type deferredAsk struct {
	waitTicks   uint64
	minCount    uint32
	incarnation uint64 // 0: unchecked
}

// maybeDeferred turns a poll by offset into a deferred poll one time in
// deferredOneIn.
func (w *World) maybeDeferred(o *op, q wire.PollMessagesRequest) {
	if w.rng.IntN(deferredOneIn) != 0 {
		o.body = encode(q.Encode)
		return
	}
	o.deferred = &deferredAsk{waitTicks: 1 + w.rng.Uint64N(deferredWaitTicksMax), minCount: 1 + w.rng.Uint32N(o.count),
		incarnation: w.catalog.part(o.part).incarnation}
	o.code = wire.CmdDeferredPoll
	o.body = encode(wire.DeferredPollRequest{Poll: q, WaitMicros: o.deferred.waitTicks * tickMicros,
		MinCount: o.deferred.minCount, Incarnation: o.deferred.incarnation}.Encode)
	w.maybeGrouped(o, q)
}

// finalDeferred makes the read-back's polls deferred polls with a short
// wait: the last, empty one of each partition parks and is answered when
// its wait runs out, after heal, where the oracle's lateness bound holds.
func (w *World) finalDeferred(o *op, q wire.PollMessagesRequest) {
	o.deferred = &deferredAsk{waitTicks: finalWaitTicks, minCount: 1, incarnation: w.catalog.part(o.part).incarnation}
	o.code = wire.CmdDeferredPoll
	o.body = encode(wire.DeferredPollRequest{Poll: q, WaitMicros: finalWaitTicks * tickMicros, MinCount: 1,
		Incarnation: o.deferred.incarnation}.Encode)
}

// checkPositions is the positions oracle (MSG-3..6): a reply to a poll
// that sent an incarnation is of that incarnation, never another; its
// checkpoint is its last message (none without), and its continuation
// the offset after it, or the offset asked for when it holds none.
func (w *World) checkPositions(o *op, r *oracles.Read, pos wire.PollPositions) error {
	d := o.deferred
	if d.incarnation != 0 {
		w.marks.Hit(markIncarnationSent)
	}
	switch {
	case pos.Incarnation == 0 || d.incarnation != 0 && pos.Incarnation != d.incarnation:
		return fmt.Errorf("asked for incarnation %d, answered from %d", d.incarnation, pos.Incarnation)
	case len(r.Msgs) > 0:
		w.marks.Hit(markPositionsMessages)
		last := r.First + uint64(len(r.Msgs)) - 1
		if pos.Checkpoint != last || pos.Continuation != last+1 {
			return fmt.Errorf("last offset %d, checkpoint %d, continuation %d", last, pos.Checkpoint, pos.Continuation)
		}
	default:
		w.marks.Hit(markPositionsEmpty)
		if pos.Checkpoint != wire.NoCheckpoint || o.kind == opPoll && pos.Continuation != o.offset {
			return fmt.Errorf("no message from offset %d, checkpoint %d, continuation %d", o.offset, pos.Checkpoint, pos.Continuation)
		}
	}
	w.catalog.part(o.part).incarnation = pos.Incarnation
	return nil
}

// checkDeferred is the deferred poll oracle: a reply with fewer than
// min_count messages comes no earlier than the wait (the node answers
// early only when enough arrived), and once faults have healed no later
// than the wait plus deferredLateTicks. The read itself is judged like
// every poll (consecutive offsets, each message once, linearizable).
//
// In a replica set the wait starts only after the read's barrier commits
// in the partition's group (node.readThroughGroup: a read sees every write
// acknowledged before it, so even an empty answer at the wait's end needs
// the group's quorum), and the wait of DEFP-4 is that of a parked poll.
// Heal only stops the faults: a replica restarted then still boots, opens
// the groups of partitions created while it was down (disk-bound) and a
// view change follows a dead primary after ViewChangeTimeoutTicks, so a
// group may lack a quorum for hundreds of ticks after heal (cluster seed
// 318696002: the poll's group had one member of three serving for 345
// ticks; a plain poll there waits as long, judged only by the liveness
// budget). So the lateness bound is judged in a replica set only for polls
// sent to the primary of a group with a quorum serving (attempt.quorate).
func (w *World) checkDeferred(a *attempt, o *op, got int) {
	d := o.deferred
	elapsed := w.tick - a.sentTick
	if uint32(got) >= min(d.minCount, o.count) {
		w.marks.Hit(markDeferredFilled)
	} else {
		w.marks.Hit(markDeferredShort)
		if elapsed < d.waitTicks {
			w.fail("deferred", fmt.Sprintf("%s: %d of min_count %d after %d ticks of a %d-tick wait",
				o, got, d.minCount, elapsed, d.waitTicks))
			return
		}
	}
	if w.healed && a.sentTick > w.knobs.FaultTicks && w.cluster() && !a.quorate {
		w.marks.Hit(markDeferredNoQuorum)
		return
	}
	if w.healed && a.sentTick > w.knobs.FaultTicks {
		w.marks.Hit(markDeferredTimed)
		if elapsed > d.waitTicks+deferredLateTicks {
			w.fail("deferred", fmt.Sprintf("%s: answered %d ticks after its %d-tick wait", o, elapsed-d.waitTicks, d.waitTicks))
		}
	}
}

// groupQuorate says whether partition k's group had a quorum serving when
// a poll was sent to target: target leads the group, and a quorum of its
// members run (booted, not paused) with the group open in normal status in
// target's view. A partition whose ids the clients do not know yet is not.
func (w *World) groupQuorate(target *host, k oracles.PartKey) bool {
	t := w.catalog.topic(k.Stream, k.Topic)
	s := w.catalog.stream(k.Stream)
	if t == nil || s == nil || !t.idKnown || !s.idKnown || !target.accepting() {
		return false
	}
	lead, ok := partitionGroup(target, s.id, t.id, k.Partition)
	if !ok || !lead.Primary {
		return false
	}
	members := lead.Members
	if members == nil {
		members = allReplicas(len(w.hosts))
	}
	serving := 0
	for _, m := range members {
		h := w.hosts[m]
		if !h.accepting() || h.paused(w.tick) {
			continue
		}
		if g, ok := partitionGroup(h, s.id, t.id, k.Partition); ok && g.Status == vsr.StatusNormal && g.View == lead.View {
			serving++
		}
	}
	return serving >= len(members)/2+1
}

// partitionGroup is h's group of a partition, if open.
func partitionGroup(h *host, stream, topic, part uint32) (node.GroupState, bool) {
	gs := h.node.Groups()
	if len(gs) == 0 {
		return node.GroupState{}, false
	}
	for _, g := range gs[1:] {
		if g.Group.Stream == stream && g.Group.Topic == topic && g.Group.Partition == part {
			return g, true
		}
	}
	return node.GroupState{}, false
}
