package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// pollRequest is a resolved poll, run against the log when it is served.
type pollRequest struct {
	part       partKey
	strategy   partition.Strategy
	value      uint64
	next       bool // PollNext: the value is the stored offset + 1, read when served
	count      uint32
	autoCommit bool
	kind       partition.OffsetKind
	consumer   uint32
	revision   uint64 // the partition's incarnation when admitted (MSG-5)
}

// proposeToGroup proposes a partition op for the request of c on the
// partition's primary. A replica that is not the primary of the group's
// view refuses it with 89 (NotPrimary) before acting on it: the client
// looks the primary up (PartitionRoutes) and sends it there (PLACE-21).
// When the group cannot take it now (booting, changing view, pipeline
// full) the answer is 58 (TransientNotAccepted: never admitted, sent
// again after a while; protocol-data.md 9.3).
func (n *Node) proposeToGroup(c *conn, h wire.RequestHeader, k partKey, p vsr.Prepare, read func()) {
	g := n.groupOf(k)
	if g != nil && !g.host.Replica().IsPrimary() {
		n.deny(c, h, wire.NotPrimary)
		return
	}
	if n.drainDeny(c, h, g) {
		return
	}
	if g == nil || !g.leads() || len(g.waiting) >= pgroupWaitersMax {
		n.deny(c, h, wire.TransientNotAccepted)
		return
	}
	p.Timestamp = n.now.NowMicros
	op, ok := g.host.Replica().Propose(p) // refused while its pipeline is full
	if !ok {
		n.deny(c, h, wire.TransientNotAccepted)
		return
	}
	g.waiting[op] = pgroupWaiter{conn: c, header: h, read: read}
}

// readThroughGroup serves a read of partition k once a barrier op commits
// in its group: the log then holds every write acknowledged before the
// read came, so the answer is linearizable.
func (n *Node) readThroughGroup(c *conn, h wire.RequestHeader, k partKey, read func()) {
	n.proposeToGroup(c, h, k, vsr.Prepare{Kind: vsr.KindBarrier}, read)
}

// proposeAutoCommit stores a poll's last offset through the group, best
// effort: nobody waits for it.
func (n *Node) proposeAutoCommit(k partKey, kind partition.OffsetKind, consumer uint32, offset uint64) {
	if g := n.groupOf(k); g != nil && g.leads() {
		g.host.Replica().Propose(vsr.Prepare{Kind: vsr.KindStoreOffset, Timestamp: n.now.NowMicros,
			Body: encodeOffsetOp(kind, consumer, offset, true)})
	}
}

// dataDeny answers a partition-plane request that failed with code. A
// replica that is not the metadata primary may not have applied the
// create of the stream, topic, partition or group the request names yet:
// there a not-found is 58 (not yet routable; protocol-data.md 9.3), and
// the client sends it again. A group's not-found is 58 only while this
// backup has prepares it has not applied: a group nobody created (or one
// deleted) is otherwise refused 58 for ever, and its member's poll is
// never answered (cluster seeds 24, 33, 904612021). A backup caught up
// with the prepares it holds may still miss a create whose prepare has not
// reached it: the member then gets the group's not-found and joins again,
// as after the group's deletion.
func (n *Node) dataDeny(c *conn, h wire.RequestHeader, code wire.Code) {
	if n.cfg.clustered() && !n.leading() {
		switch code {
		case wire.StreamIdNotFound, wire.StreamNameNotFound, wire.TopicIdNotFound, wire.TopicNameNotFound,
			wire.PartitionNotFound:
			code = wire.TransientNotAccepted
		case wire.ConsumerGroupIdNotFound:
			if !n.metadataCaughtUp() {
				code = wire.TransientNotAccepted
			}
		}
	}
	n.deny(c, h, code)
}

// metadataCaughtUp: this replica's metadata group is in normal status and
// has applied every prepare it holds.
func (n *Node) metadataCaughtUp() bool {
	r := n.mg.Replica()
	return r.Status() == vsr.StatusNormal && r.Commit() == r.Op()
}

// dataTopic is topicFor for partition-plane requests (dataDeny).
func (n *Node) dataTopic(c *conn, h wire.RequestHeader, stream, topic wire.Identifier, action metadata.Action) (*metadata.Stream, *metadata.Topic, bool) {
	return n.topicOr(c, h, stream, topic, action, n.dataDeny)
}
