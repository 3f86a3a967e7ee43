package node_test

import (
	"testing"

	"github.com/iggygo/iggy/core/node"
)

// covers VSR-18
// A slow replica (half of its messages lost, both ways) falls behind while
// a client keeps sending, then catches up under the same load once its
// links heal: neither the metadata group nor the partition's group changes
// view, and no state transfer is needed while the primary keeps what it
// lacks.
func TestSlowReplicaCatchesUpUnderLoad(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	mustOK(t, sent(cl.send("s", "t", 1)))
	mp, pp := c.primary(), c.partitionPrimary()
	slow := c.backupOf(pp, 1)
	if slow == mp {
		slow = c.backupOf(pp, 2)
	}
	metaView := c.hosts[mp].n.Groups()[0].View
	partView, _ := c.partitionGroup(pp)
	slowBy := true
	c.drop = func(m node.PeerMessage) bool {
		return slowBy && (int(m.Msg.To) == slow || int(m.Msg.From) == slow) && c.rng.IntN(2) == 0
	}
	sends := 1
	for range 60 {
		mustOK(t, sent(cl.send("s", "t", 1)))
		sends++
	}
	slowBy = false
	for range 20 {
		mustOK(t, sent(cl.send("s", "t", 1)))
		sends++
	}
	c.until("the slow replica caught up", func() bool { return c.partitionConverged(uint64(sends)) && c.converged(1) })
	if v := c.hosts[mp].n.Groups()[0].View; v != metaView || c.primary() != mp {
		t.Fatalf("metadata view %d -> %d", metaView, v)
	}
	if g, _ := c.partitionGroup(pp); g.View != partView.View || !g.Primary {
		t.Fatalf("partition view %d -> %d", partView.View, g.View)
	}
	if n := c.marks["vsr.state_transfer.started"]; n != 0 || c.marks["vsr.repair.requested"] == 0 {
		t.Fatalf("%d state transfers, %d repair requests: %v", n, c.marks["vsr.repair.requested"], c.marks)
	}
}
