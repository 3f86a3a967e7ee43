package wire

// Consumers and consumer offsets (protocol-data.md 0.2, 7).

// ConsumerKind says whose offset a request reads or writes.
type ConsumerKind uint8

const (
	ConsumerKindConsumer ConsumerKind = 1
	ConsumerKindGroup    ConsumerKind = 2
	// ConsumerKindExternalGroup is the target release's "external-group"
	// (CGRP-2..5): offsets of a group managed outside Iggy. The snapshot has
	// no such kind; 3 is the next unused value, so it is the one used here.
	ConsumerKindExternalGroup ConsumerKind = 3
)

// Consumer is [kind u8][Identifier].
type Consumer struct {
	Kind ConsumerKind
	ID   Identifier
}

// Consumer reads one; a kind other than 1, 2 or 3 is 3 InvalidCommand.
func (r *Reader) Consumer() Consumer {
	c := Consumer{Kind: ConsumerKind(r.U8()), ID: r.Identifier()}
	if r.Err() == OK && (c.Kind < ConsumerKindConsumer || c.Kind > ConsumerKindExternalGroup) {
		r.Fail(InvalidCommand)
	}
	return c
}

func (w *Writer) Consumer(c Consumer) {
	w.U8(uint8(c.Kind))
	w.Identifier(c.ID)
}

// OptionalPartition is [flag u8][partition_id u32]: flag 1 means given; any
// other flag means none, and then the id is meaningless (encoders send 0).
type OptionalPartition struct {
	Given bool
	ID    uint32
}

func (r *Reader) OptionalPartition() OptionalPartition {
	given := r.U8() == 1
	id := r.U32()
	if !given {
		id = 0
	}
	return OptionalPartition{Given: given, ID: id}
}

func (w *Writer) OptionalPartition(p OptionalPartition) {
	if !p.Given {
		w.U8(0)
		w.U32(0)
		return
	}
	w.U8(1)
	w.U32(p.ID)
}

// AckLevel ends Store/DeleteConsumerOffset: 0 NoAck, 1 Quorum (the default).
type AckLevel uint8

const (
	AckNone   AckLevel = 0
	AckQuorum AckLevel = 1
)

func (r *Reader) ackLevel() AckLevel {
	a := AckLevel(r.U8())
	if r.Err() == OK && a > AckQuorum {
		r.Fail(InvalidCommand)
	}
	return a
}

// ConsumerOffsetRef is what every offset request starts with: the consumer
// comes first here, then [stream_id][topic_id][flag u8][partition_id u32].
type ConsumerOffsetRef struct {
	Consumer          Consumer
	StreamID, TopicID Identifier
	Partition         OptionalPartition
}

func (r *Reader) consumerOffsetRef() ConsumerOffsetRef {
	return ConsumerOffsetRef{Consumer: r.Consumer(), StreamID: r.Identifier(),
		TopicID: r.Identifier(), Partition: r.OptionalPartition()}
}

func (q ConsumerOffsetRef) Encode(w *Writer) {
	w.Consumer(q.Consumer)
	w.Identifier(q.StreamID)
	w.Identifier(q.TopicID)
	w.OptionalPartition(q.Partition)
}

// DecodeGetConsumerOffsetRequest reads a GetConsumerOffset (120) body; a
// missing partition means partition 0.
func DecodeGetConsumerOffsetRequest(body []byte) (ConsumerOffsetRef, Code) {
	r := NewReader(body)
	q := r.consumerOffsetRef()
	return q, r.Err()
}

// StoreConsumerOffsetRequest is the StoreConsumerOffset (121) body,
// optionally followed by [incarnation u64]: a checkpoint's partition
// incarnation, which must be the partition's (MSG-6). Without it, or with
// 0, the offset is stored in whatever incarnation the partition is.
type StoreConsumerOffsetRequest struct {
	ConsumerOffsetRef
	Offset      uint64
	Ack         AckLevel
	Incarnation uint64
}

// DecodeStoreConsumerOffsetRequest gives 3 for a malformed body or ack byte
// or trailing bytes other than the incarnation, and 6 InvalidIdentifier
// when no partition is given (protocol-data.md 7.2).
func DecodeStoreConsumerOffsetRequest(body []byte) (StoreConsumerOffsetRequest, Code) {
	r := NewReader(body)
	q := StoreConsumerOffsetRequest{ConsumerOffsetRef: r.consumerOffsetRef(), Offset: r.U64(), Ack: r.ackLevel()}
	if r.Err() == OK && r.Len() == 8 {
		q.Incarnation = r.U64()
	}
	if r.Err() == OK && r.Len() != 0 {
		r.Fail(InvalidCommand)
	}
	if r.Err() == OK && !q.Partition.Given {
		r.Fail(InvalidIdentifier)
	}
	return q, r.Err()
}

func (q StoreConsumerOffsetRequest) Encode(w *Writer) {
	q.ConsumerOffsetRef.Encode(w)
	w.U64(q.Offset)
	w.U8(uint8(q.Ack))
	if q.Incarnation != 0 {
		w.U64(q.Incarnation)
	}
}

// DeleteConsumerOffsetRequest is the DeleteConsumerOffset (122) body.
type DeleteConsumerOffsetRequest struct {
	ConsumerOffsetRef
	Ack AckLevel
}

// DecodeDeleteConsumerOffsetRequest follows the Store rules.
func DecodeDeleteConsumerOffsetRequest(body []byte) (DeleteConsumerOffsetRequest, Code) {
	r := NewReader(body)
	q := DeleteConsumerOffsetRequest{ConsumerOffsetRef: r.consumerOffsetRef(), Ack: r.ackLevel()}
	if r.Err() == OK && !q.Partition.Given {
		r.Fail(InvalidIdentifier)
	}
	return q, r.Err()
}

func (q DeleteConsumerOffsetRequest) Encode(w *Writer) {
	q.ConsumerOffsetRef.Encode(w)
	w.U8(uint8(q.Ack))
}

// ConsumerOffsetInfo is the 20-byte GetConsumerOffset reply.
type ConsumerOffsetInfo struct {
	PartitionID   uint32
	CurrentOffset uint64 // the partition's highest committed offset
	StoredOffset  uint64 // the last processed offset
}

const consumerOffsetInfoBytes = 20

func (o ConsumerOffsetInfo) Encode(w *Writer) {
	w.U32(o.PartitionID)
	w.U64(o.CurrentOffset)
	w.U64(o.StoredOffset)
}

// DecodeConsumerOffsetInfo reads the reply; an empty body means nothing is
// stored (found = false); any length other than 0 or 20 is 3.
func DecodeConsumerOffsetInfo(body []byte) (o ConsumerOffsetInfo, found bool, code Code) {
	switch len(body) {
	case 0:
		return ConsumerOffsetInfo{}, false, OK
	case consumerOffsetInfoBytes:
		r := NewReader(body)
		return ConsumerOffsetInfo{PartitionID: r.U32(), CurrentOffset: r.U64(), StoredOffset: r.U64()}, true, OK
	}
	return ConsumerOffsetInfo{}, false, InvalidCommand
}
