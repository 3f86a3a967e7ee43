package quic

import (
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// conn is one QUIC connection as the hub sees it. The hub routes replies by
// connection only, so the connection keeps its request streams in the order
// their frames went to the node and gives each reply the stream it answers.
type conn struct {
	id        bus.ConnID
	qc        *quic.Conn
	adm       *transport.Admission
	q         transport.ReplyQueue
	closeCode atomic.Uint64 // the application error code the close sends

	mu      sync.Mutex
	waiting []waitingStream // oldest first; at most streamsWaitingMax
}

// stream is what a request uses of a *quic.Stream; tests substitute it.
type stream interface {
	io.Reader
	io.Writer
	Close() error // finishes the sending side
	CancelWrite(quic.StreamErrorCode)
	SetReadDeadline(time.Time) error
}

// waitingStream is a request stream whose frame is with the node.
type waitingStream struct {
	st      stream
	request uint64 // the request id, which the reply echoes (1.5)
}

// newConn is the hub's view of qc. Ending it runs on the node loop (through
// the hub) or the stall timer, and quic-go's close waits for the
// connection's own loop, so the closing runs on a goroutine of its own (one
// per connection, once). Closing the connection also unblocks a reply write
// stuck on flow control.
func newConn(qc *quic.Conn, l transport.Limits) *conn {
	c := &conn{qc: qc}
	c.q.Init(l, func() {
		go func() { _ = qc.CloseWithError(quic.ApplicationErrorCode(c.closeCode.Load()), "") }()
	})
	return c
}

// admit queues st as waiting for the reply to frame; false when the bound is reached.
func (c *conn) admit(st stream, frame []byte) bool {
	h, _ := wire.DecodeRequestHeader(frame) // a frame the node will refuse still gets a place
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiting) >= streamsWaitingMax {
		return false
	}
	c.waiting = append(c.waiting, waitingStream{st: st, request: h.Request})
	return true
}

// Send queues r without blocking (transport.Conn).
func (c *conn) Send(r bus.Reply) bool { return c.q.Put(r, nil) }

// Close ends the connection (newConn says how).
func (c *conn) Close() { c.q.End() }

func (c *conn) writeLoop() {
	c.q.Drain(func(o transport.Outgoing) bool { return c.write(o.Reply) })
}

// write sends r on the stream it answers and finishes that stream. With no
// stream waiting (an eviction of an idle session, 4.7) there is nowhere to
// put it: false closes the connection, as the SDK would after an eviction.
func (c *conn) write(r bus.Reply) bool {
	st, ok := c.take(r)
	if !ok {
		return false
	}
	for _, part := range r.Parts {
		if _, err := st.Write(part); err != nil {
			st.CancelWrite(streamAborted) // the client gave up on this request only
			return true
		}
	}
	_ = st.Close()
	return true
}

// take removes and returns the stream r answers. Streams older than it got
// no reply and never will (the node answers a connection's requests in
// order, and drops some silently, protocol-framing.md 4.9): they are
// finished empty, which the SDKs read as "no response" and recover from.
func (c *conn) take(r bus.Reply) (stream, bool) {
	head := replyHead(r.Parts)
	c.mu.Lock()
	i := pick(c.waiting, head[:])
	if i < 0 {
		c.mu.Unlock()
		return nil, false
	}
	dropped := append([]waitingStream(nil), c.waiting[:i]...)
	st := c.waiting[i].st
	n := copy(c.waiting, c.waiting[i+1:])
	clear(c.waiting[n:])
	c.waiting = c.waiting[:n]
	c.mu.Unlock()
	for _, d := range dropped {
		_ = d.st.Close()
	}
	return st, true
}
