package node_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// Placement counts, in a replica set: which loads and which replicas the
// metadata primary uses when it gives new partitions their first primary.

// placementSettleRounds lets new partition groups open in their first
// view; far below a view change timeout, so none has moved yet.
const placementSettleRounds = 50

// openingPrimaries maps each partition (topic<<16 | partition) of the
// topics at or above topic that the running replicas hold to the replica
// that leads its first view.
func (c *testCluster) openingPrimaries(topic uint32) map[uint32]uint8 {
	out := map[uint32]uint8{}
	for _, h := range c.hosts {
		if h.n == nil || len(h.n.Groups()) == 0 {
			continue
		}
		for _, g := range h.n.Groups()[1:] {
			if g.Group.Topic < topic {
				continue
			}
			members := g.Members
			if members == nil {
				members = []uint8{0, 1, 2, 3, 4, 5, 6, 7}[:len(c.hosts)]
			}
			out[g.Group.Topic<<16|g.Group.Partition] = members[int(g.View)%len(members)]
		}
	}
	return out
}

// led counts the partitions of a map of primaries that replica r leads.
func led(primaries map[uint32]uint8, r int) int {
	n := 0
	for _, p := range primaries {
		if int(p) == r {
			n++
		}
	}
	return n
}

// untilAllReady runs until the metadata primary p logs, after its log
// line from, that its readiness probes found every replica ready.
func (c *testCluster) untilAllReady(p, from int) {
	c.t.Helper()
	all := make([]int, len(c.hosts))
	for i := range all {
		all[i] = i
	}
	line := fmt.Sprintf("readiness: replicas %v ready", all)
	c.until("every replica ready", func() bool {
		return slices.ContainsFunc(c.hosts[p].logs[from:], func(l string) bool { return strings.Contains(l, line) })
	})
}

// outsider is a replica of three that neither leads the metadata nor
// serves the test's client on replica 0.
func (c *testCluster) outsider() int {
	for r := 1; r < len(c.hosts); r++ {
		if r != c.primary() {
			return r
		}
	}
	c.t.Fatal("no replica outside the metadata primary and replica 0")
	return -1
}

// With six partitions led two each, replica v stops and its two fail over
// to the others; it comes back as a backup of both. The committed initial
// views still say two each, the last observed primaries say none for v:
// a topic of two partitions created before rebalancing starts gets both
// led by v. Counted from the committed views, they would go to two
// different replicas.
// covers PLACE-2
func TestPlacementCountsObservedPrimaries(t *testing.T) {
	c := newTestCluster(t, 3, 64)
	cl := c.streamClient()
	mustOK(t, c.createPlacedTopic(cl, 6, 3))
	c.until("two primaries each", func() bool { return slices.Equal(c.leadersPer(), []int{2, 2, 2}) })
	v, p := c.outsider(), c.primary()
	c.stop(v, false)
	c.until("v's partitions failed over", func() bool {
		got := c.leadersPer()
		return got[0]+got[1]+got[2] == 6 && got[v] == 0
	})
	from := len(c.hosts[p].logs)
	c.start(v)
	c.untilAllReady(p, from)
	mustOK(t, first(cl.do(wire.CmdCreateTopic, placedTopic("u", 2, 3))))
	for range placementSettleRounds {
		c.round()
	}
	if got := c.openingPrimaries(1); len(got) != 2 || led(got, v) != 2 {
		t.Fatalf("new partitions led first by %v; want both by replica %d, which leads none (observed %v)", got, v, c.leadersPer())
	}
}

// Replica v is down while a topic of four partitions is created, so the
// other two lead two each; v comes back ready. Two creates of two
// partitions each, sent in the same round, are both proposed before
// either applies: the first gives both its partitions to v, and the
// second, counting those as pending, spreads its two over the three
// replicas. Without the pending count both would plan from the same
// loads and v would lead all four.
// covers PLACE-3
func TestPlacementCountsConcurrentCreates(t *testing.T) {
	c := newTestCluster(t, 3, 64)
	cl := c.streamClient()
	other := c.client(2)
	other.connect(0)
	c.until("a second session", func() bool { return other.login() == wire.OK })
	v, p := c.outsider(), c.primary()
	c.stop(v, false)
	for range 3 * 100 { // a probe round and more: v's report is stale
		c.round()
	}
	mustOK(t, c.createPlacedTopic(cl, 4, 3))
	from := len(c.hosts[p].logs)
	c.start(v)
	c.untilAllReady(p, from)
	cl.submit(wire.CmdCreateTopic, placedTopic("a", 2, 3))
	other.submit(wire.CmdCreateTopic, placedTopic("b", 2, 3))
	for _, x := range []*cclient{cl, other} {
		if code, _ := replyOutcome(t, x.reply()); code != wire.OK {
			t.Fatalf("concurrent create: %s", code.Name())
		}
	}
	for range placementSettleRounds {
		c.round()
	}
	both := c.openingPrimaries(1)
	if n := led(both, v); len(both) != 4 || n < 2 || n > 3 {
		t.Fatalf("the two concurrent topics' partitions led first by %v: replica %d leads %d of them, want 2 or 3", both, v, n)
	}
}

// A metadata primary that has just taken over does not know yet which
// replicas are ready; a create it proposes then may give primaries to
// every replica, not only to itself: three partitions on an empty stream
// go one to each.
// covers PLACE-5
func TestPlacementBeforeReadinessKnown(t *testing.T) {
	c := newTestCluster(t, 3, 64)
	c.streamClient()
	old := c.primary()
	clients := map[int]*cclient{}
	for r := range 3 {
		if r != old {
			clients[r] = c.client(uint64(10 + r))
			clients[r].connect(r)
			c.until("a session", func() bool { return clients[r].login() == wire.OK })
		}
	}
	c.isolate(old, true)
	next := -1
	c.until("a new metadata primary", func() bool {
		for r, h := range c.hosts {
			if r != old && len(h.n.Groups()) > 0 && h.n.Groups()[0].Primary {
				next = r
				return true
			}
		}
		return false
	})
	c.isolate(old, false)
	mustOK(t, first(clients[next].do(wire.CmdCreateTopic, placedTopic("t", 3, 3))))
	for range placementSettleRounds {
		c.round()
	}
	got := c.openingPrimaries(0)
	for r := range 3 {
		if led(got, r) != 1 {
			t.Fatalf("partitions led first by %v; want one per replica", got)
		}
	}
}
