// Package batch reads, checks, stamps, slices and builds the Iggy batch
// record (protocol-data.md §5.1-5.2, §5.6): the one byte format used on the
// wire, in the journal, on disk and in poll replies. Every function works in
// place over a []byte; frames are never copied.
package batch

import "encoding/binary"

// Record layout (§5.1).
const (
	// HeaderBytes is the size of the batch header.
	HeaderBytes = 256
	// FrameHeaderBytes is the size of one message frame header.
	FrameHeaderBytes = 48
	// RecordBytesMax bounds one record: it must fit in one 64 MiB frame.
	RecordBytesMax = 64 << 20
	// TimestampDeltaMax is the widest origin-timestamp span one batch can hold.
	TimestampDeltaMax = 1<<32 - 1

	offPartitionID     = 0
	offBaseOffset      = 8
	offBaseTimestamp   = 16
	offOriginTimestamp = 24
	offLength          = 32
	offChecksum        = 40
	offCount           = 48
	offReserved        = 52

	// checksumPrefixBytes is the header prefix the batch checksum covers:
	// every field from partition_id to message_count except the checksum
	// itself, which is skipped (§5.2).
	checksumPrefixBytes = 44

	frameOffChecksum       = 0
	frameOffID             = 8
	frameOffOffsetDelta    = 24
	frameOffTimestampDelta = 28
	frameOffHeadersLength  = 32
	frameOffPayloadLength  = 36
	frameOffReserved       = 40
)

// Header is the decoded batch header.
type Header struct {
	PartitionID     uint64
	BaseOffset      uint64
	BaseTimestamp   uint64
	OriginTimestamp uint64
	Length          uint64 // batch_length: header plus frames
	Checksum        uint64
	Count           uint32 // message_count
}

// LastOffset is the offset of the record's last message, valid for a
// record whose frames carry offset deltas 0..Count-1 (every stored record).
func (h Header) LastOffset() uint64 { return h.BaseOffset + uint64(h.Count) - 1 }

// ParseHeader decodes the first HeaderBytes of rec without checking anything.
// The caller guarantees len(rec) >= HeaderBytes.
func ParseHeader(rec []byte) Header {
	_ = rec[HeaderBytes-1]
	le := binary.LittleEndian
	return Header{
		PartitionID:     le.Uint64(rec[offPartitionID:]),
		BaseOffset:      le.Uint64(rec[offBaseOffset:]),
		BaseTimestamp:   le.Uint64(rec[offBaseTimestamp:]),
		OriginTimestamp: le.Uint64(rec[offOriginTimestamp:]),
		Length:          le.Uint64(rec[offLength:]),
		Checksum:        le.Uint64(rec[offChecksum:]),
		Count:           le.Uint32(rec[offCount:]),
	}
}

// putHeader encodes h into the first HeaderBytes of dst, reserved bytes zero.
func putHeader(dst []byte, h Header) {
	_ = dst[HeaderBytes-1]
	le := binary.LittleEndian
	le.PutUint64(dst[offPartitionID:], h.PartitionID)
	le.PutUint64(dst[offBaseOffset:], h.BaseOffset)
	le.PutUint64(dst[offBaseTimestamp:], h.BaseTimestamp)
	le.PutUint64(dst[offOriginTimestamp:], h.OriginTimestamp)
	le.PutUint64(dst[offLength:], h.Length)
	le.PutUint64(dst[offChecksum:], h.Checksum)
	le.PutUint32(dst[offCount:], h.Count)
	clear(dst[offReserved:HeaderBytes])
}
