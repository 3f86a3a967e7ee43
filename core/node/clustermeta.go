package node

import (
	"net/netip"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// heard notes that a message of replica from arrived now.
func (n *Node) heard(from uint8) {
	if from < n.cfg.Replicas && from != n.cfg.Replica {
		n.heardAt[from] = n.now.Ticks
	}
}

// rosterRecords are the replica set's nodes in configuration order for a
// client at clientAddr: the primary of this replica's view of the metadata
// group is the Leader, every other node a Follower (every node while no
// view is established: booting, changing view). A node is Healthy when it
// is this one or this replica heard from it within the evidence window,
// Unreachable otherwise (status Unknown would make the Go SDK refuse the
// whole reply). The metadata primary probes every backup (evidence.go), so
// its answer judges every node; a backup hears its primary's probes, and
// other backups only through the groups they share.
func (n *Node) rosterRecords(clientAddr string) []wire.ClusterNode {
	known := n.mg.Replica() != nil && n.mg.Replica().Status() == vsr.StatusNormal
	client := clientIP(clientAddr)
	out := make([]wire.ClusterNode, len(n.cfg.Roster))
	for i, r := range n.cfg.Roster {
		out[i] = r.Record
		out[i].ReplicaID = r.ReplicaID
		out[i].Address = advertisedFor(r, client)
		out[i].Role, out[i].Status = wire.ClusterRoleFollower, n.peerStatus(r.ReplicaID)
		if known && r.ReplicaID == n.mg.Replica().Primary() {
			out[i].Role = roleLeader
		}
	}
	return out
}

// peerStatus is a roster node's status as this replica knows it.
func (n *Node) peerStatus(id uint8) uint8 {
	if id == n.cfg.Replica {
		return statusHealthy
	}
	at := n.heardAt[id]
	if at != 0 && n.now.Ticks-at < n.evidenceTicks() {
		return statusHealthy
	}
	return wire.ClusterStatusUnreachable
}

// advertisedFor picks the host a client at ip is told for node r: the
// longest matching advertised_addresses prefix of the client's address
// family, else the catch-all advertised address or the roster ip.
func advertisedFor(r RosterNode, ip netip.Addr) string {
	best, bits := r.Record.Address, -1
	if !ip.IsValid() {
		return best
	}
	for _, a := range r.Advertised {
		if a.Clients.Addr().Is4() == ip.Is4() && a.Clients.Contains(ip) && a.Clients.Bits() > bits {
			best, bits = a.Address, a.Clients.Bits()
		}
	}
	return best
}

// clientIP is the IP of a connection's peer address ("ip:port"), the zero
// Addr when it has none (an in-process or HTTP caller without one).
func clientIP(addr string) netip.Addr {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		ip, err := netip.ParseAddr(addr)
		if err != nil {
			return netip.Addr{}
		}
		return ip.Unmap()
	}
	return ap.Addr().Unmap()
}
