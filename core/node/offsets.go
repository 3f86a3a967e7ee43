package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// lastOffset is the offset of the last message of a poll's records: the
// first message's offset plus the count, as offsets are contiguous.
func lastOffset(records [][]byte, count uint32) uint64 {
	hdr := batch.ParseHeader(records[0])
	frames := records[0][batch.HeaderBytes:]
	if len(frames) == 0 && len(records) > 1 {
		frames = records[1]
	}
	f := batch.NewFrames(frames)
	first, _ := f.Next()
	return hdr.BaseOffset + uint64(first.OffsetDelta) + uint64(count) - 1
}

// offsetTarget resolves the partition and consumer of an offset request.
func (n *Node) offsetTarget(c *conn, ref wire.ConsumerOffsetRef, action metadata.Action) (partKey, partition.OffsetKind, uint32, wire.Code) {
	s, t, code := n.meta.Topic(ref.StreamID, ref.TopicID)
	if code != wire.OK {
		return partKey{}, 0, 0, code
	}
	if !n.meta.Authorize(c.userID, action, s.ID, t.ID) {
		return partKey{}, 0, 0, wire.Unauthorized
	}
	kind, consumer, pid, code := n.resolveConsumer(c, s, t, ref.Consumer, ref.Partition, false)
	if code != wire.OK {
		return partKey{}, 0, 0, code
	}
	k := partKey{s.ID, t.ID, pid}
	if code := n.partitionCode(k); code != wire.OK {
		return partKey{}, 0, 0, code
	}
	if kind == partition.Group && action == metadata.ActionPollMessages && ref.Partition.Given {
		g, _ := n.meta.Group(wire.NumericID(s.ID), wire.NumericID(t.ID), ref.Consumer.ID)
		if !n.meta.GroupOwns(wire.NumericID(s.ID), wire.NumericID(t.ID), wire.NumericID(g.ID), metadataClientID(c.client), pid) {
			n.notOwned(c.client, s.ID, t.ID, g.ID, pid)
			return partKey{}, 0, 0, wire.ConsumerGroupPartitionNotOwned
		}
	}
	return k, kind, consumer, wire.OK
}

// getOffset serves GetConsumerOffset (120): empty body when nothing is stored.
func (n *Node) getOffset(c *conn, h wire.RequestHeader, body []byte) {
	ref, code := wire.DecodeGetConsumerOffsetRequest(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	k, kind, consumer, code := n.offsetTarget(c, ref, metadata.ActionReadTopics)
	if offsetMiss(code) {
		n.raw(c, h) // a single-item get that finds nothing is status 0, empty
		return
	}
	if code != wire.OK {
		n.dataDeny(c, h, code)
		return
	}
	switch {
	case n.remote(k):
		n.handOff(shardOffsetGet{conn: c.id, h: h, k: k, kind: kind, consumer: consumer})
	case n.cfg.clustered():
		n.readThroughGroup(c, h, k, func() { n.answerOffset(c, h, k, kind, consumer) })
	default:
		n.answerOffset(c, h, k, kind, consumer)
	}
}

// offsetMiss reports whether a GetConsumerOffset that got code found
// nothing to read: a missing stream, topic or consumer group answers as
// "nothing stored" does (protocol-data.md 7.2 and pitfall 7); only a
// missing partition is an error (3007).
func offsetMiss(code wire.Code) bool {
	switch code {
	case wire.StreamIdNotFound, wire.StreamNameNotFound, wire.TopicIdNotFound, wire.TopicNameNotFound,
		wire.ConsumerGroupIdNotFound, wire.ConsumerGroupNameNotFound:
		return true
	}
	return false
}

// servingLog is k's log when it serves; else it answers 3007 (deleted
// while handed over) or 58 (reopening after a failed write, writeretry.go).
func (n *Node) servingLog(c *conn, h wire.RequestHeader, k partKey) (*partition.Log, bool) {
	log, ok := n.partitions[k]
	switch {
	case !ok:
		n.deny(c, h, wire.PartitionNotFound)
	case !log.Ready():
		n.deny(c, h, wire.TransientNotAccepted)
	}
	return log, ok && log.Ready()
}

func (n *Node) answerOffset(c *conn, h wire.RequestHeader, k partKey, kind partition.OffsetKind, consumer uint32) {
	log, ok := n.servingLog(c, h, k)
	if !ok {
		return
	}
	stored, ok := log.Offset(kind, consumer)
	if !ok {
		n.raw(c, h)
		return
	}
	w := wire.Writer{}
	wire.ConsumerOffsetInfo{PartitionID: k.partition, CurrentOffset: log.CurrentOffset(), StoredOffset: stored}.Encode(&w)
	n.raw(c, h, w.Buf)
}

// storeOffset serves StoreConsumerOffset (161), answered once written.
func (n *Node) storeOffset(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeStoreConsumerOffsetRequest(body)
	k, kind, consumer, ok := n.offsetWrite(c, h, q.ConsumerOffsetRef, code)
	if !ok {
		return
	}
	if q.Incarnation != 0 && q.Incarnation != n.partitionRevision(k) {
		n.cfg.Marks.Hit("node.offset.incarnation_refused")
		n.dataDeny(c, h, wire.PartitionIncarnationMismatch) // MSG-6
		return
	}
	policy := n.topicDurability(k)
	if n.remote(k) {
		n.handOff(shardOffsetWrite{conn: c.id, h: h, k: k, kind: kind, consumer: consumer, offset: q.Offset, policy: policy})
		return
	}
	n.storeOffsetLocal(c, h, k, kind, consumer, q.Offset, policy)
}

// storeOffsetLocal stores an offset in partition k of this shard.
func (n *Node) storeOffsetLocal(c *conn, h wire.RequestHeader, k partKey, kind partition.OffsetKind, consumer uint32, offset uint64, policy durability) {
	log, ok := n.servingLog(c, h, k)
	if !ok {
		return
	}
	// An external group's offsets may run past the partition's range (CGRP-3).
	if kind != partition.External && (log.Empty() || offset > log.CurrentOffset()) {
		n.deny(c, h, wire.InvalidOffset)
		return
	}
	if n.cfg.clustered() {
		n.proposeToGroup(c, h, k, vsr.Prepare{Kind: vsr.KindStoreOffset, Body: encodeOffsetOp(kind, consumer, offset, true)}, nil)
		return
	}
	token := log.StoreOffset(kind, consumer, offset, policy.offsetSync)
	n.awaitOffsetWrite(c, h, k, token, policy)
}

// offsetWrite resolves the target of an offset write whose body decoded
// with code; the partition must be named (6 otherwise). On failure it has
// answered.
func (n *Node) offsetWrite(c *conn, h wire.RequestHeader, ref wire.ConsumerOffsetRef, code wire.Code) (partKey, partition.OffsetKind, uint32, bool) {
	if code == wire.OK && !ref.Partition.Given {
		code = wire.InvalidIdentifier
	}
	var k partKey
	var kind partition.OffsetKind
	var consumer uint32
	if code == wire.OK {
		k, kind, consumer, code = n.offsetTarget(c, ref, metadata.ActionPollMessages)
	}
	if code != wire.OK {
		n.dataDeny(c, h, code)
		return partKey{}, 0, 0, false
	}
	return k, kind, consumer, true
}

// deleteOffset serves DeleteConsumerOffset (162).
func (n *Node) deleteOffset(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeDeleteConsumerOffsetRequest(body)
	k, kind, consumer, ok := n.offsetWrite(c, h, q.ConsumerOffsetRef, code)
	if !ok {
		return
	}
	policy := n.topicDurability(k)
	if n.remote(k) {
		n.handOff(shardOffsetWrite{conn: c.id, h: h, k: k, kind: kind, consumer: consumer, delete: true, policy: policy})
		return
	}
	n.deleteOffsetLocal(c, h, k, kind, consumer, policy)
}

// deleteOffsetLocal deletes an offset of partition k of this shard.
func (n *Node) deleteOffsetLocal(c *conn, h wire.RequestHeader, k partKey, kind partition.OffsetKind, consumer uint32, policy durability) {
	if n.cfg.clustered() {
		n.proposeToGroup(c, h, k, vsr.Prepare{Kind: vsr.KindDeleteOffset, Body: encodeOffsetOp(kind, consumer, 0, false)}, nil)
		return
	}
	log, ok := n.servingLog(c, h, k)
	if !ok {
		return
	}
	token, ok := log.DeleteOffset(kind, consumer)
	if !ok {
		n.deny(c, h, wire.ConsumerOffsetNotFound)
		return
	}
	n.awaitOffsetWrite(c, h, k, token, policy)
}

// awaitOffsetWrite answers an offset write now under consumer_offset_durability
// none, else once its write (and, for persisted, its sync) completed.
func (n *Node) awaitOffsetWrite(c *conn, h wire.RequestHeader, k partKey, token uint64, policy durability) {
	if policy.offsetNoAck {
		n.framed(c, h, 0)
		return
	}
	n.writes[writeKey{k, token}] = pendingWrite{conn: c, header: h, offset: true}
}

// topicDurability is the durability of the topic a partition belongs to.
func (n *Node) topicDurability(k partKey) durability {
	_, t, code := n.meta.Topic(wire.NumericID(k.stream), wire.NumericID(k.topic))
	if code != wire.OK {
		assert.Failf("partition %v without its topic", k)
	}
	return n.durability(topicKey{k.stream, k.topic}, t)
}

// notOwned logs the diagnostic of a 5009 (ConsumerGroupPartitionNotOwned):
// it names the member by its full 128-bit VSR client id (CGRP-6), the
// identity group membership uses, not the 32-bit connection id GetClient
// shows.
func (n *Node) notOwned(client wire.U128, stream, topic, group, partition uint32) {
	n.logf("consumer group %d of stream %d topic %d: client %016x%016x does not own partition %d (5009)",
		group, stream, topic, client.Hi, client.Lo, partition)
}
