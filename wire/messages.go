package wire

import (
	"bytes"
	"encoding/binary"

	"github.com/iggygo/iggy/internal/assert"
)

// Message request and reply bodies around the batch record (protocol-data.md
// 5). The batch record itself belongs to package wire/batch: here it is only
// an opaque byte slice.

// PartitioningKind selects how a send picks its partition (protocol-data.md 0.2).
type PartitioningKind uint8

const (
	PartitioningBalanced    PartitioningKind = 1
	PartitioningPartitionID PartitioningKind = 2
	PartitioningMessagesKey PartitioningKind = 3
)

// MessagesKeyBytesMax bounds a MessagesKey (1..255 bytes).
const MessagesKeyBytesMax = 255

// Partitioning is [kind u8][len u8][value]: Balanced has no value,
// PartitionID a u32, MessagesKey 1..255 raw key bytes.
type Partitioning struct {
	Kind        PartitioningKind
	PartitionID uint32
	Key         []byte
}

// Partitioning reads one; any other kind or length is 3 InvalidCommand.
func (r *Reader) Partitioning() Partitioning {
	p := Partitioning{Kind: PartitioningKind(r.U8())}
	n := int(r.U8())
	if r.Err() != OK {
		return Partitioning{}
	}
	switch {
	case p.Kind == PartitioningBalanced && n == 0:
	case p.Kind == PartitioningPartitionID && n == 4:
		p.PartitionID = r.U32()
	case p.Kind == PartitioningMessagesKey && n >= 1:
		p.Key = bytes.Clone(r.Bytes(n))
	default:
		r.Fail(InvalidCommand)
	}
	return p
}

func (w *Writer) Partitioning(p Partitioning) {
	w.U8(uint8(p.Kind))
	switch p.Kind {
	case PartitioningBalanced:
		w.U8(0)
	case PartitioningPartitionID:
		w.U8(4)
		w.U32(p.PartitionID)
	case PartitioningMessagesKey:
		if len(p.Key) < 1 || len(p.Key) > MessagesKeyBytesMax {
			assert.Failf("messages key of %d bytes", len(p.Key))
		}
		w.U8(uint8(len(p.Key)))
		w.Bytes(p.Key)
	default:
		assert.Failf("partitioning kind %d", p.Kind)
	}
}

// SendMessagesRequest is the SendMessages (101) body: [metadata_length u32]
// [stream_id][topic_id][partitioning][messages_count u32], then exactly one
// batch record. Batch aliases the request body (no copy); package wire/batch
// validates it, including that it holds MessagesCount messages.
type SendMessagesRequest struct {
	StreamID, TopicID Identifier
	Partitioning      Partitioning
	MessagesCount     uint32
	Batch             []byte
}

// DecodeSendMessagesRequest checks the metadata prefix (protocol-data.md
// 5.3): the metadata must decode to exactly metadata_length bytes and name at
// least one message; any failure is 3 InvalidCommand.
func DecodeSendMessagesRequest(body []byte) (SendMessagesRequest, Code) {
	r := NewReader(body)
	metadataLength := r.U32()
	if r.Err() == OK && uint64(metadataLength) > uint64(r.Len()) {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return SendMessagesRequest{}, r.Err()
	}
	m := NewReader(r.Bytes(int(metadataLength)))
	q := SendMessagesRequest{StreamID: m.Identifier(), TopicID: m.Identifier(),
		Partitioning: m.Partitioning(), MessagesCount: m.U32()}
	if code := finish(m); code != OK {
		return SendMessagesRequest{}, code
	}
	if q.MessagesCount == 0 {
		return SendMessagesRequest{}, InvalidCommand
	}
	q.Batch = r.Rest()
	return q, OK
}

// EncodeMetadata writes the prefix without the batch, so a client can write
// the batch record as a separate slice.
func (q SendMessagesRequest) EncodeMetadata(w *Writer) {
	lengthAt := len(w.Buf)
	w.U32(0)
	w.Identifier(q.StreamID)
	w.Identifier(q.TopicID)
	w.Partitioning(q.Partitioning)
	w.U32(q.MessagesCount)
	binary.LittleEndian.PutUint32(w.Buf[lengthAt:], uint32(len(w.Buf)-lengthAt-4))
}

// Encode writes the prefix and the batch.
func (q SendMessagesRequest) Encode(w *Writer) {
	q.EncodeMetadata(w)
	w.Bytes(q.Batch)
}

// SendConfirmation is one 20-byte entry of the SendMessages reply (protocol-data.md 5.4).
type SendConfirmation struct {
	StreamID, TopicID, PartitionID uint32
	BaseOffset                     uint64
}

const sendConfirmationBytes = 20

// EncodeSendConfirmations writes the raw reply: [count u32] and the entries.
func EncodeSendConfirmations(w *Writer, c []SendConfirmation) {
	w.U32(uint32(len(c)))
	for _, e := range c {
		w.U32(e.StreamID)
		w.U32(e.TopicID)
		w.U32(e.PartitionID)
		w.U64(e.BaseOffset)
	}
}

// DecodeSendConfirmations reads the reply; trailing bytes are 3. An empty
// body is 3 too, as the Go SDK treats it (a dead session), while count 0 means
// "committed, nothing reported".
func DecodeSendConfirmations(body []byte) ([]SendConfirmation, Code) {
	r := NewReader(body)
	count := r.U32()
	if r.Err() == OK && uint64(r.Len()) != uint64(count)*sendConfirmationBytes {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return nil, r.Err()
	}
	out := make([]SendConfirmation, 0, count)
	for range count {
		out = append(out, SendConfirmation{StreamID: r.U32(), TopicID: r.U32(),
			PartitionID: r.U32(), BaseOffset: r.U64()})
	}
	return out, OK
}

// PollingKind is where a poll starts (protocol-data.md 0.2, 5.5).
type PollingKind uint8

const (
	PollOffset    PollingKind = 1
	PollTimestamp PollingKind = 2
	PollFirst     PollingKind = 3
	PollLast      PollingKind = 4
	PollNext      PollingKind = 5
)

// PollingStrategy is [kind u8][value u64]; the value is ignored for First,
// Last and Next.
type PollingStrategy struct {
	Kind  PollingKind
	Value uint64
}

func (r *Reader) PollingStrategy() PollingStrategy {
	s := PollingStrategy{Kind: PollingKind(r.U8()), Value: r.U64()}
	if r.Err() == OK && (s.Kind < PollOffset || s.Kind > PollNext) {
		r.Fail(InvalidCommand)
	}
	return s
}

func (w *Writer) PollingStrategy(s PollingStrategy) {
	w.U8(uint8(s.Kind))
	w.U64(s.Value)
}

// PollMessagesRequest is the PollMessages (100) body: [consumer][stream_id]
// [topic_id][flag u8][partition_id u32][strategy][count u32][auto_commit u8].
// Whether a missing partition is allowed is the server's rule (MSG-2).
type PollMessagesRequest struct {
	Consumer          Consumer
	StreamID, TopicID Identifier
	Partition         OptionalPartition
	Strategy          PollingStrategy
	Count             uint32
	AutoCommit        bool
}

// DecodePollMessagesRequest decodes a 100 body without PollOptions;
// trailing bytes are InvalidCommand (DecodePollRequest takes the options).
func DecodePollMessagesRequest(body []byte) (PollMessagesRequest, Code) {
	q, given, code := DecodePollRequest(body)
	if code == OK && given {
		code = InvalidCommand
	}
	if code != OK {
		return PollMessagesRequest{}, code
	}
	return q.Poll, OK
}

func (q PollMessagesRequest) Encode(w *Writer) {
	w.Consumer(q.Consumer)
	w.Identifier(q.StreamID)
	w.Identifier(q.TopicID)
	w.OptionalPartition(q.Partition)
	w.PollingStrategy(q.Strategy)
	w.U32(q.Count)
	w.Bool(q.AutoCommit)
}

// Poll reply sentinels in partition_id (protocol-data.md 5.6).
const (
	// PollResyncPartition asks a group member to re-sync its assignment; sent with 0 messages.
	PollResyncPartition uint32 = 0xFFFFFFFF
	// PollNoPartitionsOwned is an SDK-side value; the server never sends it.
	PollNoPartitionsOwned uint32 = 0xFFFFFFFE
)

// PollPrefixBytes is the fixed start of every poll reply.
const PollPrefixBytes = 16

// PollPrefix is [partition_id u32][current_offset u64][messages_count u32].
// The server sends it and the stored batch records as separate slices.
type PollPrefix struct {
	PartitionID   uint32
	CurrentOffset uint64
	MessagesCount uint32 // over all records
}

// Bytes returns the 16 prefix bytes, ready to be the first part of a reply.
func (p PollPrefix) Bytes() []byte {
	b := make([]byte, PollPrefixBytes)
	binary.LittleEndian.PutUint32(b[0:], p.PartitionID)
	binary.LittleEndian.PutUint64(b[4:], p.CurrentOffset)
	binary.LittleEndian.PutUint32(b[12:], p.MessagesCount)
	return b
}

// Batch record layout facts a poll reader needs to step from record to record.
const (
	batchHeaderBytes    = 256
	batchLengthOffset   = 32
	pollRecordsCountMax = 64 << 20 / batchHeaderBytes
)

// PolledMessages is a decoded poll reply: the prefix and the batch records,
// each a sub-slice of the body (no copy) that the caller validates if it wants.
type PolledMessages struct {
	Prefix  PollPrefix
	Records [][]byte
}

// DecodePolledMessages reads a poll reply (client side): the 16-byte prefix,
// then records stepped by their batch_length. Only the tiling is checked:
// every record is at least a batch header and ends inside the body, and the
// records end exactly at the body's end. Anything else is 3.
func DecodePolledMessages(body []byte) (PolledMessages, Code) {
	r := NewReader(body)
	p := PolledMessages{Prefix: PollPrefix{PartitionID: r.U32(), CurrentOffset: r.U64(), MessagesCount: r.U32()}}
	if r.Err() != OK {
		return PolledMessages{}, r.Err()
	}
	records, code := decodePollRecords(body[r.Pos():])
	if code != OK {
		return PolledMessages{}, code
	}
	p.Records = records
	return p, OK
}

// decodePollRecords steps through the records that end a poll reply.
func decodePollRecords(body []byte) ([][]byte, Code) {
	r := NewReader(body)
	records := make([][]byte, 0, min(r.Len()/batchHeaderBytes, pollRecordsCountMax))
	for r.Len() > 0 {
		rest := body[r.Pos():]
		if len(rest) < batchHeaderBytes {
			return nil, InvalidCommand
		}
		length := binary.LittleEndian.Uint64(rest[batchLengthOffset:])
		if length < batchHeaderBytes || length > uint64(len(rest)) {
			return nil, InvalidCommand
		}
		records = append(records, r.Bytes(int(length)))
	}
	return records, OK
}
