package client

import (
	"fmt"
	"time"

	"github.com/iggygo/iggy/wire"
)

// stampLocked fills the request header for op the way the Go SDK does
// (protocol-framing.md 4.5): Register sends request 0 and session 0; NR and
// partition ops send the current counter without consuming it; Logout and
// metadata ops consume it. Ops other than Register, NR and Ping-like NR need
// a bound session and are refused locally without one.
func (c *Client) stampLocked(op wire.Operation, code wire.Command) (wire.RequestHeader, error) {
	s := &c.session
	h := wire.RequestHeader{Client: s.clientID, Operation: op}
	switch {
	case op == wire.OpRegister:
		// request and session stay 0 (1.4).
	case op == wire.OpNonReplicated:
		h.Request, h.Session, h.NRCode = s.counter, s.session, code
	case op == wire.OpLogout || op.Metadata():
		if !s.bound() {
			return wire.RequestHeader{}, ErrNotLoggedIn
		}
		h.Request, h.Session = s.counter, s.session
		s.counter++
	case op.Partition():
		if !s.bound() {
			return wire.RequestHeader{}, ErrNotLoggedIn
		}
		h.Request, h.Session = s.counter, s.session
	default:
		return wire.RequestHeader{}, fmt.Errorf("iggy: operation %d is not client-sendable", op)
	}
	return h, nil
}

// request is one frame to send: the 256-byte header and the body apart,
// so a large body (a send's batch) is written as it is, never copied.
type request struct {
	head []byte
	body []byte
}

func newRequest(h wire.RequestHeader, body []byte) request {
	return request{head: h.Bytes(len(body)), body: body}
}

func (r request) size() int { return len(r.head) + len(r.body) }

// call sends the command code with body and returns the reply's payload: the
// raw body for raw replies, the bytes after the result section for framed
// ones. A nonzero status or result is *Error; an eviction is *EvictedError.
func (c *Client) call(code wire.Command, body []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.callLocked(wire.OperationForCommand(code), code, body)
}

func (c *Client) callLocked(op wire.Operation, code wire.Command, body []byte) ([]byte, error) {
	if c.conn == nil {
		return nil, ErrClosed
	}
	h, err := c.stampLocked(op, code)
	if err != nil {
		return nil, err
	}
	req := newRequest(h, body)
	retryUntil := time.Now().Add(c.opts.TransientBudget)
	for {
		r, err := c.roundTripLocked(req)
		if err != nil {
			return nil, err
		}
		if r.evicted != nil {
			return nil, r.evicted
		}
		if err := checkEcho(h, r.header); err != nil {
			c.closeLocked()
			return nil, err
		}
		rb, code := wire.SplitReplyBody(r.header, r.body)
		if code != wire.OK {
			c.closeLocked()
			return nil, fmt.Errorf("%w: malformed reply body for operation %d", ErrProtocol, h.Operation)
		}
		// 57/58 are transient: replay the identical frame, same request id,
		// so the server's duplicate detection sees one request (1.8).
		if transient(rb.Result) && time.Now().Before(retryUntil) {
			time.Sleep(transientRetryInterval)
			continue
		}
		if rb.Result != wire.OK {
			return nil, &Error{Code: rb.Result}
		}
		return rb.Payload, nil
	}
}

func transient(code wire.Code) bool {
	return code == wire.TransientNotCommitted || code == wire.TransientNotAccepted
}

// checkEcho applies the SDK's reply checks: the request id must echo the
// one sent, and the operation must echo it (DeleteSegments may answer as 68).
func checkEcho(sent wire.RequestHeader, got wire.ReplyHeader) error {
	if got.Request != sent.Request {
		return fmt.Errorf("%w: reply request id %d, sent %d", ErrProtocol, got.Request, sent.Request)
	}
	opOK := got.Operation == sent.Operation ||
		(sent.Operation == wire.OpDeleteSegments && got.Operation == wire.OpTruncatePartition)
	if !opOK {
		return fmt.Errorf("%w: reply operation %d, sent %d", ErrProtocol, got.Operation, sent.Operation)
	}
	return nil
}

// Do sends one request for tests that need raw frames. The header is stamped
// by the SDK rules for op (code is written only for NR), without the local
// "needs a session" refusal. The reply comes back uninterpreted; err is set
// only for an eviction (*EvictedError) or a transport failure.
func (c *Client) Do(op wire.Operation, code wire.Command, body []byte) (wire.ReplyHeader, []byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &c.session
	h := wire.RequestHeader{Client: s.clientID, Operation: op, Request: s.counter, Session: s.session}
	switch {
	case op == wire.OpRegister:
		h.Request, h.Session = 0, 0
	case op == wire.OpNonReplicated:
		h.NRCode = code
	case op == wire.OpLogout || op.Metadata():
		s.counter++
	}
	return c.doLocked(h, body)
}

// DoHeader sends body under exactly the header h (a zero Client is replaced
// by the session's client id), for tests of header rules. The reply comes
// back uninterpreted, as from Do.
func (c *Client) DoHeader(h wire.RequestHeader, body []byte) (wire.ReplyHeader, []byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h.Client.IsZero() {
		h.Client = c.session.clientID
	}
	return c.doLocked(h, body)
}

func (c *Client) doLocked(h wire.RequestHeader, body []byte) (wire.ReplyHeader, []byte, error) {
	r, err := c.roundTripLocked(newRequest(h, body))
	if err != nil {
		return wire.ReplyHeader{}, nil, err
	}
	if r.evicted != nil {
		return wire.ReplyHeader{}, nil, r.evicted
	}
	return r.header, r.body, nil
}
