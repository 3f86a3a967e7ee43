package batch

import (
	"encoding/binary"

	"github.com/iggygo/iggy/internal/assert"
)

// Stamp sets partition_id, base_offset and base_timestamp of a valid record
// in place and recomputes the batch checksum (§5.2: the server restamps on
// admission and at commit). Message checksums do not cover the header, so
// only the 44-byte prefix and the per-message checksum fields are hashed.
func Stamp(rec []byte, partitionID, baseOffset, baseTimestamp uint64) {
	if len(rec) < HeaderBytes {
		assert.Failf("batch: stamping a %d-byte record", len(rec))
	}
	assert.That(binary.LittleEndian.Uint64(rec[offLength:]) == uint64(len(rec)), "batch: stamping a record whose length field disagrees")
	le := binary.LittleEndian
	le.PutUint64(rec[offPartitionID:], partitionID)
	le.PutUint64(rec[offBaseOffset:], baseOffset)
	le.PutUint64(rec[offBaseTimestamp:], baseTimestamp)
	le.PutUint64(rec[offChecksum:], batchChecksum(rec, rec[HeaderBytes:]))
}
