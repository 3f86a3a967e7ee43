package batch

import (
	"encoding/binary"

	"github.com/iggygo/iggy/wire"
)

// Frame is one message of a record, as slices of the record's bytes.
type Frame struct {
	Checksum       uint64
	ID             [16]byte
	OffsetDelta    uint32
	TimestampDelta uint32
	Payload        []byte
	Headers        []byte // user headers: an opaque TLV block (§5.7)
	Bytes          []byte // the whole frame, header included
}

// Frames walks the frames of a record body (the bytes after the batch
// header). It is safe on untrusted bytes: a frame that does not fit or has
// a nonzero reserved field ends the walk with Err InvalidCommand.
type Frames struct {
	buf []byte
	pos int
	err wire.Code
}

// NewFrames walks frames, the bytes after a batch header.
func NewFrames(frames []byte) Frames { return Frames{buf: frames} }

// FramesOf walks the frames of rec; rec shorter than a header has none.
func FramesOf(rec []byte) Frames {
	if len(rec) < HeaderBytes {
		return Frames{err: wire.InvalidCommand}
	}
	return Frames{buf: rec[HeaderBytes:]}
}

// Err is OK unless the walk stopped at a malformed frame.
func (f *Frames) Err() wire.Code { return f.err }

// Pos is the byte position of the next frame within the walked bytes.
func (f *Frames) Pos() int { return f.pos }

// Next returns the next frame, or false at the end or on a malformed frame.
func (f *Frames) Next() (Frame, bool) {
	if f.err != wire.OK || f.pos == len(f.buf) {
		return Frame{}, false
	}
	rest := f.buf[f.pos:]
	if len(rest) < FrameHeaderBytes {
		f.err = wire.InvalidCommand
		return Frame{}, false
	}
	le := binary.LittleEndian
	headersLen := uint64(le.Uint32(rest[frameOffHeadersLength:]))
	payloadLen := uint64(le.Uint32(rest[frameOffPayloadLength:]))
	size := FrameHeaderBytes + payloadLen + headersLen // cannot overflow: both < 2^32
	if size > uint64(len(rest)) || le.Uint64(rest[frameOffReserved:]) != 0 {
		f.err = wire.InvalidCommand
		return Frame{}, false
	}
	b := rest[:size]
	fr := Frame{
		Checksum:       le.Uint64(b[frameOffChecksum:]),
		OffsetDelta:    le.Uint32(b[frameOffOffsetDelta:]),
		TimestampDelta: le.Uint32(b[frameOffTimestampDelta:]),
		Payload:        b[FrameHeaderBytes : FrameHeaderBytes+payloadLen],
		Headers:        b[FrameHeaderBytes+payloadLen:],
		Bytes:          b,
	}
	copy(fr.ID[:], b[frameOffID:frameOffID+16])
	f.pos += int(size)
	return fr, true
}
