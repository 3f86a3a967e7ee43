package wire

import "math"

// Idempotent producers (IDEM-1..3). The target release names the commands
// but publishes no layout; ours (DESIGN.md, "Wire layouts we chose") is
//
//	NextProducerId (code 110, NR)
//	  request: [stream Identifier][topic Identifier]   (a TopicRef)
//	  reply:   [producer_id u64][epoch u32]
//	SendProducerMessages (code 107, operation 163)
//	  request: [producer_id u64][epoch u32][first_sequence u64], then the
//	           SendMessages body (protocol-data.md 5.3) unchanged
//	  reply:   the SendMessages reply (one 20-byte confirmation), raw
//
// Message i of the batch has sequence first_sequence + i.

// ProducerID is the NextProducerId reply.
type ProducerID struct {
	ID    uint64
	Epoch uint32
}

// producerIDBytes is the size of the NextProducerId reply.
const producerIDBytes = 8 + 4

// producerPrefixBytes is the size of the SendProducerMessages prefix.
const producerPrefixBytes = 8 + 4 + 8

// Encode writes the NextProducerId reply.
func (p ProducerID) Encode(w *Writer) {
	w.U64(p.ID)
	w.U32(p.Epoch)
}

// DecodeProducerID reads a NextProducerId reply (client side); any other
// length is 3.
func DecodeProducerID(body []byte) (ProducerID, Code) {
	if len(body) != producerIDBytes {
		return ProducerID{}, InvalidCommand
	}
	r := NewReader(body)
	return ProducerID{ID: r.U64(), Epoch: r.U32()}, OK
}

// SendProducerMessagesRequest is the SendProducerMessages body.
type SendProducerMessagesRequest struct {
	ProducerID    uint64
	Epoch         uint32
	FirstSequence uint64
	Send          SendMessagesRequest
}

// DecodeSendProducerMessagesRequest reads the prefix and the SendMessages
// body after it. A short prefix, a bad SendMessages body, or sequences
// that would pass 2^64-1 are 3 InvalidCommand.
func DecodeSendProducerMessagesRequest(body []byte) (SendProducerMessagesRequest, Code) {
	if len(body) < producerPrefixBytes {
		return SendProducerMessagesRequest{}, InvalidCommand
	}
	r := NewReader(body[:producerPrefixBytes])
	q := SendProducerMessagesRequest{ProducerID: r.U64(), Epoch: r.U32(), FirstSequence: r.U64()}
	send, code := DecodeSendMessagesRequest(body[producerPrefixBytes:])
	if code != OK {
		return SendProducerMessagesRequest{}, code
	}
	if q.FirstSequence > math.MaxUint64-uint64(send.MessagesCount) {
		return SendProducerMessagesRequest{}, InvalidCommand
	}
	q.Send = send
	return q, OK
}

// EncodeMetadata writes the prefix and the SendMessages metadata without
// the batch, so a client can write the batch record as a separate slice.
func (q SendProducerMessagesRequest) EncodeMetadata(w *Writer) {
	w.U64(q.ProducerID)
	w.U32(q.Epoch)
	w.U64(q.FirstSequence)
	q.Send.EncodeMetadata(w)
}

// Encode writes the whole body.
func (q SendProducerMessagesRequest) Encode(w *Writer) {
	q.EncodeMetadata(w)
	w.Bytes(q.Send.Batch)
}
