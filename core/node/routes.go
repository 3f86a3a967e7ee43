package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/wire"
)

// A standalone node is replica 0 and the primary of every partition; no
// partition has changed view, so every view is 0. A replica of a set names
// each partition group's primary as it knows it.
const (
	standaloneReplicaID     = 0
	standalonePartitionView = 0
)

// partitionRoutes answers PartitionRoutes (code 105, NR; PLACE-20): the
// primary of each partition of a topic. A missing stream or topic is 1009 or
// 2010. Routes are for clients that send or poll, so any of read, poll or
// send rights on the topic is enough; without them the answer is 41.
func (n *Node) partitionRoutes(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeTopicRef(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	s, t, code := n.meta.Topic(q.StreamID, q.TopicID)
	if code == wire.OK && !n.meta.Authorize(c.userID, metadata.ActionPollMessages, s.ID, t.ID) &&
		!n.meta.Authorize(c.userID, metadata.ActionSendMessages, s.ID, t.ID) {
		code = wire.Unauthorized
	}
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	routes := make([]wire.PartitionRoute, 0, len(t.Partitions))
	for _, p := range t.Partitions {
		rt := wire.PartitionRoute{PartitionID: p.ID, Primary: standaloneReplicaID, View: standalonePartitionView}
		if g := n.groupOf(partKey{s.ID, t.ID, p.ID}); g != nil {
			// This replica's view of the group: a lagging one may name an
			// old primary, which answers 58 and a lower view than the truth.
			rt.Primary, rt.View = g.primaryReplica(), g.host.Replica().View()
		} else if n.cfg.clustered() {
			// Not a member: the primary the metadata gave it last, which
			// answers 89 if it no longer leads (PLACE-20).
			rt.Primary = p.Primary
		}
		routes = append(routes, rt)
	}
	w := wire.Writer{}
	wire.EncodePartitionRoutes(&w, routes)
	n.raw(c, h, w.Buf)
}
