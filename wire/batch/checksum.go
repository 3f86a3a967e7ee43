package batch

import (
	"encoding/binary"

	"github.com/zeebo/xxh3"
)

// sumBufferBytes holds the checksum input of batches up to 122 messages on
// the stack, so the common case hashes in one call without allocating.
const sumBufferBytes = 1024

// summer feeds the batch checksum input (§5.2) to XXH3-64, buffering small
// inputs and streaming large ones; both give the same hash.
type summer struct {
	buf    [sumBufferBytes]byte
	n      int
	hasher *xxh3.Hasher
}

func (s *summer) write(b []byte) {
	if s.n+len(b) > len(s.buf) {
		if s.hasher == nil {
			s.hasher = xxh3.New()
		}
		_, _ = s.hasher.Write(s.buf[:s.n]) // never fails
		s.n = 0
	}
	s.n += copy(s.buf[s.n:], b)
}

func (s *summer) sum() uint64 {
	if s.hasher == nil {
		return xxh3.Hash(s.buf[:s.n])
	}
	_, _ = s.hasher.Write(s.buf[:s.n])
	return s.hasher.Sum64()
}

// messageChecksum is XXH3-64 of a frame after its checksum field (§5.2).
func messageChecksum(frame []byte) uint64 { return xxh3.Hash(frame[frameOffID:]) }

// batchChecksum hashes the 44-byte header prefix and then the stored
// checksum field of every frame. frames must tile exactly (already checked).
func batchChecksum(hdr []byte, frames []byte) uint64 {
	var s summer
	s.write(hdr[:offChecksum])
	s.write(hdr[offCount : offCount+4])
	for pos := 0; pos < len(frames); pos += frameBytes(frames[pos:]) {
		s.write(frames[pos : pos+8])
	}
	return s.sum()
}

// frameBytes is the size of the frame at the start of b, read from its
// header; the caller guarantees the header is there and checked.
func frameBytes(b []byte) int {
	le := binary.LittleEndian
	return FrameHeaderBytes + int(le.Uint32(b[frameOffHeadersLength:])) + int(le.Uint32(b[frameOffPayloadLength:]))
}
