package partition

import (
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// scanResult is how far a run of stored records checks out.
type scanResult struct {
	validBytes int    // bytes of complete, valid records from the start
	next       uint64 // offset after the last valid record
	lastTs     uint64 // base_timestamp of the last valid record (or the minimum given)
	records    int
	// needBytes > 0 means the data ends inside the record at validBytes,
	// which is needBytes long: read more, or it is a torn tail at EOF.
	// needBytes == 0 and validBytes < len(data) means the record at
	// validBytes is corrupt.
	needBytes uint64
}

// scanRecords walks stored records (§10.2) and stops at the first one that
// is incomplete or wrong: a bad layout or checksum (batch.Validate), a
// base_offset other than the expected next offset, or a base_timestamp
// below the previous one. visit sees each valid record and its position.
func scanRecords(data []byte, expect, minTs uint64, visit func(pos int, h batch.Header)) scanResult {
	r := scanResult{next: expect, lastTs: minTs}
	for r.validBytes < len(data) {
		rest := data[r.validBytes:]
		if len(rest) < batch.HeaderBytes {
			r.needBytes = batch.HeaderBytes
			return r
		}
		h := batch.ParseHeader(rest)
		if h.Length < recordBytesMin || h.Length > batch.RecordBytesMax {
			return r
		}
		if h.Length > uint64(len(rest)) {
			r.needBytes = h.Length
			return r
		}
		if _, code := batch.Validate(rest[:h.Length]); code != wire.OK {
			return r
		}
		if h.BaseOffset != r.next || h.BaseTimestamp < r.lastTs {
			return r
		}
		if visit != nil {
			visit(r.validBytes, h)
		}
		r.validBytes += int(h.Length)
		r.next += uint64(h.Count)
		r.lastTs = h.BaseTimestamp
		r.records++
	}
	return r
}
