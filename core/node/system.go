package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/wire"
)

// roleLeader and statusHealthy are the cluster metadata codes of a single node.
const (
	roleLeader    = 0
	statusHealthy = 0
)

// getClusterMetadata answers with this node alone, or with the roster of
// its replica set (protocol-framing.md 7.4).
func (n *Node) getClusterMetadata(c *conn, h wire.RequestHeader, _ []byte) {
	m := wire.ClusterMetadata{Name: n.cfg.ClusterName, Nodes: []wire.ClusterNode{{
		Name: n.cfg.NodeName, Address: n.cfg.AdvertisedHost,
		TCPPort: n.cfg.TCPPort, QUICPort: n.cfg.QUICPort, HTTPPort: n.cfg.HTTPPort, WebSocketPort: n.cfg.WSPort,
		Role: roleLeader, Status: statusHealthy,
	}}}
	if len(n.cfg.Roster) > 0 {
		m.Nodes, m.Replicas = n.rosterRecords(c.addr), true
	}
	w := wire.Writer{}
	m.Encode(&w)
	n.raw(c, h, w.Buf)
}

func (n *Node) clientDetails(c *conn) wire.ClientDetails {
	d := wire.ClientDetails{ClientInfo: wire.ClientInfo{
		ClientID: uint32(c.id), UserID: 0xFFFFFFFF, Transport: uint8(c.transport), Address: c.addr,
	}}
	if c.bound {
		d.UserID = c.userID
	}
	return d
}

func (n *Node) getMe(c *conn, h wire.RequestHeader, _ []byte) {
	w := wire.Writer{}
	n.clientDetails(c).Encode(&w)
	n.raw(c, h, w.Buf)
}

func (n *Node) getClient(c *conn, h wire.RequestHeader, body []byte) {
	if !n.allowed(c, h, metadata.ActionReadServers) {
		return
	}
	id, code := wire.DecodeGetClient(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	for _, other := range n.sortedConns() {
		if uint32(other.id) == id {
			w := wire.Writer{}
			n.clientDetails(other).Encode(&w)
			n.raw(c, h, w.Buf)
			return
		}
	}
	n.raw(c, h)
}

func (n *Node) getClients(c *conn, h wire.RequestHeader, _ []byte) {
	if !n.allowed(c, h, metadata.ActionReadServers) {
		return
	}
	var out []wire.ClientInfo
	for _, other := range n.sortedConns() {
		out = append(out, n.clientDetails(other).ClientInfo)
	}
	w := wire.Writer{}
	wire.EncodeClients(&w, out)
	n.raw(c, h, w.Buf)
}

func (n *Node) getStats(c *conn, h wire.RequestHeader, _ []byte) {
	if !n.allowed(c, h, metadata.ActionReadServers) {
		return
	}
	s := wire.Stats{
		ProcessID: n.cfg.ProcessID, Hostname: n.cfg.Hostname, OSName: n.cfg.OSName,
		OSVersion: n.cfg.OSVersion, KernelVersion: n.cfg.KernelVersion, ServerVersion: n.cfg.ServerVersion,
		StartTime: n.startMicros, RunTime: n.now.NowMicros - n.startMicros,
		ClientsCount: uint32(len(n.conns)),
	}
	for _, st := range n.meta.Streams() {
		s.StreamsCount++
		for _, t := range st.Topics {
			s.TopicsCount++
			s.ConsumerGroupsCount += uint32(len(t.Groups))
			for _, p := range t.Partitions {
				s.PartitionsCount++
				if ps, ok := n.partitionStats(partKey{st.ID, t.ID, p.ID}); ok {
					s.SegmentsCount += ps.SegmentsCount
					s.MessagesCount += ps.MessagesCount
					s.MessagesSizeBytes += ps.SizeBytes
				}
			}
		}
	}
	w := wire.Writer{}
	s.Encode(&w)
	n.raw(c, h, w.Buf)
}
