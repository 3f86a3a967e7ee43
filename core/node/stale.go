package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// evictStale runs once per heartbeat interval: a bound connection silent for
// longer than the session timeout (1.2 × the interval) that belongs to a
// consumer group gets eviction 13 and an implicit logout, so its partitions
// go to live members (protocol-framing.md 4.2). Other idle connections live
// until their socket closes; a session without a connection ends with its
// lease (lease.go). A connection whose request this node is still serving
// (a parked poll, a send behind a slow disk) is waiting on us, not silent:
// evicting it would also leave that request's client told nothing of an
// effect it may still have (lite seed 904612408). Silence counts from the
// last request or reply (done).
func (n *Node) evictStale() {
	interval := n.cfg.HeartbeatIntervalTicks
	if interval == 0 || n.now.Ticks%interval != 0 {
		return
	}
	timeout := n.sessionTimeoutTicks()
	members := n.groupMembers()
	for _, c := range n.sortedConns() {
		if !c.bound || c.busy || n.now.Ticks-c.last <= timeout || !members[metadataClientID(c.client)] {
			continue
		}
		e := wire.Eviction{Client: c.client, Reason: wire.EvictStaleClient}
		n.ready.Replies = append(n.ready.Replies, bus.Reply{Conn: c.id, Parts: [][]byte{e.Bytes()}})
		n.implicitLogout(c.client, c.session)
		c.bound = false
	}
}

// groupMembers is the set of client ids that are members of some group.
func (n *Node) groupMembers() map[metadata.ClientID]bool {
	members := map[metadata.ClientID]bool{}
	for _, s := range n.meta.Streams() {
		for _, t := range s.Topics {
			for _, g := range t.Groups {
				for _, m := range g.Members {
					members[m.Client] = true
				}
			}
		}
	}
	return members
}
