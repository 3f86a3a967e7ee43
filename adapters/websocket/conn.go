package websocket

import (
	"context"

	ws "github.com/coder/websocket"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/io/bus"
)

// replyChunkBytesMax bounds one WebSocket frame of a reply message. The
// SDKs' WebSocket clients refuse frames above 16 MiB by default (config.md
// [websocket] max_frame_size), while a message may reach 64 MiB, so a big
// reply part goes out as several continuation frames of one message.
const replyChunkBytesMax = 1 << 20

type conn struct {
	id     bus.ConnID
	ws     *ws.Conn
	ctx    context.Context // cancelled by Close: unblocks a stuck read or write
	cancel context.CancelFunc
	adm    *transport.Admission
	q      transport.ReplyQueue
}

func newConn(c *ws.Conn, l transport.Limits) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	cn := &conn{ws: c, ctx: ctx, cancel: cancel}
	// Ending the connection drops it at once: Close runs on the node loop
	// (through the hub), so it must not wait for a close handshake, and the
	// cancel unblocks a write stuck on a client that stopped reading.
	cn.q.Init(l, func() {
		cancel()
		_ = c.CloseNow()
	})
	return cn
}

// Send queues r without blocking (transport.Conn).
func (c *conn) Send(r bus.Reply) bool { return c.q.Put(r, nil) }

// Close drops the connection at once.
func (c *conn) Close() { c.q.End() }

// refuse ends the connection after a bad message with a close frame that
// says why; it runs on the read goroutine, where waiting is harmless (the
// library bounds the close handshake).
func (c *conn) refuse(err error) {
	_ = c.ws.Close(closeStatus(err), "bad frame")
	c.Close()
}

func (c *conn) writeLoop() {
	c.q.Drain(func(o transport.Outgoing) bool { return c.write(o.Reply) == nil })
}

// write sends one reply as one binary message.
func (c *conn) write(r bus.Reply) error {
	w, err := c.ws.Writer(c.ctx, ws.MessageBinary)
	if err != nil {
		return err
	}
	for _, part := range r.Parts {
		for len(part) > 0 {
			n := min(len(part), replyChunkBytesMax)
			if _, err := w.Write(part[:n]); err != nil {
				return err
			}
			part = part[n:]
		}
	}
	return w.Close()
}
