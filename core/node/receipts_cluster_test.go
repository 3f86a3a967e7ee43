package node_test

import (
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/wire"
)

// rebind connects the client to the partition's primary and binds its
// session there again (the reply of its last request was lost).
func (cl *cclient) rebind() {
	cl.connect(cl.c.partitionPrimary())
	cl.c.until("the session bound on the partition's primary", func() bool { return cl.bind() == 0 })
}

// covers SESS-16, SESS-17, SESS-18
// A send whose reply is lost (its connection left unread) is resent with
// the same request id in the same session, bound again on a new
// connection: on the partition's primary, on the next primary after that
// one died, and after every replica of the set lost power (a persisted
// topic, the receipt by then in a checkpoint image, as other writers'
// sends moved the checkpoints past it). Each time it gets its first base
// offset and the partition holds the batch once.
func TestClusterSendReceiptAcrossFailoverAndRestart(t *testing.T) {
	c := newTestCluster(t, 3, 4)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient(wire.Option{Key: wire.OptDurability, Kind: wire.KindString, Value: []byte("persisted")})
	mustOK(t, sent(cl.send("s", "t", 2)))
	h := cl.next()
	h.Operation = wire.OperationForCommand(wire.CmdSendMessages)
	body := sendBody(t, "s", "t", 3, 0, "x")
	resend := func(when string) {
		t.Helper()
		cl.rebind()
		var code wire.Code
		var base uint64
		c.until("the send answered "+when, func() bool {
			code, base = sendOutcome(replyOutcome(t, cl.call(h, body)))
			return code != wire.TransientNotAccepted && code != wire.TransientNotCommitted
		})
		if code != wire.OK || base != 2 {
			t.Fatalf("send %s: %s at offset %d, want OK at 2", when, code.Name(), base)
		}
	}
	cl.c.hosts[cl.host].n.Step(node.ClientFrame{Conn: cl.conn, Frame: buildFrame(h, body)})
	c.until("the first send applied", func() bool { return c.partitionConverged(2) })
	resend("on its primary")

	other := c.client(2)
	other.onPartitionPrimary()
	for range 10 {
		mustOK(t, sent(other.send("s", "t", 2)))
	}
	first := c.partitionPrimary()
	c.stop(first, true)
	resend("on the next primary")

	c.start(first)
	c.until("convergence", func() bool { return c.partitionConverged(12) })
	for i := range c.hosts {
		c.stop(i, true)
	}
	for i := range c.hosts {
		c.start(i)
	}
	resend("after a power loss of the set")

	code, count, current := cl.poll("s", "t", 100)
	if code != wire.OK || count != 25 || current != 24 {
		t.Fatalf("poll: %s, %d messages to offset %d; want 25 to 24 (the resent batch once)", code.Name(), count, current)
	}
	// The same bytes again on the connection that got the answer are a new
	// send, appended on every replica.
	if code, base := sendOutcome(replyOutcome(t, cl.call(h, body))); code != wire.OK || base != 25 {
		t.Fatalf("the same bytes again on the answered connection: %s at %d, want a new send at 25", code.Name(), base)
	}
	c.until("every replica applied it", func() bool { return c.partitionConverged(13) })
	if c.marks["node.receipt.resend_answered"] == 0 {
		t.Fatalf("no resend was answered from a receipt: %v", c.marks)
	}
}

// logout ends the client's session (operation 3, a consumed request id).
func (cl *cclient) logout() wire.Code {
	h := cl.next()
	h.Operation, h.NRCode = wire.OpLogout, wire.CmdLogoutUser
	code, _ := replyOutcome(cl.c.t, cl.call(h, nil))
	return code
}

// covers SESS-31, SESS-33, SESS-27
// With dedup_clients_max = 2 a partition group keeps the receipts of two
// writers: a third is refused with 58 while both sessions live. One logs
// out; the group's primary retires its entry by an op every replica
// applies, and the third writer's send is taken. Replicas restarted with
// another dedup_clients_max keep the capacity the group committed.
func TestClusterReceiptsRetiredAfterLogout(t *testing.T) {
	c := newClusterOf(&testCluster{t: t, every: 4, dedup: 2}, 3)
	c.until("root", func() bool { return c.converged(1) })
	a := c.partitionClient()
	mustOK(t, sent(a.send("s", "t", 1)))
	b, x := c.client(2), c.client(3)
	b.onPartitionPrimary()
	x.onPartitionPrimary()
	mustOK(t, sent(b.send("s", "t", 1)))
	if code, _ := x.send("s", "t", 1); code != wire.TransientNotAccepted {
		t.Fatalf("a third writer at a full table: %s, want 58", code.Name())
	}
	mustOK(t, sent(a.send("s", "t", 1)))

	for i := range c.hosts {
		c.stop(i, false)
	}
	c.dedup = 8 // every replica now proposes with another capacity
	for i := range c.hosts {
		c.start(i)
	}
	b.rebind()
	mustOK(t, b.logout())
	x.onPartitionPrimary()
	c.until("the third writer taken", func() bool {
		code, _ := x.send("s", "t", 1)
		if code == wire.NotPrimary {
			x.onPartitionPrimary()
		}
		return code == wire.OK
	})
	if c.marks["node.receipt.retired"] == 0 {
		t.Fatalf("no entry was retired: %v", c.marks)
	}
	if code, _ := c.client(4).sendAs(c, "s", "t"); code != wire.TransientNotAccepted {
		t.Fatalf("a fourth writer with the committed capacity 2 full: %s, want 58", code.Name())
	}
}

// sendAs logs a new client in on the partition's primary and sends one
// message there.
func (cl *cclient) sendAs(c *testCluster, stream, topic string) (wire.Code, uint64) {
	cl.onPartitionPrimary()
	return cl.send(stream, topic, 1)
}
