package metadata

import (
	"slices"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// primariesPer counts the partitions each of nodes leads by their committed
// primary.
func primariesPer(s *State, nodes int) []int {
	out := make([]int, nodes)
	s.eachPartition(func(p *Partition) { out[p.Primary]++ })
	return out
}

func placedTopic(h *harness, stream uint32, name string, partitions uint32, factor uint8, pl Placement) *Topic {
	h.t.Helper()
	c := newTopic(num(stream), name, partitions)
	c.ReplicationFactor, c.Placement = factor, pl
	return h.ok(RootUserID, c).Topic
}

// covers PLACE-1
func TestPlacementSpreadsPrimariesOverTheLeastLoaded(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	placedTopic(h, s, "a", 7, 3, Placement{Nodes: 5})
	placedTopic(h, s, "b", 13, 3, Placement{Nodes: 5})
	// Without observations the committed primaries count, and every
	// replica is eligible before readiness is known: 20 over 5 is 4 each.
	if got := primariesPer(h.s, 5); !slices.Equal(got, []int{4, 4, 4, 4, 4}) {
		t.Fatalf("primaries per node %v", got)
	}
	// The proposer's count wins over the committed one: replica 2 leads
	// 10 as it observed, so the next three go elsewhere.
	tp := placedTopic(h, s, "c", 3, 2, Placement{Nodes: 5, Loads: []uint32{4, 4, 10, 4, 4}})
	for _, p := range tp.Partitions {
		if p.Primary == 2 {
			t.Fatalf("partition %d went to the busiest replica", p.ID)
		}
	}
}

// Apply honours the eligible set and the proposer's counts (the node's
// side: TestNoNewPrimaryOnAnUnresponsiveReplica).
func TestPlacementOnlyToEligibleReplicas(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	// Replica 1 is recovering and 4 did not answer: only 0, 2, 3 lead.
	tp := placedTopic(h, s, "a", 9, 3, Placement{Nodes: 5, Eligible: 0b01101, Loads: []uint32{0, 0, 0, 0, 0}})
	got := primariesPer(h.s, 5)
	if !slices.Equal(got, []int{3, 0, 3, 3, 0}) {
		t.Fatalf("primaries per node %v", got)
	}
	// A pending create's assignments counted in Loads (PLACE-3) steer the
	// next one away from the replicas they went to.
	tp2 := placedTopic(h, s, "b", 2, 3, Placement{Nodes: 5, Eligible: 0b01101, Loads: []uint32{9, 0, 3, 3, 0}})
	for _, p := range tp2.Partitions {
		if p.Primary != 2 && p.Primary != 3 {
			t.Fatalf("partition %d led by %d, want 2 or 3", p.ID, p.Primary)
		}
	}
	_ = tp
}

// covers PLACE-15, PLACE-16, RES-31
func TestPlacementMembersFixedAtFactor(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	tp := placedTopic(h, s, "a", 10, 3, Placement{Nodes: 5})
	held := make([]int, 5)
	for _, p := range tp.Partitions {
		if len(p.Members) != 3 || !p.IsMember(p.Primary) || !slices.IsSorted(p.Members) {
			t.Fatalf("partition %+v", p)
		}
		for _, m := range p.Members {
			held[m]++
		}
	}
	// 30 memberships over 5 replicas: followers go where fewest are held.
	if slices.Max(held)-slices.Min(held) > 2 {
		t.Fatalf("memberships per replica %v", held)
	}
	before := slices.Clone(tp.Partitions[0].Members)
	h.ok(RootUserID, &CreatePartitions{Stream: num(s), Topic: num(tp.ID), Count: 2, Placement: Placement{Nodes: 5}})
	for _, p := range tp.Partitions[10:] {
		if len(p.Members) != 3 {
			t.Fatalf("added partition %d has %d members, want the topic's 3", p.ID, len(p.Members))
		}
	}
	h.ok(RootUserID, &PurgeTopic{Stream: num(s), Topic: num(tp.ID)})
	if !slices.Equal(tp.Partitions[0].Members, before) {
		t.Fatal("a purge changed the members")
	}
	// Factor "all" and the roster's size: every replica, stored as nil.
	if all := placedTopic(h, s, "all", 2, 0, Placement{Nodes: 5}); all.Partitions[0].Members != nil {
		t.Fatalf("factor all: %v", all.Partitions[0].Members)
	}
	c := newTopic(num(s), "big", 1)
	c.ReplicationFactor, c.Placement = 4, Placement{Nodes: 3}
	h.code(RootUserID, c, wire.InvalidReplicationFactor)
}

// covers PLACE-17
func TestPlacementFollowersOnUnusedRacks(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	racks := []uint8{0, 0, 1, 1, 2, 2}
	tp := placedTopic(h, s, "a", 12, 3, Placement{Nodes: 6, Racks: racks})
	for _, p := range tp.Partitions {
		seen := map[uint8]bool{}
		for _, m := range p.Members {
			if seen[racks[m]] {
				t.Fatalf("partition %d: members %v share rack %d", p.ID, p.Members, racks[m])
			}
			seen[racks[m]] = true
		}
	}
	// Fewer racks than members: the rest go anywhere.
	tp = placedTopic(h, s, "b", 4, 4, Placement{Nodes: 6, Racks: racks})
	for _, p := range tp.Partitions {
		if len(p.Members) != 4 {
			t.Fatalf("partition %d: members %v", p.ID, p.Members)
		}
	}
}

// covers PLACE-15
func TestMovePrimaryAmongMembersOnly(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	tp := placedTopic(h, s, "a", 1, 2, Placement{Nodes: 3})
	p := &tp.Partitions[0]
	var other, outsider uint8
	for r := uint8(0); r < 3; r++ {
		switch {
		case !p.IsMember(r):
			outsider = r
		case r != p.Primary:
			other = r
		}
	}
	h.code(RootUserID, &MovePrimary{Stream: s, Topic: tp.ID, Partition: 0, Revision: p.CreatedRevision, From: p.Primary, To: outsider}, wire.InvalidCommand)
	h.code(RootUserID, &MovePrimary{Stream: s, Topic: tp.ID, Partition: 0, Revision: p.CreatedRevision + 1, From: p.Primary, To: other}, wire.PartitionNotFound)
	r := h.ok(RootUserID, &MovePrimary{Stream: s, Topic: tp.ID, Partition: 0, Revision: p.CreatedRevision, From: p.Primary, To: other})
	if p.Primary != other || len(r.Effects) != 1 {
		t.Fatalf("primary %d, effects %+v", p.Primary, r.Effects)
	}
}
