package batch

import (
	"encoding/binary"

	"github.com/iggygo/iggy/wire"
)

// Part names which value of a message a Transform callback is given.
type Part uint8

const (
	PartPayload Part = 0
	PartHeaders Part = 1
)

// ValueFunc appends to dst the transformed form of one value (a payload, or
// a non-empty user-headers block) of the message with id.
type ValueFunc func(dst []byte, id [16]byte, part Part, value []byte) ([]byte, wire.Code)

// Transform builds a new record from rec (a whole, checked record) with
// every payload and every non-empty headers block replaced by what f
// appends, the batch header's fields and each frame's id and deltas kept,
// and every length and checksum recomputed: how an encrypted stream's
// records are sealed before they are stored and opened before a poll
// returns them (ENC-4). It fails with f's code, or 4022
// TooBigMessagePayload when the new record would exceed RecordBytesMax.
func Transform(rec []byte, f ValueFunc) ([]byte, wire.Code) {
	out := make([]byte, HeaderBytes, len(rec)+len(rec)/8)
	frames := FramesOf(rec)
	for {
		fr, ok := frames.Next()
		if !ok {
			break
		}
		var code wire.Code
		if out, code = transformFrame(out, fr, f); code != wire.OK {
			return nil, code
		}
		if len(out) > RecordBytesMax {
			return nil, wire.TooBigMessagePayload
		}
	}
	if code := frames.Err(); code != wire.OK {
		return nil, code
	}
	h := ParseHeader(rec)
	h.Length = uint64(len(out))
	putHeader(out, h)
	binary.LittleEndian.PutUint64(out[offChecksum:], batchChecksum(out, out[HeaderBytes:]))
	return out, wire.OK
}

// transformFrame appends fr to out with its values transformed by f.
func transformFrame(out []byte, fr Frame, f ValueFunc) ([]byte, wire.Code) {
	start := len(out)
	out = append(out, fr.Bytes[:FrameHeaderBytes]...)
	var code wire.Code
	if out, code = f(out, fr.ID, PartPayload, fr.Payload); code != wire.OK {
		return nil, code
	}
	payloadLen := len(out) - start - FrameHeaderBytes
	if len(fr.Headers) > 0 {
		if out, code = f(out, fr.ID, PartHeaders, fr.Headers); code != wire.OK {
			return nil, code
		}
	}
	headersLen := len(out) - start - FrameHeaderBytes - payloadLen
	if uint64(payloadLen) > 1<<32-1 || uint64(headersLen) > 1<<32-1 {
		return nil, wire.TooBigMessagePayload
	}
	le := binary.LittleEndian
	le.PutUint32(out[start+frameOffHeadersLength:], uint32(headersLen))
	le.PutUint32(out[start+frameOffPayloadLength:], uint32(payloadLen))
	le.PutUint64(out[start+frameOffChecksum:], messageChecksum(out[start:]))
	return out, wire.OK
}
