package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/wire"
)

func (n *Node) getGroup(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeGroupRef(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	_, t, ok := n.topicFor(c, h, q.StreamID, q.TopicID, metadata.ActionReadTopics)
	if !ok {
		return
	}
	g, code := n.meta.Group(q.StreamID, q.TopicID, q.GroupID)
	if code != wire.OK {
		n.raw(c, h)
		return
	}
	d := wire.ConsumerGroupDetails{Group: groupResponse(t, g)}
	for _, m := range g.Members {
		d.Members = append(d.Members, wire.ConsumerGroupMember{ID: m.ID, Partitions: m.Partitions})
	}
	w := wire.Writer{}
	d.Encode(&w)
	n.raw(c, h, w.Buf)
}

func (n *Node) getGroups(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeTopicRef(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	_, t, ok := n.topicFor(c, h, q.StreamID, q.TopicID, metadata.ActionReadTopics)
	if !ok {
		return
	}
	var out []wire.ConsumerGroupResponse
	for _, g := range t.Groups {
		out = append(out, groupResponse(t, g))
	}
	w := wire.Writer{}
	wire.EncodeConsumerGroups(&w, out)
	n.raw(c, h, w.Buf)
}

// syncGroup returns the caller's assignment; an empty body means "not a member".
func (n *Node) syncGroup(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeGroupRef(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	gen, parts, ok := n.meta.Sync(q.StreamID, q.TopicID, q.GroupID, metadataClientID(c.client))
	if !ok {
		n.raw(c, h)
		return
	}
	w := wire.Writer{}
	wire.GroupAssignment{Generation: gen, Partitions: parts}.Encode(&w)
	n.raw(c, h, w.Buf)
}

func groupResponse(t *metadata.Topic, g *metadata.ConsumerGroup) wire.ConsumerGroupResponse {
	return wire.ConsumerGroupResponse{
		ID: g.ID, PartitionsCount: uint32(len(t.Partitions)), MembersCount: uint32(len(g.Members)), Name: g.Name,
	}
}
