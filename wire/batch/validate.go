package batch

import (
	"encoding/binary"

	"github.com/iggygo/iggy/wire"
)

// Validate is the full admission check of one record (§5.1-5.3): the header
// is complete, batch_length equals len(rec), message_count >= 1, the
// reserved bytes are zero, the frames tile the body exactly and number
// message_count, each frame's reserved field is zero and its offset_delta
// is its index, every message checksum verifies (else 4027
// InvalidMessageChecksum) and so does the batch checksum (else 4039
// InvalidBatchChecksum). Any other failure is 3 InvalidCommand.
//
// offset_delta must equal the index because the log derives each message's
// offset as base_offset + offset_delta; both SDKs write 0, 1, 2, ...
func Validate(rec []byte) (Header, wire.Code) {
	h, code := validateLayout(rec)
	if code != wire.OK {
		return Header{}, code
	}
	frames := rec[HeaderBytes:]
	for pos := 0; pos < len(frames); {
		size := frameBytes(frames[pos:])
		frame := frames[pos : pos+size]
		if messageChecksum(frame) != binary.LittleEndian.Uint64(frame[frameOffChecksum:]) {
			return Header{}, wire.InvalidMessageChecksum
		}
		pos += size
	}
	if batchChecksum(rec, frames) != h.Checksum {
		return Header{}, wire.InvalidBatchChecksum
	}
	return h, wire.OK
}

// validateLayout checks everything but the checksums.
func validateLayout(rec []byte) (Header, wire.Code) {
	if len(rec) < HeaderBytes || len(rec) > RecordBytesMax {
		return Header{}, wire.InvalidCommand
	}
	h := ParseHeader(rec)
	if h.Length != uint64(len(rec)) || h.Count == 0 || !allZero(rec[offReserved:HeaderBytes]) {
		return Header{}, wire.InvalidCommand
	}
	// Every frame is at least FrameHeaderBytes, which bounds the walk.
	if uint64(h.Count) > uint64(len(rec)-HeaderBytes)/FrameHeaderBytes {
		return Header{}, wire.InvalidCommand
	}
	it := FramesOf(rec)
	var n uint32
	for {
		f, ok := it.Next()
		if !ok {
			break
		}
		if f.OffsetDelta != n || n == h.Count {
			return Header{}, wire.InvalidCommand
		}
		n++
	}
	if it.Err() != wire.OK || n != h.Count {
		return Header{}, wire.InvalidCommand
	}
	return h, wire.OK
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
