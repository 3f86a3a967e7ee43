// Package framing cuts one request frame out of a reader that carries
// exactly one: a WebSocket binary message or a QUIC request stream
// (protocol-framing.md 1.1). TCP cuts frames from a byte stream itself.
package framing

import (
	"errors"
	"fmt"
	"io"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// ErrSize is a frame whose size field is outside [256, the frame cap], or
// a message or stream that ends before the size it declares. Either way the
// transport closes the connection, as TCP does for a bad size (1.1).
var ErrSize = errors.New("frame size out of range")

// ErrTrailing is data after the frame: one message or stream carries one frame.
var ErrTrailing = errors.New("data after the frame")

// ErrHeld is a frame its connection may not hold now (the pre-login budget,
// transport.Admission.Hold): the transport closes the connection unread.
var ErrHeld = errors.New("no room for the frame of a connection without a login")

// Read reads the 256-byte header, checks 256 <= size <= sizeMax and, when
// hold is not nil, that hold(size) grants the memory, then reads the body
// into the same buffer. The buffer is new (NewBuffer: not zeroed, every
// byte is read into it): the node may keep slices of it (bus.ClientFrame).
// An I/O error of r is returned wrapped as is.
func Read(r io.Reader, sizeMax uint32, hold func(size int) bool) ([]byte, error) {
	if sizeMax < wire.HeaderSize || sizeMax > wire.FrameSizeMax {
		assert.Failf("frame size cap %d", sizeMax)
	}
	var head [wire.HeaderSize]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, shortOr(err, "header")
	}
	p, code := wire.DecodePrologue(head[:])
	if code != wire.OK || p.Size > sizeMax {
		return nil, fmt.Errorf("%w: header declares %d bytes, cap %d", ErrSize, p.Size, sizeMax)
	}
	if hold != nil && !hold(int(p.Size)) {
		return nil, fmt.Errorf("%w: %d bytes", ErrHeld, p.Size)
	}
	frame := NewBuffer(int(p.Size))
	copy(frame, head[:])
	if _, err := io.ReadFull(r, frame[wire.HeaderSize:]); err != nil {
		return nil, shortOr(err, "body")
	}
	return frame, nil
}

// End checks that r ends right after the frame (io.EOF with no data). On a
// QUIC stream this also consumes the FIN, which releases the stream's credit.
func End(r io.Reader) error {
	var one [1]byte
	for range emptyReadsMax {
		n, err := r.Read(one[:])
		switch {
		case n > 0:
			return ErrTrailing
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("framing: reading the end of the frame: %w", err)
		}
	}
	return fmt.Errorf("framing: reading the end of the frame: %w", io.ErrNoProgress)
}

// emptyReadsMax bounds the (0, nil) reads End tolerates; io.Reader allows
// them but a reader that only returns them is broken.
const emptyReadsMax = 100

// shortOr reports a reader that ended inside the frame as ErrSize (the
// declared size is a lie), and passes any other error through.
func shortOr(err error, part string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: message ends inside the frame %s", ErrSize, part)
	}
	return fmt.Errorf("framing: reading the frame %s: %w", part, err)
}
