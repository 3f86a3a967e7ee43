package batch

import (
	"encoding/binary"

	"github.com/iggygo/iggy/wire"
)

// Message is one message to put in a record.
type Message struct {
	ID              [16]byte
	OriginTimestamp uint64 // µs since the Unix epoch, the producer's clock
	Payload         []byte
	Headers         []byte // user headers, an encoded TLV block (may be empty)
}

// Build encodes msgs as one unstamped record the way a producer sends it
// (§5.1): partition_id, base_offset and base_timestamp 0, origin_timestamp
// the minimum, deltas relative to it, every checksum set. It fails with
// 4009 InvalidMessagesCount for no messages, 4038
// InvalidMessageTimestampDelta when the span exceeds a u32 of µs, and 4022
// TooBigMessagePayload when the record would exceed RecordBytesMax.
func Build(msgs []Message) ([]byte, wire.Code) {
	if len(msgs) == 0 || len(msgs) > (RecordBytesMax-HeaderBytes)/FrameHeaderBytes {
		return nil, wire.InvalidMessagesCount
	}
	origin := msgs[0].OriginTimestamp
	size := uint64(HeaderBytes)
	for _, m := range msgs {
		origin = min(origin, m.OriginTimestamp)
		size += FrameHeaderBytes + uint64(len(m.Payload)) + uint64(len(m.Headers))
	}
	if size > RecordBytesMax {
		return nil, wire.TooBigMessagePayload
	}
	for _, m := range msgs {
		if m.OriginTimestamp-origin > TimestampDeltaMax {
			return nil, wire.InvalidMessageTimestampDelta
		}
	}
	rec := make([]byte, HeaderBytes, size)
	for i, m := range msgs {
		rec = appendFrame(rec, uint32(i), uint32(m.OriginTimestamp-origin), m)
	}
	h := Header{OriginTimestamp: origin, Length: size, Count: uint32(len(msgs))}
	putHeader(rec, h)
	binary.LittleEndian.PutUint64(rec[offChecksum:], batchChecksum(rec, rec[HeaderBytes:]))
	return rec, wire.OK
}

func appendFrame(rec []byte, offsetDelta, timestampDelta uint32, m Message) []byte {
	start := len(rec)
	var fh [FrameHeaderBytes]byte
	le := binary.LittleEndian
	copy(fh[frameOffID:], m.ID[:])
	le.PutUint32(fh[frameOffOffsetDelta:], offsetDelta)
	le.PutUint32(fh[frameOffTimestampDelta:], timestampDelta)
	le.PutUint32(fh[frameOffHeadersLength:], uint32(len(m.Headers)))
	le.PutUint32(fh[frameOffPayloadLength:], uint32(len(m.Payload)))
	rec = append(rec, fh[:]...)
	rec = append(rec, m.Payload...)
	rec = append(rec, m.Headers...)
	le.PutUint64(rec[start+frameOffChecksum:], messageChecksum(rec[start:]))
	return rec
}
