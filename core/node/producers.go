package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/wire"
)

// producerIDReplicaBits leaves room for the replica id in the low bits of
// a producer id, so two replicas never issue the same one.
const producerIDReplicaBits = 8

// nextProducerID answers NextProducerId (code 110, NR; IDEM-1, IDEM-2):
// a fresh producer id for a stream and topic, epoch 0. The caller needs
// send rights on the topic. Ids come from the node's clock (microseconds,
// shifted, with the replica id below) and only ever grow on this node,
// so they stay unique across restarts without a replicated counter as
// long as the clock does not step back by more than the ids issued meanwhile.
func (n *Node) nextProducerID(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeTopicRef(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	if _, _, ok := n.topicFor(c, h, q.StreamID, q.TopicID, metadata.ActionSendMessages); !ok {
		return
	}
	id := n.now.NowMicros<<producerIDReplicaBits | uint64(n.cfg.Replica)
	if id <= n.lastProducerID {
		id = n.lastProducerID + 1<<producerIDReplicaBits
	}
	n.lastProducerID = id
	w := wire.Writer{}
	wire.ProducerID{ID: id}.Encode(&w)
	n.raw(c, h, w.Buf)
}

// producerVerdict answers a producer batch the table decided on: a resend
// of a committed batch with the first write's offset, a refusal with its
// code. It reports whether the batch is new, to be written.
func (n *Node) producerVerdict(c *conn, h wire.RequestHeader, k partKey, v partition.Verdict) bool {
	switch {
	case v.Dup:
		n.cfg.Marks.Hit("node.producer.dedup")
		n.sendReply(c, h, k, v.Base)
		return false
	case v.Code == wire.TransientNotCommitted:
		n.cfg.Marks.Hit("node.producer.uncommitted_duplicate")
	case v.Code == wire.ProducerEpochFenced:
		n.cfg.Marks.Hit("node.producer.fenced")
	}
	if v.Code != wire.OK {
		n.deny(c, h, v.Code)
		return false
	}
	return true
}
