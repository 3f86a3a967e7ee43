package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
	"github.com/iggygo/iggy/wire/xxh32"
)

// sendKey names an append awaiting its commit.
type sendKey struct {
	part  partKey
	token uint64
}

type pendingSend struct {
	conn   *conn
	header wire.RequestHeader
}

// partitionRequest routes the partition-plane ops 160-162. They carry no
// duplicate detection: a resend may apply twice (at-least-once).
func (n *Node) partitionRequest(c *conn, h wire.RequestHeader, body []byte) {
	switch h.Operation {
	case wire.OpSendMessages:
		n.send(c, h, body)
	case wire.OpStoreConsumerOffset:
		n.storeOffset(c, h, body)
	case wire.OpDeleteConsumerOffset:
		n.deleteOffset(c, h, body)
	default:
		n.evict(c, h, wire.EvictInvalidRequestOperation)
	}
}

// send admits a batch (protocol-data.md 5.3) and appends it to its partition.
func (n *Node) send(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeSendMessagesRequest(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	s, t, ok := n.topicFor(c, h, q.StreamID, q.TopicID, metadata.ActionSendMessages)
	if !ok {
		return
	}
	k, code := n.pickPartition(s, t, q.Partitioning)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	hdr, code := batch.Validate(q.Batch)
	if code == wire.OK && hdr.Count != q.MessagesCount {
		code = wire.InvalidCommand
	}
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	log := n.partitions[k]
	if code := log.CanAppend(len(q.Batch)); code != wire.OK {
		n.deny(c, h, code)
		return
	}
	opts := topicOptions(t)
	sync := opts.Durability == wire.DurabilityPersisted || opts.EnforceFsync
	token, base := log.Append(q.Batch, n.now.NowMicros, sync)
	if opts.Durability == wire.DurabilityNone {
		n.sendReply(c, h, k, base)
		return
	}
	n.sends[sendKey{k, token}] = pendingSend{conn: c, header: h}
}

// pickPartition applies the partitioning of protocol-data.md 5.3.
func (n *Node) pickPartition(s *metadata.Stream, t *metadata.Topic, p wire.Partitioning) (partKey, wire.Code) {
	count := uint32(len(t.Partitions))
	var id uint32
	switch p.Kind {
	case wire.PartitioningPartitionID:
		id = p.PartitionID
	case wire.PartitioningBalanced:
		if count == 0 {
			return partKey{}, wire.NoPartitions
		}
		tk := topicKey{s.ID, t.ID}
		id = t.Partitions[n.balanced[tk]%count].ID
		n.balanced[tk]++
	case wire.PartitioningMessagesKey:
		if count == 0 {
			return partKey{}, wire.NoPartitions
		}
		id = t.Partitions[xxh32.Hash(p.Key, 0)%count].ID
	default:
		return partKey{}, wire.InvalidCommand
	}
	k := partKey{s.ID, t.ID, id}
	if _, ok := n.partitions[k]; !ok {
		return partKey{}, wire.PartitionNotFound
	}
	return k, wire.OK
}

// sendCommitted answers the send whose append token committed (or failed).
func (n *Node) sendCommitted(k partKey, token, base uint64, code wire.Code) {
	sk := sendKey{k, token}
	p, ok := n.sends[sk]
	if !ok {
		return
	}
	delete(n.sends, sk)
	if _, open := n.conns[p.conn.id]; !open {
		return
	}
	if code != wire.OK {
		n.deny(p.conn, p.header, code)
		return
	}
	n.sendReply(p.conn, p.header, k, base)
}

func (n *Node) sendReply(c *conn, h wire.RequestHeader, k partKey, base uint64) {
	w := wire.Writer{}
	wire.EncodeSendConfirmations(&w, []wire.SendConfirmation{{
		StreamID: k.stream, TopicID: k.topic, PartitionID: k.partition, BaseOffset: base,
	}})
	n.raw(c, h, w.Buf)
}
