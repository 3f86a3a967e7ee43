package node_test

import (
	"os"
	"slices"
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// leadersPer counts the partition groups each running replica leads.
func (c *testCluster) leadersPer() []int {
	out := make([]int, len(c.hosts))
	for i, h := range c.hosts {
		if h.n == nil || len(h.n.Groups()) == 0 {
			continue // down, or booting
		}
		for _, g := range h.n.Groups()[1:] {
			if g.Primary {
				out[i]++
			}
		}
	}
	return out
}

// streamClient logs a client in on replica 0 once root is replicated and
// creates stream "s".
func (c *testCluster) streamClient() *cclient {
	c.until("root", func() bool { return c.converged(1) })
	cl := c.client(1)
	cl.connect(0)
	c.until("a session", func() bool { return cl.login() == wire.OK })
	mustOK(c.t, cl.createStream("s", false))
	return cl
}

// primaryOf maps each partition of the running replicas' groups to the
// replica that leads it.
func (c *testCluster) primaryOf() map[uint32]int {
	out := map[uint32]int{}
	for i, h := range c.hosts {
		if h.n == nil || len(h.n.Groups()) == 0 {
			continue
		}
		for _, g := range h.n.Groups()[1:] {
			if g.Primary {
				out[g.Group.Partition] = i
			}
		}
	}
	return out
}

// sendTo sends one message to partition p of s/t through the client's node.
func (cl *cclient) sendTo(p uint32) wire.Code {
	rec, _ := batch.Build([]batch.Message{{ID: [16]byte{1}, Payload: []byte("m")}})
	q := wire.SendMessagesRequest{StreamID: wire.NamedID("s"), TopicID: wire.NamedID("t"),
		Partitioning: wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: p}, MessagesCount: 1, Batch: rec}
	return first(cl.do(wire.CmdSendMessages, encode(q.Encode)))
}

// createPlacedTopic creates topic t of stream s with partitions at factor
// rf through replica 0.
func (c *testCluster) createPlacedTopic(cl *cclient, partitions uint32, rf uint8) wire.Code {
	return first(cl.do(wire.CmdCreateTopic, placedTopic("t", partitions, rf)))
}

// placedTopic is the body of CreateTopic name in stream s with partitions
// at factor rf.
func placedTopic(name string, partitions uint32, rf uint8) []byte {
	q := wire.CreateTopicRequest{StreamID: wire.NamedID("s"), Name: name, PartitionsCount: partitions,
		Options: []wire.Option{{Key: wire.OptReplicationFactor, Kind: wire.KindUint8, Value: []byte{rf}}}}
	return encode(q.Encode)
}

// With 100 partitions at factor 3 on five nodes, the primaries spread 20
// each; one node stops longer than the stability window and its
// partitions fail over; it comes back, and rebalancing moves primaries
// back one at a time until every node leads 20 again. The short form
// (CI) runs 25 partitions, 5 each; IGGY_PLACE_FULL=1 runs the 100.
// After a move the old primary refuses the partition's writes with 89 and
// the new one takes them.
// covers PLACE-1, PLACE-8, PLACE-9, PLACE-10, PLACE-14, PLACE-22
func TestRebalanceAfterNodeReturns(t *testing.T) {
	partitions := 25
	if os.Getenv("IGGY_PLACE_FULL") != "" {
		partitions = 100
	}
	each := partitions / 5
	c := newTestCluster(t, 5, 64)
	cl := c.streamClient()
	mustOK(t, c.createPlacedTopic(cl, uint32(partitions), 3))
	even := func() bool {
		got := c.leadersPer()
		return slices.Equal(got, []int{each, each, each, each, each})
	}
	c.until("every node leading its share", even)
	start := c.ticks
	c.stop(4, false)
	c.until("node 4's partitions failed over", func() bool {
		got := c.leadersPer()
		return got[0]+got[1]+got[2]+got[3] == partitions
	})
	c.t.Logf("during: %v after %d ticks", c.leadersPer(), c.ticks-start)
	for range 700 { // longer than the stability window: nothing moves to a stopped node
		c.round()
	}
	before := c.primaryOf()
	c.start(4)
	back := c.ticks
	c.until("every node leading its share again", even)
	c.t.Logf("after: %v, rebalanced %d ticks after the return", c.leadersPer(), c.ticks-back)
	if c.marks["node.placement.move_completed"] == 0 {
		t.Fatal("no move completed")
	}
	for p, now := range c.primaryOf() {
		if old := before[p]; now == 4 && old != 4 {
			oldCl, newCl := c.client(7), c.client(8)
			oldCl.connect(old)
			newCl.connect(4)
			c.until("sessions on the old and new primaries", func() bool { return oldCl.login() == wire.OK && newCl.login() == wire.OK })
			if code := oldCl.sendTo(p); code != wire.NotPrimary {
				t.Fatalf("partition %d on its old primary %d: %s, want 89", p, old, code.Name())
			}
			mustOK(t, newCl.sendTo(p))
			return
		}
	}
	t.Fatal("no partition moved to the returned node")
}

// A replication factor above the node count is refused with 2018 before
// consensus; one at the node count is accepted.
// covers RES-31
func TestReplicationFactorAboveNodesRefused(t *testing.T) {
	c := newTestCluster(t, 3, 64)
	cl := c.streamClient()
	if code := c.createPlacedTopic(cl, 1, 4); code != wire.InvalidReplicationFactor {
		t.Fatalf("factor 4 on 3 nodes: %s, want 2018", code.Name())
	}
	mustOK(t, c.createPlacedTopic(cl, 1, 3))
}

// A replica that is not a member of a partition refuses its requests with
// 89 and names the primary in PartitionRoutes.
// covers PLACE-15, PLACE-20, PLACE-21
func TestNonMemberAnswersNotPrimary(t *testing.T) {
	c := newTestCluster(t, 3, 64)
	cl := c.streamClient()
	mustOK(t, c.createPlacedTopic(cl, 1, 1))
	var member int
	c.until("the partition's only member leading it", func() bool {
		for i, n := range c.leadersPer() {
			if n == 1 {
				member = i
				return true
			}
		}
		return false
	})
	other := (member + 1) % 3
	o := c.client(2)
	o.connect(other)
	c.until("a session on a non-member", func() bool { return o.login() == wire.OK })
	if code, _ := o.send("s", "t", 1); code != wire.NotPrimary {
		t.Fatalf("send on a non-member: %s, want 89", code.Name())
	}
	// DeleteSegments too: a non-member cannot resolve the segment count.
	segs := encode(wire.DeleteSegmentsRequest{StreamID: wire.NamedID("s"), TopicID: wire.NamedID("t"), SegmentsCount: 1}.Encode)
	if code := first(o.do(wire.CmdDeleteSegments, segs)); code != wire.NotPrimary {
		t.Fatalf("DeleteSegments on a non-member: %s, want 89", code.Name())
	}
	m := c.client(3)
	m.connect(member)
	c.until("a session on the member", func() bool { return m.login() == wire.OK })
	mustOK(t, first(m.do(wire.CmdDeleteSegments, segs)))
	for i, h := range c.hosts {
		if running := len(h.n.Groups()) - 1; running != map[bool]int{true: 1, false: 0}[i == member] {
			t.Fatalf("replica %d runs %d partition groups", i, running)
		}
	}
}

// The metadata primary probes each other replica once a second, and the
// answers carry the readiness reports placement and rebalancing read.
// covers PLACE-7
func TestPrimaryProbesEverySecond(t *testing.T) {
	c := newTestCluster(t, 3, 64)
	c.until("root", func() bool { return c.converged(1) })
	pings, reports := map[uint8]int{}, 0
	c.drop = func(m node.PeerMessage) bool {
		switch m.Msg.Command {
		case vsr.CmdPing:
			pings[m.Msg.To]++
		case vsr.CmdPong:
			if len(m.Msg.Data) >= 5 {
				reports++
			}
		}
		return false
	}
	for range 1000 { // ten seconds of 10 ms ticks
		c.round()
	}
	p := uint8(c.primary())
	for r := range uint8(3) {
		if r != p && (pings[r] < 9 || pings[r] > 11) {
			t.Fatalf("replica %d probed %d times in 10 s", r, pings[r])
		}
	}
	if reports < 18 {
		t.Fatalf("%d answers carried a readiness report", reports)
	}
}

// Once readiness probes found a replica unresponsive, new partitions get
// no primary there: a create while replica 4 is down places none on it.
// covers PLACE-4, PLACE-6
func TestNoNewPrimaryOnAnUnresponsiveReplica(t *testing.T) {
	c := newTestCluster(t, 5, 64)
	cl := c.streamClient()
	c.stop(4, false)
	for range 1200 { // a view change if 4 led metadata, then its reports go stale
		c.round()
	}
	mustOK(t, c.createPlacedTopic(cl, 20, 3))
	for range 50 { // the groups open in their first view; none has timed out
		c.round()
	}
	groups := 0
	for i := range 4 {
		for _, g := range c.hosts[i].n.Groups()[1:] {
			groups++
			members := g.Members
			if members == nil {
				members = []uint8{0, 1, 2, 3, 4}
			}
			if first := members[int(g.View)%len(members)]; first == 4 {
				t.Fatalf("partition %d opened led by the stopped replica 4 (members %v)", g.Group.Partition, members)
			}
		}
	}
	if groups < 20 {
		t.Fatalf("%d partition groups on the live replicas", groups)
	}
}

// A partition whose move target is not caught up (here: cut off from the
// group, so not in normal status) is skipped, and the other partitions
// still move to the returned node.
// covers PLACE-11, PLACE-13
func TestRebalanceSkipsARecoveringPartition(t *testing.T) {
	c := newTestCluster(t, 5, 64)
	cl := c.streamClient()
	mustOK(t, c.createPlacedTopic(cl, 25, 3))
	c.until("every node leading its share", func() bool { return slices.Equal(c.leadersPer(), []int{5, 5, 5, 5, 5}) })
	held := map[uint32]bool{} // the partitions replica 4 holds
	for _, g := range c.hosts[4].n.Groups()[1:] {
		held[g.Group.Partition] = true
	}
	c.stop(4, false)
	c.until("node 4's partitions failed over", func() bool {
		got := c.leadersPer()
		return got[0]+got[1]+got[2]+got[3] == 25
	})
	// The search meets first the lowest partition of the widest gap: the
	// first one 4 holds among those the busiest replica leads.
	loads, prim := c.leadersPer(), c.primaryOf()
	busiest := slices.Max(loads)
	stuck, found := uint32(0), false
	for p := range uint32(25) {
		if held[p] && loads[prim[p]] == busiest {
			stuck, found = p, true
			break
		}
	}
	if !found {
		t.Fatalf("replica 4 holds no partition of the busiest replica: %v", loads)
	}
	c.drop = func(m node.PeerMessage) bool {
		return m.Group.IsPartition && m.Group.Partition == stuck && (m.Msg.To == 4 || m.Msg.From == 4)
	}
	c.start(4)
	c.until("node 4 leading four others", func() bool { return c.leadersPer()[4] >= 4 })
	if c.primaryOf()[stuck] == 4 {
		t.Fatalf("partition %d moved to a replica cut off from its group", stuck)
	}
	if c.marks["node.placement.move_skipped_recovering"] == 0 {
		t.Fatal("no move was skipped")
	}
}
