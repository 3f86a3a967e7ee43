package node_test

import (
	"net/netip"
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// clusterMetadata asks the client's replica for GetClusterMetadata (12).
func (cl *cclient) clusterMetadata() wire.ClusterMetadata {
	cl.c.t.Helper()
	h := cl.next()
	h.Operation, h.NRCode = wire.OpNonReplicated, wire.CmdGetClusterMetadata
	code, payload := replyOutcome(cl.c.t, cl.call(h, nil))
	mustOK(cl.c.t, code)
	m, code := wire.DecodeClusterMetadata(payload)
	mustOK(cl.c.t, code)
	return m
}

// covers VSR-31
// GetClusterMetadata of a replica set names every node's replica id and
// rack, hands each client the advertised address of its network (longest
// prefix, else the catch-all), and reports a node the metadata primary has
// not heard from within the evidence window Unreachable, Healthy again once
// it is back.
func TestClusterMetadataReportsReplicasAndSilence(t *testing.T) {
	c := &testCluster{t: t}
	for i, name := range []string{"a", "b", "c"} {
		r := node.RosterNode{ReplicaID: uint8(2 - i), Record: wire.ClusterNode{Name: name, Address: "pub-" + name, TCPPort: uint16(8090 + i), Rack: "rack-" + name}}
		r.Advertised = []node.AdvertisedRoute{
			{Clients: netip.MustParsePrefix("10.0.0.0/8"), Address: "wide-" + name},
			{Clients: netip.MustParsePrefix("10.1.0.0/16"), Address: "narrow-" + name},
		}
		c.roster = append(c.roster, r)
	}
	newClusterOf(c, 3)
	c.until("root", func() bool { return c.converged(1) })
	p := c.primary()
	cl := c.client(1)
	c.lastCID++
	cl.host, cl.conn = p, c.lastCID
	c.hosts[p].n.Step(node.ConnOpened{Conn: cl.conn, Addr: "10.1.2.3:5000"})
	mustOK(t, cl.login())
	c.until("every node heard", func() bool { return allHealthy(cl.clusterMetadata()) })
	m := cl.clusterMetadata()
	if !m.Replicas || len(m.Nodes) != 3 {
		t.Fatalf("%+v", m)
	}
	for i, n := range m.Nodes {
		name := c.roster[i].Record.Name
		if n.ReplicaID != c.roster[i].ReplicaID || n.Rack != "rack-"+name || n.Address != "narrow-"+name {
			t.Fatalf("node %d: %+v", i, n)
		}
		if (n.Role == wire.ClusterRoleLeader) != (int(n.ReplicaID) == p) {
			t.Fatalf("node %d role %d, primary %d", i, n.Role, p)
		}
	}
	other := c.client(2)
	c.lastCID++
	other.host, other.conn = p, c.lastCID
	c.hosts[p].n.Step(node.ConnOpened{Conn: other.conn, Addr: "192.168.0.9:1"})
	mustOK(t, other.login())
	if got := other.clusterMetadata().Nodes[0].Address; got != "pub-a" {
		t.Fatalf("a client outside every advertised network is told %q", got)
	}
	down := (p + 1) % 3
	c.stop(down, false)
	from := c.ticks
	c.until("the stopped node is unreachable", func() bool {
		return statusOf(cl.clusterMetadata(), down) == wire.ClusterStatusUnreachable
	})
	if c.ticks-from < evidenceTicks-evidenceMarginTicks {
		t.Fatalf("unreachable after %d ticks, before the evidence window", c.ticks-from)
	}
	c.start(down)
	c.until("healthy again", func() bool { return allHealthy(cl.clusterMetadata()) })
}

func allHealthy(m wire.ClusterMetadata) bool {
	for _, n := range m.Nodes {
		if n.Status != wire.ClusterStatusHealthy {
			return false
		}
	}
	return true
}

func statusOf(m wire.ClusterMetadata, replica int) uint8 {
	for _, n := range m.Nodes {
		if int(n.ReplicaID) == replica {
			return n.Status
		}
	}
	return wire.ClusterStatusUnknown
}

// takeoverTicks starts a set of three with timeouts t, stops its metadata
// primary once root committed, and counts the ticks until another replica
// leads.
func takeoverTicks(t *testing.T, timeouts vsr.Timeouts) uint64 {
	c := &testCluster{t: t, vsr: timeouts}
	newClusterOf(c, 3)
	c.until("root", func() bool { return c.converged(1) })
	old := c.primary()
	c.stop(old, false)
	from := c.ticks
	c.until("a new primary", func() bool { p := c.primary(); return p >= 0 && p != old })
	return c.ticks - from
}

// The view change timeout of every group comes from the node's
// configuration (cluster.heartbeat_timeout, in ticks): with 150 ticks
// instead of the default 500, the backups take over from a stopped primary
// after about 150 ticks, not 500.
func TestClusterViewChangeTimeoutFollowsConfig(t *testing.T) {
	def := takeoverTicks(t, vsr.Timeouts{})
	short := takeoverTicks(t, vsr.Timeouts{ViewChangeTimeoutTicks: 150, StepDownTicks: 150, RecoveringTimeoutTicks: 150})
	t.Logf("default %d ticks, short %d", def, short)
	if def < vsr.ViewChangeTimeoutTicks || short < 150 || short >= vsr.ViewChangeTimeoutTicks {
		t.Fatalf("took over after %d ticks by default, %d with a 150-tick timeout", def, short)
	}
}
