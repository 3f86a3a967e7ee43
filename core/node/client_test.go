package node_test

import (
	"bytes"
	"fmt"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// simClient is one named client as an SDK keeps it: a client id, a request
// counter, a session, and the requests whose reply is due. It outlives its
// connections, so a client can reconnect and resume under the same id.
type simClient struct {
	name     string
	conn     bus.ConnID // 0 while not connected
	id       wire.U128
	counter  uint64
	session  uint64
	evicted  bool
	awaiting []*request
	sent     map[uint64]*request // metadata requests by id, for resends
	last     *request            // the last request sent, for resends
}

// request is one frame sent and how to read its reply.
type request struct {
	client *simClient
	what   string
	cmd    int // the script command that sent it
	frame  []byte
	header wire.RequestHeader
	decode decoder
	reply  []byte   // the reply frame, header included
	body   []byte   // the reply's body
	orig   *request // for a resend, the request first sent with this id
	held   bool     // the node holds it (a login in backoff): quiet is no verdict
}

// decoder turns a successful reply payload into an output line.
type decoder func(w *world, c *simClient, payload []byte) string

// reset forgets the session; the next connect draws a fresh client id, as
// the SDK does after an eviction.
func (c *simClient) reset() {
	c.id, c.counter, c.session = wire.U128{}, 0, 0
}

// fresh starts a new session identity: a fresh client id whose request ids
// start at 1 (protocol-framing.md 4.5).
func (c *simClient) fresh(w *world) {
	c.id, c.counter, c.session = w.newClientID(), 1, 0
	c.sent = map[uint64]*request{}
}

// lost drops the connection without telling the node (it died).
func (c *simClient) lost(w *world) {
	for _, r := range c.awaiting {
		w.printf("%sno reply, the node went down (%s)", r.prefix(w), r.what)
	}
	c.awaiting = nil
	c.conn = 0
}

// prefix names the client on lines that are not about the current command.
func (r *request) prefix(w *world) string {
	if r.cmd == w.cmd && r.client == w.current {
		return ""
	}
	return r.client.name + ": "
}

func (c *simClient) prefix(w *world) string {
	if c == w.current {
		return ""
	}
	return c.name + ": "
}

// stamp fills a request header by the SDK's rules (protocol-framing.md 4.5).
func (c *simClient) stamp(op wire.Operation, code wire.Command) wire.RequestHeader {
	h, next := wire.StampRequest(c.id, op, code, c.counter, c.session)
	c.counter = next
	return h
}

func buildFrame(h wire.RequestHeader, body []byte) []byte {
	frame := make([]byte, wire.HeaderSize+len(body))
	h.Put(frame, len(body))
	copy(frame[wire.HeaderSize:], body)
	return frame
}

// call sends a command's frame, stamped by the SDK's rules.
func (w *world) call(c *simClient, what string, code wire.Command, body []byte, dec decoder) *request {
	op := wire.OperationForCommand(code)
	h := c.stamp(op, code)
	return w.transmit(&request{client: c, what: what, frame: buildFrame(h, body), header: h, decode: dec})
}

// transmit steps the node with a copy of the frame (the node may patch a
// send's batch in place; the original stays for resends).
func (w *world) transmit(r *request) *request {
	w.t.Helper()
	w.requireUp()
	c := r.client
	if c.conn == 0 {
		w.t.Fatalf("%s is not connected", c.name)
	}
	r.cmd = w.cmd
	c.awaiting = append(c.awaiting, r)
	c.last = r
	if r.orig == nil && r.header.Operation.Metadata() {
		c.sent[r.header.Request] = r
	}
	w.node.Step(node.ClientFrame{Conn: c.conn, Frame: bytes.Clone(r.frame)})
	return r
}

// received reads one frame the node sent to c.
func (c *simClient) received(w *world, frame []byte) {
	p, code := wire.DecodePrologue(frame)
	if code != wire.OK {
		w.printf("%sunreadable frame of %d bytes", c.prefix(w), len(frame))
		return
	}
	if p.Command == wire.FrameEviction {
		c.evictedBy(w, frame)
		return
	}
	h, code := wire.DecodeReplyHeader(frame)
	if code != wire.OK {
		w.printf("%sbad reply header: %s", c.prefix(w), code.Name())
		return
	}
	r := c.take(h)
	if r == nil {
		w.printf("%sunexpected reply: operation %d request %d", c.prefix(w), h.Operation, h.Request)
		return
	}
	r.reply = bytes.Clone(frame)
	body := r.reply[wire.HeaderSize:]
	r.body = body
	line := r.readReply(w, h, body)
	if r.orig != nil && r.orig.body != nil && bytes.Equal(body, r.orig.body) {
		line += " (the first reply's body)"
	}
	w.printf("%s%s", r.prefix(w), line)
}

// take removes the awaited request a reply answers (request id and
// operation echo; DeleteSegments is answered as 68).
func (c *simClient) take(h wire.ReplyHeader) *request {
	for i, r := range c.awaiting {
		op := r.header.Operation
		if op == wire.OpDeleteSegments && h.Operation == wire.OpTruncatePartition {
			op = h.Operation
		}
		if r.header.Request == h.Request && op == h.Operation && r.header.Client == h.Client {
			c.awaiting = append(c.awaiting[:i], c.awaiting[i+1:]...)
			return r
		}
	}
	return nil
}

func (c *simClient) evictedBy(w *world, frame []byte) {
	e, code := wire.DecodeEviction(frame)
	prefix := c.prefix(w)
	if len(c.awaiting) > 0 {
		prefix = c.awaiting[0].prefix(w)
		c.awaiting = c.awaiting[1:]
	}
	if code != wire.OK {
		w.printf("%smalformed eviction", prefix)
	} else if e.Reason == wire.EvictIncompatibleProtocol {
		w.printf("%sevicted reason=%d window=%s..%s", prefix, e.Reason, e.VersionMin, e.VersionMax)
	} else {
		w.printf("%sevicted reason=%d", prefix, e.Reason)
	}
	c.evicted = true
	c.reset()
}

// readReply classifies a reply: header status, result entry, or payload.
func (r *request) readReply(w *world, h wire.ReplyHeader, body []byte) string {
	if h.Status != wire.OK {
		if len(body) != 0 {
			return fmt.Sprintf("status=%d %s with a %d-byte body", h.Status, h.Status.Name(), len(body))
		}
		return fmt.Sprintf("status=%d %s", h.Status, h.Status.Name())
	}
	rb, code := wire.SplitReplyBody(h, body)
	switch {
	case code != wire.OK:
		return fmt.Sprintf("malformed reply body (%d bytes): %s", len(body), code.Name())
	case rb.Result != wire.OK:
		return fmt.Sprintf("result=%d %s", rb.Result, rb.Result.Name())
	}
	return r.decode(w, r.client, rb.Payload)
}
