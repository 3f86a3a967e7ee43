package node

import (
	"slices"

	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// Placement in a replica set (PLACE-1..7, 15..17). The metadata decides at
// apply which replicas hold a new partition and which leads it first
// (core/metadata/placement.go); this file gives it what the metadata
// primary knows: the roster, the replicas its readiness probes found ready
// and how many partitions each leads as it observes them. A replica holds
// (and runs the group of) only the partitions it is a member of.

// partMeta is partition k as committed, or nil.
func (n *Node) partMeta(k partKey) *metadata.Partition {
	return n.meta.PartitionByID(k.stream, k.topic, k.partition)
}

// holds reports whether this replica stores partition k: always on a
// node of one, and on a member in a set.
func (n *Node) holds(k partKey) bool {
	if !n.cfg.clustered() {
		return true
	}
	p := n.partMeta(k)
	return p == nil || p.IsMember(n.cfg.Replica)
}

// partitionCode says why a partition request cannot run here: 89
// (NotPrimary) on a replica that is not one of its members, so the client
// asks the route and goes to its primary (PLACE-21), or 3007 when this
// node has no such partition.
func (n *Node) partitionCode(k partKey) wire.Code {
	switch {
	case n.hasPartition(k):
		return wire.OK
	case n.cfg.clustered() && !n.holds(k):
		return wire.NotPrimary
	}
	return wire.PartitionNotFound
}

// size is the number of the group's members.
func (g *pgroup) size(n *Node) uint8 {
	if g.members == nil {
		return n.cfg.Replicas
	}
	return uint8(len(g.members))
}

// local is replica r's place in the group, or false for a stranger.
func (g *pgroup) local(r uint8) (uint8, bool) {
	if g.members == nil {
		return r, true
	}
	i := slices.Index(g.members, r)
	return uint8(i), i >= 0
}

// global is the replica at place i of the group.
func (g *pgroup) global(i uint8) uint8 {
	if g.members == nil {
		return i
	}
	return g.members[i]
}

// primaryReplica is the replica that leads the group's view, as this
// member knows it.
func (g *pgroup) primaryReplica() uint8 {
	return g.global(g.host.Replica().Primary())
}

// placementOf is the Placement the metadata primary stamps on a create.
func (n *Node) placementOf() metadata.Placement {
	return metadata.Placement{
		Nodes: max(n.cfg.Replicas, 1), Racks: n.cfg.Racks,
		Eligible: n.eligibleSet(), Loads: n.primaryLoads(),
	}
}

// stampPlacement fills in the Placement of a create the primary is about
// to propose as op, and counts its assignments as pending until it
// applies (PLACE-3). Backups forward creates unstamped: only the metadata
// primary knows readiness and loads.
func (n *Node) stampPlacement(p *vsr.Prepare, op uint64) {
	if p.Kind != vsr.KindCommand || len(p.Body) == 0 {
		return
	}
	kind := metadata.Kind(p.Body[0])
	if kind != metadata.KindCreateTopic && kind != metadata.KindCreatePartitions {
		return
	}
	cmd, err := metadata.Decode(p.Body)
	if err != nil {
		return // refused at apply as it is
	}
	pl := n.placementOf()
	var first, count uint32
	switch c := cmd.(type) {
	case *metadata.CreateTopic:
		c.Placement, count = pl, c.PartitionsCount
	case *metadata.CreatePartitions:
		c.Placement, count = pl, c.Count
		if _, t, code := n.meta.Topic(c.Stream, c.Topic); code == wire.OK && len(t.Partitions) > 0 {
			first = t.Partitions[len(t.Partitions)-1].ID + 1
		}
	}
	p.Body = metadata.Encode(cmd)
	if n.place.pending == nil {
		n.place.pending = map[uint64][]uint8{}
	}
	n.place.pending[op] = metadata.PlanPrimaries(&pl, slices.Clone(pl.Loads), op, first, count)
}

// primaryLoads counts the partitions each replica leads: the last
// observed primary of each partition, or its committed primary before any
// observation (PLACE-2), plus the assignments of creates in flight.
func (n *Node) primaryLoads() []uint32 {
	loads := make([]uint32, max(n.cfg.Replicas, 1))
	for _, s := range n.meta.Streams() {
		for _, t := range s.Topics {
			for i := range t.Partitions {
				p := &t.Partitions[i]
				if r := n.observedPrimary(partKey{s.ID, t.ID, p.ID}, p); int(r) < len(loads) {
					loads[r]++
				}
			}
		}
	}
	for _, op := range sortedKeys(n.place.pending) {
		for _, r := range n.place.pending[op] {
			loads[r]++
		}
	}
	return loads
}

// applied forgets a create's pending assignments once it applied: the
// metadata holds them from then on.
func (pl *placement) applied(op uint64) {
	if pl.pending != nil {
		delete(pl.pending, op)
	}
}
