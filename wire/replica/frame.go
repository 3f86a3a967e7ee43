// Package replica is the byte layout of replica-to-replica frames: the
// consensus messages of core/vsr (as core/node.PeerMessage, carrying their
// group) and the link handshake (hello, challenge, finish), each on the
// 256-byte frame prologue of protocol-framing.md 1.2 with its two checksums
// sealed (1.7: frames between replicas use them). DESIGN.md "Wire layouts we
// chose", "Replica frames", has the tables.
//
// Decoders never panic on their input: a frame that is short, oversized,
// inconsistent or fails a checksum returns an error wrapping ErrMalformed,
// ErrTooLarge or ErrIdentity, and a link closes on it.
package replica

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/wire"
)

// Frame geometry shared with client frames (protocol-framing.md 1.1, 1.2).
const (
	HeaderSize = wire.HeaderSize
	// FrameSizeMax is the largest frame any replica codec accepts, header
	// included: message_bus.max_message_size may lower it, never raise it.
	FrameSizeMax = wire.FrameSizeMax
)

// Prologue offsets (1.2); 62..128 are reserved and must be zero.
const (
	offChecksum     = 0  // u128: XXH3-64 of bytes 16..256, zero-extended
	offChecksumBody = 16 // u128: XXH3-64 of the body, zero-extended
	offCluster      = 32
	offSize         = 48
	offView         = 52
	offRelease      = 56
	offCommand      = 60
	offReplica      = 61
	offReserved     = 62
	offPrologueEnd  = 128
)

// Errors a decoder wraps; a link names the reason from the wrapped text.
var (
	// ErrMalformed: the bytes are not a replica frame of a known command.
	ErrMalformed = errors.New("malformed replica frame")
	// ErrTooLarge: the frame's size field or content is over the bound.
	ErrTooLarge = errors.New("replica frame too large")
	// ErrIdentity: a well-formed frame of another cluster or release.
	ErrIdentity = errors.New("replica frame of another cluster or release")
)

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// Header is what a reader learns from the 256-byte header alone, before it
// reads the body: enough to size the read and to refuse early.
type Header struct {
	Cluster wire.U128
	Size    uint32 // the whole frame, header included
	View    uint32
	Release uint32
	Command wire.FrameCommand
	Replica uint8 // the sender
}

// CheckHeader verifies the header checksum and the prologue of a frame whose
// first HeaderSize bytes are h: size within [HeaderSize, sizeMax] and zero
// reserved bytes. It checks no command or identity: DecodeMessage and the
// handshake decoders do. The checksum comes first, so random bytes are
// refused before their size field sizes any read.
func CheckHeader(h []byte, sizeMax int) (Header, error) {
	if len(h) < HeaderSize {
		return Header{}, malformed("header of %d bytes", len(h))
	}
	if !checksumOK(h[offChecksum:], xxh3.Hash(h[offChecksumBody:HeaderSize])) {
		return Header{}, malformed("header checksum")
	}
	le := binary.LittleEndian
	hd := Header{
		Cluster: wire.U128{Lo: le.Uint64(h[offCluster:]), Hi: le.Uint64(h[offCluster+8:])},
		Size:    le.Uint32(h[offSize:]), View: le.Uint32(h[offView:]), Release: le.Uint32(h[offRelease:]),
		Command: wire.FrameCommand(h[offCommand]), Replica: h[offReplica],
	}
	if hd.Size < HeaderSize {
		return Header{}, malformed("size %d below the header", hd.Size)
	}
	if int64(hd.Size) > int64(min(sizeMax, FrameSizeMax)) {
		return Header{}, fmt.Errorf("%w: size %d over %d", ErrTooLarge, hd.Size, min(sizeMax, FrameSizeMax))
	}
	if !zero(h[offReserved:offPrologueEnd]) {
		return Header{}, malformed("reserved prologue bytes")
	}
	return hd, nil
}

// checkFrame verifies a whole frame: its header, that its length is the
// size field, and the body checksum.
func checkFrame(frame []byte, sizeMax int) (Header, error) {
	hd, err := CheckHeader(frame, sizeMax)
	if err != nil {
		return Header{}, err
	}
	if len(frame) != int(hd.Size) {
		return Header{}, malformed("frame of %d bytes, size field %d", len(frame), hd.Size)
	}
	if !checksumOK(frame[offChecksumBody:], xxh3.Hash(frame[HeaderSize:])) {
		return Header{}, malformed("body checksum")
	}
	return hd, nil
}

// putPrologue writes the prologue of a frame whose body is already in place
// behind it. The checksums are left for seal.
func putPrologue(frame []byte, hd Header) {
	le := binary.LittleEndian
	clear(frame[:offPrologueEnd])
	le.PutUint64(frame[offCluster:], hd.Cluster.Lo)
	le.PutUint64(frame[offCluster+8:], hd.Cluster.Hi)
	le.PutUint32(frame[offSize:], uint32(len(frame)))
	le.PutUint32(frame[offView:], hd.View)
	le.PutUint32(frame[offRelease:], hd.Release)
	frame[offCommand] = byte(hd.Command)
	frame[offReplica] = hd.Replica
}

// seal computes the body checksum, then the header checksum over it.
func seal(frame []byte) {
	le := binary.LittleEndian
	le.PutUint64(frame[offChecksumBody:], xxh3.Hash(frame[HeaderSize:]))
	le.PutUint64(frame[offChecksumBody+8:], 0)
	le.PutUint64(frame[offChecksum:], xxh3.Hash(frame[offChecksumBody:HeaderSize]))
	le.PutUint64(frame[offChecksum+8:], 0)
}

// checksumOK compares a u128 checksum field with an XXH3-64 zero-extended.
func checksumOK(field []byte, sum uint64) bool {
	le := binary.LittleEndian
	return le.Uint64(field) == sum && le.Uint64(field[8:]) == 0
}

func zero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
