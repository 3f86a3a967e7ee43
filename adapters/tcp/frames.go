package tcp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/iggygo/iggy/adapters/framing"
	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/wire"
)

// errPreLoginBudget is a frame of a connection without a login that the
// pre-login budget cannot hold: the connection is closed unread.
var errPreLoginBudget = errors.New("the bytes held by connections without a login are at their cap")

// emptyReadsMax bounds the (0, nil) reads tolerated while waiting for a
// frame; io.Reader allows them, a socket does not return them.
const emptyReadsMax = 100

// frameReader cuts frames out of a connection's byte stream under its
// limits. Between frames a logged-in connection may stay silent as long as
// it likes (protocol-framing.md 4.2 keeps idle connections that hold no
// group membership; the node evicts the others); one that has not logged in
// is closed by the hub's login deadline. A frame, once its first byte
// arrived, must arrive whole by its deadline (transport.Limits), so half a
// header or half a body holds nothing for long.
type frameReader struct {
	conn    net.Conn
	adm     *transport.Admission
	limits  transport.Limits
	sizeMax uint32
	header  [wire.HeaderSize]byte
	// armed: a deadline (until) may still be set on the socket. It is
	// cleared lazily, by the idle wait that meets it, and reused by the
	// frames that follow while it is at most one grace later than theirs:
	// a call costs about 0.9 µs (measured on our VM), so back-to-back frames
	// set it about once per grace instead of once per frame, and a frame's
	// deadline is enforced with at most one grace of slack.
	armed bool
	until time.Time
}

// next reads one whole frame into a fresh buffer (framing.NewBuffer).
func (r *frameReader) next() ([]byte, error) {
	n, err := r.first()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if n < wire.HeaderSize {
		if err := r.deadline(start, wire.HeaderSize); err != nil {
			return nil, err
		}
		if _, err := io.ReadFull(r.conn, r.header[n:]); err != nil {
			return nil, fmt.Errorf("reading a frame header: %w", err)
		}
	}
	size := binary.LittleEndian.Uint32(r.header[48:])
	if sizeMax := r.adm.FrameSizeMax(r.sizeMax); size < wire.HeaderSize || size > sizeMax {
		// protocol-framing.md 1.1: a bad size closes the connection.
		return nil, fmt.Errorf("frame size %d outside [%d, %d]", size, wire.HeaderSize, sizeMax)
	}
	if !r.adm.Hold(int(size)) {
		return nil, errPreLoginBudget
	}
	// Not zeroed: the header and the body below fill every byte, and a
	// frame that fails to arrive whole is dropped.
	frame := framing.NewBuffer(int(size))
	copy(frame, r.header[:])
	if size > wire.HeaderSize {
		if err := r.deadline(start, int(size)); err != nil {
			return nil, err
		}
		if _, err := io.ReadFull(r.conn, frame[wire.HeaderSize:]); err != nil {
			return nil, fmt.Errorf("reading a frame body of %d bytes: %w", size, err)
		}
	}
	return frame, nil
}

// first waits for the first bytes of the next frame's header, however long.
func (r *frameReader) first() (int, error) {
	for range emptyReadsMax {
		n, err := r.conn.Read(r.header[:])
		switch {
		case n > 0:
			return n, nil // an error with it comes back on the next read
		case err == nil:
			continue
		case r.armed && errors.Is(err, os.ErrDeadlineExceeded):
			// The last frame's deadline, met while idle between frames.
			r.armed = false
			if err := r.conn.SetReadDeadline(time.Time{}); err != nil {
				return 0, err
			}
		default:
			return 0, err
		}
	}
	return 0, io.ErrNoProgress
}

// deadline makes sure the socket's read deadline falls between the
// deadline of a frame of size bytes started at start and one grace later.
func (r *frameReader) deadline(start time.Time, size int) error {
	need := r.limits.FrameDeadline(start, size)
	if need.IsZero() {
		return nil
	}
	if r.armed && !r.until.Before(need) && r.until.Sub(need) <= r.limits.Grace {
		return nil
	}
	r.armed, r.until = true, need.Add(r.limits.Grace)
	return r.conn.SetReadDeadline(r.until)
}
