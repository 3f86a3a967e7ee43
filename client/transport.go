package client

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/iggygo/iggy/wire"
)

// reply is one frame read back: a Reply (evicted nil) or an Eviction.
type reply struct {
	header  wire.ReplyHeader
	body    []byte
	evicted *EvictedError
}

// resetSession forgets the session and draws a fresh nonzero client id with
// crypto/rand, as the SDK does after a logout or an eviction (4.1).
func (c *Client) resetSession() error {
	var b [16]byte
	for range clientIDDrawAttemptsMax {
		if _, err := rand.Read(b[:]); err != nil {
			return fmt.Errorf("iggy: draw client id: %w", err)
		}
		id := wire.U128{Lo: binary.LittleEndian.Uint64(b[0:]), Hi: binary.LittleEndian.Uint64(b[8:])}
		if !id.IsZero() {
			c.session = sessionState{clientID: id, counter: requestCounterFirst}
			return nil
		}
	}
	return errors.New("iggy: crypto/rand kept returning a zero client id")
}

// roundTripLocked writes one frame and reads the frame that answers it. Any
// transport or framing failure closes the connection: the stream position
// is unknown afterwards. Called with c.mu held.
func (c *Client) roundTripLocked(req request) (reply, error) {
	if c.conn == nil {
		return reply{}, ErrClosed
	}
	if req.size() > wire.FrameSizeMax {
		return reply{}, &Error{Code: wire.InvalidConfiguration} // the SDK refuses it locally
	}
	if err := c.conn.SetDeadline(time.Now().Add(c.opts.RequestTimeout)); err != nil {
		c.closeLocked()
		return reply{}, fmt.Errorf("iggy: set deadline: %w", err)
	}
	if err := writeRequest(c.conn, req); err != nil {
		c.closeLocked()
		return reply{}, fmt.Errorf("iggy: write request: %w", err)
	}
	var into *[]byte
	if c.opts.ReuseReplyBuffer {
		into = &c.replies
	}
	r, err := readFrame(c.conn, into)
	if err != nil {
		c.closeLocked()
		return reply{}, err
	}
	if r.evicted != nil {
		// The SDK closes the socket itself and throws the session away.
		c.closeLocked()
		c.session = sessionState{}
	}
	return r, nil
}

// frameBuffer is a buffer of size bytes: fresh, or *into's storage.
func frameBuffer(into *[]byte, size int) []byte {
	if into == nil {
		return make([]byte, size)
	}
	if cap(*into) < size {
		*into = make([]byte, size)
	}
	return (*into)[:size]
}

// writeRequest writes one frame: on plain TCP as one vectored write of
// header and body; elsewhere as one Write of a joined copy, since a
// WebSocket message or a QUIC stream write carries exactly what one Write
// is given and TLS would cut a vectored write into records anyway.
func writeRequest(conn net.Conn, req request) error {
	if tc, ok := conn.(*net.TCPConn); ok {
		bufs := net.Buffers{req.head, req.body}
		_, err := bufs.WriteTo(tc)
		return err
	}
	frame := make([]byte, 0, req.size())
	frame = append(append(frame, req.head...), req.body...)
	_, err := conn.Write(frame)
	return err
}

// readFrame reads one server frame: 256 header bytes, a size check, then the
// body. Only Reply and Eviction frames may appear on a client connection.
// With into set, the frame is read into *into (grown when too small).
func readFrame(conn net.Conn, into *[]byte) (reply, error) {
	head := make([]byte, wire.HeaderSize)
	if _, err := io.ReadFull(conn, head); err != nil {
		return reply{}, fmt.Errorf("iggy: read reply header: %w", err)
	}
	p, code := wire.DecodePrologue(head)
	if code != wire.OK {
		return reply{}, fmt.Errorf("%w: reply frame size out of range", ErrProtocol)
	}
	frame := head
	if p.Size > wire.HeaderSize {
		frame = frameBuffer(into, int(p.Size))
		copy(frame, head)
		if _, err := io.ReadFull(conn, frame[wire.HeaderSize:]); err != nil {
			return reply{}, fmt.Errorf("iggy: read reply body (%d bytes): %w", p.Size-wire.HeaderSize, err)
		}
	}
	switch p.Command {
	case wire.FrameReply:
		h, code := wire.DecodeReplyHeader(frame)
		if code != wire.OK {
			return reply{}, fmt.Errorf("%w: bad reply header", ErrProtocol)
		}
		return reply{header: h, body: frame[wire.HeaderSize:]}, nil
	case wire.FrameEviction:
		e, code := wire.DecodeEviction(frame)
		if code != wire.OK {
			return reply{}, fmt.Errorf("%w: malformed eviction", ErrProtocol)
		}
		return reply{evicted: &EvictedError{Reason: e.Reason, VersionMax: e.VersionMax, VersionMin: e.VersionMin}}, nil
	}
	return reply{}, fmt.Errorf("%w: frame command %d on a client connection", ErrProtocol, p.Command)
}
