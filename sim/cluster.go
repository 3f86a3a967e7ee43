package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/oracles"
)

// cluster reports a run of more than one replica.
func (w *World) cluster() bool { return len(w.hosts) > 1 }

// moveOn points a client of a replica set at another replica, drawn from
// the PRNG: it was refused (58), its request's outcome is unknown (57),
// its connection broke or timed out, or nothing listened.
func (w *World) moveOn(c *client) {
	n := len(w.hosts)
	if n < 2 {
		return
	}
	c.target = (c.target + 1 + w.rng.IntN(n-1)) % n
	w.marks.Hit("sim.client.moved")
}

// isPrimary: h runs and leads its metadata group in normal status.
func (w *World) isPrimary(h *host) bool {
	if h.node == nil {
		return false
	}
	g, ok := h.node.MetadataGroup()
	return ok && g.Primary
}

// digestEveryOps: the state digest is sampled at applied ops that are a
// multiple of it. It encodes the whole metadata image, a tenth of a
// cluster run's time when taken at every step; a divergence persists, so
// a later multiple shows it, and the end compares every replica's digest.
const digestEveryOps = 4

// sample feeds the convergence oracle every op h applied since the last
// sample with its prepare's checksum, then the newest with the state digest
// (only that one: the digest encodes the whole metadata image).
func (w *World) sample(h *host) {
	if !w.cluster() || h.node == nil || w.stopped() {
		return
	}
	for _, a := range h.node.TakeApplied() {
		s := oracles.Sample{Replica: h.idx, Group: groupKey(a.Group), Applied: a.Op, Checksum: a.Checksum}
		if err := w.conv.Observe(s); err != nil {
			w.event("replica states:\n%s", w.replicaStates())
			w.fail("convergence", err.Error())
			return
		}
	}
	if mg, ok := h.node.MetadataGroup(); !ok || mg.Applied == h.applied {
		return
	}
	for _, g := range h.node.Groups() {
		s := oracles.Sample{Replica: h.idx, Group: groupKey(g.Group), Applied: g.Applied, Checksum: g.AppliedChecksum}
		if g.Group == (node.GroupID{}) {
			h.applied = g.Applied
			if g.Applied%digestEveryOps == 0 {
				s.Digest, s.HasDigest = h.node.MetadataDigest(), true
			}
		}
		if err := w.conv.Observe(s); err != nil {
			w.event("replica states:\n%s", w.replicaStates())
			w.fail("convergence", err.Error())
			return
		}
	}
}

func groupKey(g node.GroupID) oracles.GroupKey {
	return oracles.GroupKey{IsPartition: g.IsPartition, Stream: g.Stream, Topic: g.Topic, Partition: g.Partition, Revision: g.Revision}
}

// convergedErr says why the live replicas do not (yet) agree: every one
// that is not retired must run, booted, in normal status, in one view,
// with everything it holds committed and applied, at one applied op,
// checksum and digest.
func (w *World) convergedErr() error {
	var finals []oracles.Final
	for _, h := range w.hosts {
		if h.retired {
			continue
		}
		if h.node == nil || !h.booted || h.paused(w.tick) {
			return fmt.Errorf("replica %d is not running", h.idx)
		}
		g, ok := h.node.MetadataGroup()
		if !ok {
			return fmt.Errorf("replica %d has no groups", h.idx)
		}
		finals = append(finals, oracles.Final{Replica: h.idx, Normal: g.Status == vsr.StatusNormal, View: g.View,
			Op: g.Op, Commit: g.Commit, Applied: g.Applied, Checksum: g.AppliedChecksum})
	}
	if err := oracles.CheckConverged(finals); err != nil {
		return err
	}
	if err := w.partitionGroupsConverged(); err != nil {
		return err
	}
	// Placement before the digests: primaries settle over many ticks after
	// the logs agree, and each digest encodes a whole image (a tenth of a
	// cluster seed went to digests taken every tick while they settled);
	// sample compares digests as ops are applied, so a divergence is
	// caught there too.
	if err := w.placementErr(); err != nil {
		return err
	}
	for i := range finals { // the digests last: each encodes a whole image
		finals[i].Digest = w.hosts[finals[i].Replica].node.MetadataDigest()
	}
	return oracles.CheckConverged(finals)
}

// partitionGroupsConverged: every live replica runs the same partition
// groups, each converged like the metadata group (no digest: the log is
// the state, and its every op's checksum was compared as applied).
func (w *World) partitionGroupsConverged() error {
	byGroup := map[oracles.GroupKey][]oracles.Final{}
	members := map[oracles.GroupKey][]uint8{}
	var keys []oracles.GroupKey
	for _, h := range w.hosts {
		if h.retired {
			continue
		}
		for _, g := range h.node.Groups()[1:] {
			k := groupKey(g.Group)
			if _, ok := byGroup[k]; !ok {
				keys = append(keys, k)
				members[k] = g.Members
			}
			byGroup[k] = append(byGroup[k], oracles.Final{Replica: h.idx, Normal: g.Status == vsr.StatusNormal, View: g.View,
				Op: g.Op, Commit: g.Commit, Applied: g.Applied, Checksum: g.AppliedChecksum})
		}
	}
	for _, k := range keys {
		if want := w.liveMembers(members[k]); len(byGroup[k]) != want {
			return fmt.Errorf("partition group %v: %d of %d live members run it", k, len(byGroup[k]), want)
		}
		if err := oracles.CheckConverged(byGroup[k]); err != nil {
			return fmt.Errorf("partition group %v: %w", k, err)
		}
	}
	return nil
}

// converged: the live replicas agree (the read-back may start); the first
// time, the convergence oracle is marked as checked.
func (w *World) converged() bool {
	if err := w.convergedErr(); err != nil {
		return false
	}
	w.marks.Hit(oracles.MarkConverged)
	return true
}

// replicaStates describes every replica for a failure report.
func (w *World) replicaStates() string {
	var b strings.Builder
	for _, h := range w.hosts {
		fmt.Fprintf(&b, "replica %d: epoch %d", h.idx, h.epoch)
		switch {
		case h.retired:
			b.WriteString(" retired")
		case h.node == nil:
			b.WriteString(" down")
		default:
			for _, g := range h.node.Groups() {
				if g.Group.IsPartition {
					fmt.Fprintf(&b, "\n  partition %d/%d/%d@%d:", g.Group.Stream, g.Group.Topic, g.Group.Partition, g.Group.Revision)
				}
				fmt.Fprintf(&b, " status=%d view=%d primary=%t op=%d commit=%d applied=%d",
					g.Status, g.View, g.Primary, g.Op, g.Commit, g.Applied)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// liveMembers counts the replicas of members (nil: every replica) that
// are not retired.
func (w *World) liveMembers(members []uint8) int {
	n := 0
	for _, h := range w.hosts {
		if !h.retired && (members == nil || slices.Contains(members, uint8(h.idx))) {
			n++
		}
	}
	return n
}
