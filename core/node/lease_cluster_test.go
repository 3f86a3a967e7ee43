package node_test

import (
	"encoding/binary"
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/wire"
)

// leaseRounds outlasts the session timeout of a heartbeat of 100 ticks (120) many times.
const leaseRounds = 1000

// covers SESS-5, SESS-7
// In a replica set only the metadata primary retires sessions, by a Logout
// op every replica applies. A session bound to a backup's connection stays
// alive however long it is silent, because the backup forwards renewals; a
// session whose connection closed is retired one timeout later and can no
// longer be bound; after the primary dies, the new one starts every lease
// afresh and keeps the live session.
func TestClusterSessionLeases(t *testing.T) {
	c := newClusterOf(&testCluster{t: t, heartbeat: 100}, 3)
	c.until("root", func() bool { return c.converged(1) })
	idle := c.client(1)
	idle.connect(2)
	mustOK(t, idle.login())
	gone := c.client(2)
	gone.connect(1)
	mustOK(t, gone.login())
	c.hosts[1].n.Step(node.ConnClosed{Conn: gone.conn})
	for range leaseRounds {
		c.round()
	}
	if c.marks["node.session.lease_expired"] == 0 {
		t.Fatalf("no lease expired: %v", c.marks)
	}
	mustOK(t, idle.createStream("s1", false))
	gone.connect(0)
	if reason := gone.bind(); reason != wire.EvictSessionError {
		t.Fatalf("bind of the expired session: eviction %d, want 12", reason)
	}

	c.stop(0, true)
	c.until("a new primary", func() bool { return c.primary() > 0 })
	for range leaseRounds {
		c.round()
	}
	if idle.host == c.primary() {
		t.Fatalf("the idle client's replica became primary: its renewals are not tested")
	}
	mustOK(t, idle.createStream("s2", false))
}

// bind sends BindSession with the client's own proof and returns the
// eviction reason (0: bound).
func (cl *cclient) bind() wire.EvictionReason {
	cl.c.t.Helper()
	body := binary.LittleEndian.AppendUint64(nil, cl.id.Lo)
	body = binary.LittleEndian.AppendUint64(body, cl.id.Hi)
	body = binary.LittleEndian.AppendUint64(body, cl.session)
	h := wire.RequestHeader{Client: cl.id, Operation: wire.OpNonReplicated, NRCode: wire.CmdBindSession, Request: cl.request, Session: cl.session}
	frame := cl.call(h, body)
	if e, code := wire.DecodeEviction(frame); code == wire.OK {
		return e.Reason
	}
	return 0
}
