package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// Automatic rebalancing (PLACE-8..14). Once the ready set held still for
// rebalanceStableTicks with a majority ready, the metadata primary looks
// for the partition whose primary leads at least two more partitions than
// another ready member of it, the widest gap first, and moves it, one at a
// time: it checks in the members' reports that the source leads in normal
// status and that the target applied everything the source committed,
// then proposes MovePrimary. Applying it, the source stops admitting
// writes, waits until what it accepted committed (at most drainTicks) and
// hands its group off to the target (vsr.HandOff): a view change, durable
// like any other. The move ends when a report shows the target leading,
// or after moveTimeoutTicks. No command or setting starts it.

// Rebalancing pacing.
const (
	// rebalanceStableTicks: the ready set must hold this long (5 s).
	rebalanceStableTicks = 500
	// rebalanceEveryTicks paces the search for a move.
	rebalanceEveryTicks = 50
	// rebalanceGapMin: the source leads at least this many more than the
	// target.
	rebalanceGapMin = 2
	// moveLagOpsMax: the target counts as caught up when it applied all
	// but this many of the ops the source committed. The two reports are
	// up to a probe round apart, so under steady writes the target's
	// applied op, reported earlier, is always a little behind the source's
	// commit; a replica recovering or fetching a transfer is far behind.
	// The hand-off's view change repairs what the target still lacks.
	moveLagOpsMax = 256
	// drainTicks bounds a source's drain of its accepted writes (1 s).
	drainTicks = 100
	// moveTimeoutTicks: a move no report shows done by then is given up,
	// so another may start (the grant stays; the next search sees the
	// primaries as they are).
	moveTimeoutTicks = 1500
)

// pendingMove is the move the metadata primary granted last.
type pendingMove struct {
	k     partKey
	rev   uint64
	to    uint8
	since uint64
}

// drain is a granted move its source primary carries out.
type drain struct {
	to    uint8 // the target's replica id
	until uint64
}

// observedPrimary is the replica a fresh report shows leading partition
// k (the highest view among the claims), else its committed primary.
func (n *Node) observedPrimary(k partKey, p *metadata.Partition) uint8 {
	best, view, seen := p.Primary, uint32(0), false
	for r := range n.cfg.Replicas {
		if !p.IsMember(r) {
			continue
		}
		rep, ok := n.report(r)
		if !ok {
			continue
		}
		if g, ok := rep.groups[k]; ok && g.rev == p.CreatedRevision && g.flags&reportLeads != 0 && (!seen || g.view > view) {
			best, view, seen = r, g.view, true
		}
	}
	return best
}

// tickRebalance runs on the metadata primary: it follows the move in
// flight and, when none is, looks for the next.
func (n *Node) tickRebalance() {
	if !n.leading() || n.cfg.Replicas < 2 {
		return
	}
	if m := n.place.move; m != nil {
		n.followMove(m)
		return
	}
	if n.now.Ticks%rebalanceEveryTicks != 0 || !n.stableMajority() || n.mg.Replica().Full() {
		return
	}
	if c, ok := n.widestGap(); ok {
		n.grantMove(c)
	}
}

// followMove ends the move in flight once the target is seen leading, or
// gives it up after its timeout.
func (n *Node) followMove(m *pendingMove) {
	p := n.partMeta(m.k)
	switch {
	case p == nil || p.CreatedRevision != m.rev:
		n.place.move = nil // the partition went
	case n.observedPrimary(m.k, p) == m.to:
		n.cfg.Marks.Hit("node.placement.move_completed")
		n.logf("partition %d/%d/%d: primary moved to replica %d in %d ticks", m.k.stream, m.k.topic, m.k.partition, m.to, n.now.Ticks-m.since)
		n.place.move = nil
	case n.now.Ticks-m.since >= moveTimeoutTicks:
		n.cfg.Marks.Hit("node.placement.move_timed_out")
		n.place.move = nil
	}
}

// moveCandidate is one partition the search may move.
type moveCandidate struct {
	k        partKey
	rev      uint64
	from, to uint8
	gap      uint32
}

// widestGap finds the move of the widest gap among the partitions whose
// source leads in normal status and whose target applied what the source
// committed (PLACE-11); a recovering partition is skipped, and the search
// goes on with the others (PLACE-13).
func (n *Node) widestGap() (moveCandidate, bool) {
	loads := n.primaryLoads()
	ready := n.place.readySet
	var best moveCandidate
	found := false
	for _, s := range n.meta.Streams() {
		for _, t := range s.Topics {
			for i := range t.Partitions {
				p := &t.Partitions[i]
				k := partKey{s.ID, t.ID, p.ID}
				from := n.observedPrimary(k, p)
				if ready&(1<<from) == 0 {
					continue
				}
				for to := range n.cfg.Replicas {
					if to == from || !p.IsMember(to) || ready&(1<<to) == 0 || loads[from] < loads[to]+rebalanceGapMin {
						continue
					}
					gap := loads[from] - loads[to]
					if found && gap <= best.gap {
						continue
					}
					if !n.caughtUp(k, p.CreatedRevision, from, to) {
						n.cfg.Marks.Hit("node.placement.move_skipped_recovering")
						continue
					}
					best, found = moveCandidate{k: k, rev: p.CreatedRevision, from: from, to: to, gap: gap}, true
				}
			}
		}
	}
	return best, found
}

// caughtUp: the source leads the group in normal status and the target,
// in normal status too, applied the ops the source reported committed,
// within moveLagOpsMax.
func (n *Node) caughtUp(k partKey, rev uint64, from, to uint8) bool {
	src, ok := n.report(from)
	if !ok {
		return false
	}
	dst, ok2 := n.report(to)
	if !ok2 {
		return false
	}
	s, okS := src.groups[k]
	d, okD := dst.groups[k]
	return okS && okD && s.rev == rev && d.rev == rev && s.flags&reportLeads != 0 && s.flags&reportNormal != 0 &&
		d.flags&reportNormal != 0 && d.applied+moveLagOpsMax >= s.commit
}

// grantMove proposes the move; its apply starts the source's drain.
func (n *Node) grantMove(c moveCandidate) {
	n.propose(vsr.Prepare{Kind: vsr.KindCommand, Timestamp: n.now.NowMicros, Body: metadata.Encode(&metadata.MovePrimary{
		Stream: c.k.stream, Topic: c.k.topic, Partition: c.k.partition, Revision: c.rev, From: c.from, To: c.to,
	})})
	n.place.move = &pendingMove{k: c.k, rev: c.rev, to: c.to, since: n.now.Ticks}
	n.cfg.Marks.Hit("node.placement.move_granted")
	n.logf("partition %d/%d/%d: moving its primary from replica %d to %d (gap %d)", c.k.stream, c.k.topic, c.k.partition, c.from, c.to, c.gap)
}

// startDrain: a granted move whose source is this replica, still leading
// the group, begins its drain (PLACE-12). Anyone else ignores it.
func (n *Node) startDrain(e metadata.PrimaryMoveGranted) {
	if e.From != n.cfg.Replica {
		return
	}
	g := n.groupOf(partKey{e.Stream, e.Topic, e.Partition})
	if g == nil || g.rev != e.Revision || !g.leads() {
		return
	}
	if _, member := g.local(e.To); !member {
		return
	}
	g.drain = &drain{to: e.To, until: n.now.Ticks + drainTicks}
	n.cfg.Marks.Hit("node.placement.drain_started")
}

// tickDrain hands the group off once its accepted writes committed and
// were answered, or when the drain's time is up.
func (n *Node) tickDrain(g *pgroup) {
	d := g.drain
	if d == nil {
		return
	}
	r := g.host.Replica()
	if !g.leads() {
		g.drain = nil
		return
	}
	if (r.Commit() < r.Op() || len(g.waiting) > 0) && n.now.Ticks < d.until {
		return
	}
	g.drain = nil
	to, _ := g.local(d.to)
	if r.HandOff(to) {
		n.cfg.Marks.Hit("node.placement.handed_off")
	}
}

// drainDeny refuses a write or read that reaches a draining primary: it
// was never admitted, so the client sends it again (to the new primary,
// once 89 or the route names it).
func (n *Node) drainDeny(c *conn, h wire.RequestHeader, g *pgroup) bool {
	if g == nil || g.drain == nil {
		return false
	}
	n.deny(c, h, wire.TransientNotAccepted)
	return true
}
