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
//
// It walks the frames once: layout, message checksums and the batch
// checksum input together, since admission runs on every send. A layout
// fault anywhere wins over a checksum mismatch, as if checked first.
func Validate(rec []byte) (Header, wire.Code) { return validate(rec, true) }

// ValidateLayout is Validate without the checksums: what a reader must check
// before it walks or slices a record it chose not to re-hash
// (validate_checksum = false).
func ValidateLayout(rec []byte) (Header, wire.Code) { return validate(rec, false) }

func validate(rec []byte, checksums bool) (Header, wire.Code) {
	h, code := validateHeader(rec)
	if code != wire.OK {
		return Header{}, code
	}
	var sum summer
	sum.write(rec[:offChecksum])
	sum.write(rec[offCount : offCount+4])
	le := binary.LittleEndian
	frames := rec[HeaderBytes:]
	badChecksum := false
	var n uint32
	for pos := 0; pos < len(frames); n++ {
		rest := frames[pos:]
		if n == h.Count || len(rest) < FrameHeaderBytes || le.Uint64(rest[frameOffReserved:]) != 0 ||
			le.Uint32(rest[frameOffOffsetDelta:]) != n {
			return Header{}, wire.InvalidCommand
		}
		size := uint64(FrameHeaderBytes) + uint64(le.Uint32(rest[frameOffHeadersLength:])) + uint64(le.Uint32(rest[frameOffPayloadLength:]))
		if size > uint64(len(rest)) {
			return Header{}, wire.InvalidCommand
		}
		if checksums {
			frame := rest[:size]
			badChecksum = badChecksum || messageChecksum(frame) != le.Uint64(frame[frameOffChecksum:])
			sum.write(frame[frameOffChecksum : frameOffChecksum+8])
		}
		pos += int(size)
	}
	switch {
	case n != h.Count:
		return Header{}, wire.InvalidCommand
	case !checksums:
		return h, wire.OK
	case badChecksum:
		return Header{}, wire.InvalidMessageChecksum
	case sum.sum() != h.Checksum:
		return Header{}, wire.InvalidBatchChecksum
	}
	return h, wire.OK
}

// validateHeader checks the record's header and its bounds.
func validateHeader(rec []byte) (Header, wire.Code) {
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
