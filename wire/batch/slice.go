package batch

import (
	"encoding/binary"

	"github.com/iggygo/iggy/internal/assert"
)

// FrameRange returns the byte range [start, end) within rec of the frames
// whose offset (base_offset + offset_delta) is >= from, at most maxCount of
// them, and their number. rec must have a valid layout (a stored record).
func FrameRange(rec []byte, from uint64, maxCount uint32) (start, end int, count uint32) {
	if len(rec) < HeaderBytes {
		assert.Failf("batch: range over a %d-byte record", len(rec))
	}
	base := binary.LittleEndian.Uint64(rec[offBaseOffset:])
	start, end = len(rec), len(rec)
	it := FramesOf(rec)
	for count < maxCount {
		pos := HeaderBytes + it.Pos()
		f, ok := it.Next()
		if !ok {
			break
		}
		if base+uint64(f.OffsetDelta) < from {
			continue
		}
		if count == 0 {
			start = pos
		}
		count++
		end = pos + len(f.Bytes)
	}
	assert.That(it.Err() == 0, "batch: range over a malformed record")
	if count == 0 {
		return len(rec), len(rec), 0
	}
	return start, end, count
}

// Slice selects the messages of a stored record with offset >= from, at
// most maxCount of them (§5.6). It returns a new header - message_count and
// batch_length set for the selection, base_offset unchanged, batch checksum
// recomputed - and the selected frames as a sub-slice of rec (not copied).
// The selection may be the whole record; count 0 means nothing matched.
func Slice(rec []byte, from uint64, maxCount uint32) (hdr [HeaderBytes]byte, frames []byte, count uint32) {
	start, end, count := FrameRange(rec, from, maxCount)
	if count == 0 {
		return hdr, nil, 0
	}
	frames = rec[start:end]
	copy(hdr[:], rec[:HeaderBytes])
	le := binary.LittleEndian
	le.PutUint64(hdr[offLength:], uint64(HeaderBytes+len(frames)))
	le.PutUint32(hdr[offCount:], count)
	le.PutUint64(hdr[offChecksum:], batchChecksum(hdr[:], frames))
	return hdr, frames, count
}
