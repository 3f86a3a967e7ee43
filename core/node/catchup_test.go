package node_test

import (
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/wire"
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

// covers VSR-23
// With `replicated` durability, sends acknowledged before the partition's
// primary is stopped and both backups lose power (their unsynced writes
// gone) are not lost: the two backups restarted without the primary elect
// a partition primary only with a log that holds them, and once the old
// primary is back every replica serves them at their offsets.
func TestReplicatedAcknowledgedSurvivesRestartWithoutPrimary(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient(wire.Option{Key: wire.OptDurability, Kind: wire.KindString, Value: []byte("replicated")})
	const acked = 3
	for i := range acked {
		if code, base := cl.send("s", "t", 1); code != wire.OK || base != uint64(i) {
			t.Fatalf("send %d: %s at %d", i, code.Name(), base)
		}
	}
	pp := c.partitionPrimary()
	b1, b2 := c.backupOf(pp, 1), c.backupOf(pp, 2)
	c.stop(pp, false)
	c.stop(b1, true)
	c.stop(b2, true)
	c.start(b1)
	c.start(b2)
	c.until("a partition primary among the restarted backups", func() bool {
		g1, ok1 := c.partitionGroup(b1)
		g2, ok2 := c.partitionGroup(b2)
		return ok1 && g1.Primary || ok2 && g2.Primary
	})
	pollAll(t, c, acked) // served by the two restarted backups alone
	c.start(pp)
	c.until("convergence", func() bool { return c.partitionConverged(acked) })
	pollAll(t, c, acked)
}

// pollAll polls the partition from offset 0 on its primary and requires
// want messages.
func pollAll(t *testing.T, c *testCluster, want uint32) {
	t.Helper()
	reader := c.client(uint64(50 + c.ticks))
	reader.connect(c.partitionPrimary())
	c.until("a session on the partition's primary", func() bool { return reader.login() == wire.OK })
	var code wire.Code
	var count uint32
	c.until("a poll served", func() bool {
		code, count, _ = reader.poll("s", "t", 10)
		return code != wire.TransientNotAccepted
	})
	if code != wire.OK || count != want {
		t.Fatalf("poll: %s, %d messages, want %d", code.Name(), count, want)
	}
}
