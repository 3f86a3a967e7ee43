package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
	"github.com/iggygo/iggy/wire/xxh32"
)

// writeKey names an append or offset write of one partition log; a log
// draws both kinds of token from one counter, so one map serves both.
type writeKey struct {
	part  partKey
	token uint64
}

// pendingWrite is the request a write answers: a send (confirmation) or an
// offset store/delete (empty result section).
type pendingWrite struct {
	conn    *conn
	header  wire.RequestHeader
	offset  bool
	replied bool // answered already (a send of durability none)
	// attempt is a standalone send's receipt, settled when the write
	// completes (tracked).
	attempt partition.Attempt
	tracked bool
}

// partitionRequest routes the partition-plane ops 160-162. A send is
// named for its receipt by the client and session bound to the connection,
// as metadata ops are (protocol-framing.md 4.5); offset writes carry no
// duplicate detection: a resend may apply twice (at-least-once).
func (n *Node) partitionRequest(c *conn, h wire.RequestHeader, body []byte) {
	switch h.Operation {
	case wire.OpSendMessages:
		h.Client, h.Session = c.client, c.session
		n.send(c, h, body)
	case wire.OpStoreConsumerOffset:
		n.storeOffset(c, h, body)
	case wire.OpDeleteConsumerOffset:
		n.deleteOffset(c, h, body)
	case wire.OpSendProducerMessages:
		n.sendProducer(c, h, body)
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
	n.routeSend(c, h, q, nil)
}

// sendProducer admits an idempotent producer's batch (IDEM-3): a send
// that the partition checks against the producer's state (producerAppend).
func (n *Node) sendProducer(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeSendProducerMessagesRequest(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	n.routeSend(c, h, q.Send, &partition.ProducerBatch{
		ID: q.ProducerID, Epoch: q.Epoch, FirstSeq: q.FirstSequence, Count: q.Send.MessagesCount,
	})
}

// routeSend resolves, authorizes and picks the partition of a send, and
// appends it here or hands it to the partition's shard.
func (n *Node) routeSend(c *conn, h wire.RequestHeader, q wire.SendMessagesRequest, pb *partition.ProducerBatch) {
	s, t, ok := n.dataTopic(c, h, q.StreamID, q.TopicID, metadata.ActionSendMessages)
	if !ok {
		return
	}
	k, code := n.pickPartition(s, t, q.Partitioning)
	if code != wire.OK {
		n.dataDeny(c, h, code)
		return
	}
	policy := n.durability(topicKey{s.ID, t.ID}, t)
	if n.remote(k) {
		n.handOff(shardSend{conn: c.id, h: h, k: k, batch: q.Batch, count: q.MessagesCount, policy: policy, producer: pb})
		return
	}
	n.appendBatch(c, h, k, q.Batch, q.MessagesCount, policy, pb)
}

// appendBatch validates a send's batch (every checksum, on the shard that
// owns the partition) and appends it to partition k, or proposes it to k's
// group in a replica set. pb is set for an idempotent producer's batch.
func (n *Node) appendBatch(c *conn, h wire.RequestHeader, k partKey, b []byte, count uint32, policy durability, pb *partition.ProducerBatch) {
	hdr, code := batch.Validate(b)
	a := sendAttempt(h, hdr.Checksum)
	if code == wire.OK && hdr.Count != count {
		code = wire.InvalidCommand
	}
	if code == wire.OK {
		code = batch.CheckUserHeaders(b)
	}
	if code == wire.OK {
		b, code = n.sealBatch(k, b)
	}
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	if n.cfg.clustered() && pb != nil {
		n.proposeProducer(c, h, k, b, *pb)
		return
	}
	if n.cfg.clustered() {
		n.proposeSend(c, h, k, a, b)
		return
	}
	log, ok := n.partitions[k]
	if !ok {
		n.deny(c, h, wire.PartitionNotFound) // deleted while handed over
		return
	}
	if code := log.CanAppend(len(b)); code != wire.OK {
		n.deny(c, h, code)
		return
	}
	var token, base uint64
	var receipts *partition.Receipts
	if pb != nil {
		token, base, ok = n.producerAppend(c, h, k, log, b, policy, *pb)
		if !ok {
			return
		}
	} else {
		receipts = n.logReceiptsOf(k, log)
		if _, answered := n.checkReceipt(c, h, k, receipts, a); answered {
			return
		}
		token, base = log.Append(b, n.now.NowMicros, policy.sendSync)
		receipts.Admit(a, base)
	}
	w := pendingWrite{conn: c, header: h, attempt: a, tracked: receipts != nil, replied: policy.sendNoAck}
	if w.replied {
		n.sendReply(c, h, k, base)
	}
	if !w.replied || w.tracked {
		n.writes[writeKey{k, token}] = w
	}
}

// durability is what a write needs of its topic's options. Both policies
// are fixed at create, so they are decoded once per topic incarnation, not
// per request (RES-37: sends follow durability, explicit offset writes
// follow consumer_offset_durability).
type durability struct {
	createdOp   uint64 // the topic incarnation the entry belongs to (ids are reused)
	sendSync    bool   // fdatasync before a send's reply (persisted, or enforce_fsync)
	sendNoAck   bool   // reply to a send once it is queued (none)
	offsetSync  bool   // fdatasync before an offset write's reply (persisted)
	offsetNoAck bool   // reply to an offset write once it is queued (none)
}

func (n *Node) durability(k topicKey, t *metadata.Topic) durability {
	if p, ok := n.policies[k]; ok && p.createdOp == t.CreatedOp {
		return p
	}
	opts := topicOptions(t)
	p := durability{
		createdOp:   t.CreatedOp,
		sendSync:    (opts.Durability == wire.DurabilityPersisted || opts.EnforceFsync) && !canaryReplyBeforeFsync,
		sendNoAck:   opts.Durability == wire.DurabilityNone,
		offsetSync:  opts.ConsumerOffsetDurability == wire.DurabilityPersisted,
		offsetNoAck: opts.ConsumerOffsetDurability == wire.DurabilityNone,
	}
	n.policies[k] = p
	return p
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
	if code := n.partitionCode(k); code != wire.OK {
		return partKey{}, code
	}
	return k, wire.OK
}

// written answers the send or offset write whose token completed: with the
// code when it failed, else a confirmation or an empty result section.
func (n *Node) written(k partKey, token, base uint64, code wire.Code) {
	wk := writeKey{k, token}
	p, ok := n.writes[wk]
	if !ok {
		return
	}
	delete(n.writes, wk)
	n.settleReceipt(k, p, code)
	if p.replied || !n.connOpen(p.conn) {
		return
	}
	switch {
	case code != wire.OK:
		n.deny(p.conn, p.header, code)
	case p.offset:
		n.framed(p.conn, p.header, 0)
	default:
		n.sendReply(p.conn, p.header, k, base)
	}
}

func (n *Node) sendReply(c *conn, h wire.RequestHeader, k partKey, base uint64) {
	w := wire.Writer{}
	wire.EncodeSendConfirmations(&w, []wire.SendConfirmation{{
		StreamID: k.stream, TopicID: k.topic, PartitionID: k.partition, BaseOffset: base,
	}})
	n.raw(c, h, w.Buf)
}

// producerAppend checks an idempotent producer's batch against the
// partition's producer table before offsets are assigned (IDEM-4): a
// resend of a committed batch is answered with the first write's offset
// and writes nothing (IDEM-5), one an uncommitted write holds gets 57
// (IDEM-8), a gap or a fenced epoch its code (IDEM-6, IDEM-7). ok is
// false when the request was answered here.
func (n *Node) producerAppend(c *conn, h wire.RequestHeader, k partKey, log *partition.Log, b []byte,
	policy durability, pb partition.ProducerBatch) (token, base uint64, ok bool) {
	v := log.Producers().Check(pb, max(n.now.NowMicros, log.LastTimestamp()))
	if v.Dup && log.ProducersSyncing() {
		// The batch may be only in the page cache a killed process left.
		n.cfg.Marks.Hit("node.producer.dedup_waits_boot_sync")
		n.deny(c, h, wire.TransientNotAccepted)
		return 0, 0, false
	}
	if !n.producerVerdict(c, h, k, v) {
		return 0, 0, false
	}
	token, base = log.AppendProducer(b, n.now.NowMicros, policy.sendSync, pb)
	return token, base, true
}
