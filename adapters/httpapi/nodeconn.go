package httpapi

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// Bounds of one node connection.
const (
	// replyQueueCapacity bounds replies waiting for the request that awaits
	// them. One request is in flight per connection, so one slot is used;
	// the rest absorbs an unsolicited eviction.
	replyQueueCapacity = 8
	// transientRetryInterval is the replay period of a 57/58 answer, as the SDKs do.
	transientRetryInterval = 50 * time.Millisecond
	// requestCounterFirst is the first request id of a fresh client id.
	requestCounterFirst = 1
	// clientIDDrawsMax bounds the draws of a nonzero random client id.
	clientIDDrawsMax = 8
	sdkName          = "iggy-http"
	sdkVersion       = "0.12.2"
)

// errTimeout: the node did not answer in time. The connection was closed, so
// the outcome of a write is unknown.
var errTimeout = errors.New("httpapi: node did not answer in time")

// errConnClosed: the connection was closed (by the hub or by a timeout).
var errConnClosed = errors.New("httpapi: node connection closed")

// codeError is the node's refusal: a header status or a result entry.
type codeError struct{ code wire.Code }

func (e *codeError) Error() string { return fmt.Sprintf("node refused: %d %s", e.code, e.code.Name()) }

// evictedError is an Eviction frame in place of a reply: the session is gone.
type evictedError struct{ e wire.Eviction }

func (e *evictedError) Error() string { return fmt.Sprintf("evicted, reason %d", e.e.Reason) }

// nodeConn is the adapter's end of one hub connection, the way a TCP socket
// is a binary client's: it stamps request headers by the SDK rules
// (protocol-framing.md 4.5), hands frames to the node and waits for the
// reply. The node answers a connection's requests one at a time, in order,
// so mu serializes them and the next reply is always the awaited one.
type nodeConn struct {
	hub     *transport.Hub
	id      bus.ConnID
	replies chan bus.Reply
	closed  chan struct{}
	once    sync.Once

	mu      sync.Mutex // held for a whole request (the node answers in order)
	client  wire.U128
	counter uint64
	session uint64 // 0 until a Register reply; 0 again after an eviction
	userID  uint32
}

// openConn opens an HTTP-transport connection to the node with a fresh client id.
func openConn(hub *transport.Hub, addr string) (*nodeConn, error) {
	client, err := drawClientID()
	if err != nil {
		return nil, err
	}
	c := &nodeConn{hub: hub, replies: make(chan bus.Reply, replyQueueCapacity), closed: make(chan struct{}),
		client: client, counter: requestCounterFirst}
	c.id, _ = hub.Open(c, bus.TransportHTTP, addr) // the adapter binds it itself (TrustedRegister): no login deadline
	return c, nil
}

func drawClientID() (wire.U128, error) {
	var b [16]byte
	for range clientIDDrawsMax {
		if _, err := rand.Read(b[:]); err != nil {
			return wire.U128{}, fmt.Errorf("draw client id: %w", err)
		}
		id := wire.U128{Lo: binary.LittleEndian.Uint64(b[0:]), Hi: binary.LittleEndian.Uint64(b[8:])}
		if !id.IsZero() {
			return id, nil
		}
	}
	return wire.U128{}, errors.New("draw client id: crypto/rand kept returning zero")
}

// Send is the hub's delivery of a reply; it never blocks.
func (c *nodeConn) Send(r bus.Reply) bool {
	select {
	case <-c.closed:
		return true
	case c.replies <- r:
		return true
	default:
		return false
	}
}

// Close is the hub's (or our own) end of the connection.
func (c *nodeConn) Close() { c.once.Do(func() { close(c.closed) }) }

// release closes the connection and tells the node (an implicit logout).
func (c *nodeConn) release() {
	c.Close()
	c.hub.Closed(c.id)
}

// alive reports whether the connection is open and holds a session.
func (c *nodeConn) alive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.aliveLocked()
}

func (c *nodeConn) aliveLocked() bool { return !c.isClosed() && c.session != 0 }

// stampLocked builds the header for op by the SDK's request-numbering
// rules (wire.StampRequest) and keeps the counter it leaves.
func (c *nodeConn) stampLocked(op wire.Operation, code wire.Command) wire.RequestHeader {
	h, next := wire.StampRequest(c.client, op, code, c.counter, c.session)
	c.counter = next
	return h
}

// callPolicy says how long to wait and which transient answers to replay.
type callPolicy struct {
	timeout time.Duration // one round trip
	budget  time.Duration // replays of transient answers
	// replay57 allows replaying 57 (may still commit): only for ops the node
	// deduplicates by request id (metadata ops).
	replay57 bool
}

// call sends code with body and returns the reply payload (after the result
// section for result-framed operations).
func (c *nodeConn) call(code wire.Command, body []byte, p callPolicy) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.callLocked(code, body, p)
}

func (c *nodeConn) callLocked(code wire.Command, body []byte, p callPolicy) ([]byte, error) {
	op := wire.OperationForCommand(code)
	h := c.stampLocked(op, code)
	frame := buildFrame(h, body)
	retryUntil := time.Now().Add(p.budget)
	for {
		payload, err := c.roundTripLocked(h, func() { c.hub.Frame(c.id, frame) }, p.timeout)
		var ce *codeError
		if errors.As(err, &ce) && retryable(ce.code, p.replay57) && time.Now().Before(retryUntil) {
			time.Sleep(transientRetryInterval)
			frame = buildFrame(h, body) // the node may keep slices of a frame
			continue
		}
		return payload, err
	}
}

func retryable(code wire.Code, replay57 bool) bool {
	return code == wire.TransientNotAccepted || (replay57 && code == wire.TransientNotCommitted)
}

func buildFrame(h wire.RequestHeader, body []byte) []byte {
	frame := make([]byte, wire.HeaderSize+len(body))
	h.Put(frame, len(body))
	copy(frame[wire.HeaderSize:], body)
	return frame
}

// roundTripLocked performs send and waits for the reply to h. A timeout or
// a malformed or mismatched reply closes the connection: what the node did
// with the request is then unknown, and no late reply can be mistaken for
// the next request's.
func (c *nodeConn) roundTripLocked(h wire.RequestHeader, send func(), timeout time.Duration) ([]byte, error) {
	select {
	case <-c.closed:
		return nil, errConnClosed
	default:
	}
	send()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var r bus.Reply
	select {
	case r = <-c.replies:
	case <-c.closed:
		select {
		case r = <-c.replies: // delivered just before the close
		default:
			return nil, errConnClosed
		}
	case <-timer.C:
		c.release()
		return nil, errTimeout
	}
	payload, err := c.interpret(h, joinParts(r.Parts))
	var ce *codeError
	if err != nil && !errors.As(err, &ce) {
		// An eviction ends the session; garbage ends the stream. Either
		// way the connection is of no further use (the SDK closes it too).
		c.session = 0
		c.release()
	}
	return payload, err
}

// joinParts copies a reply into one buffer; the node may share its parts.
func joinParts(parts [][]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// interpret reads one frame as the SDK does: an eviction, or a reply that
// must echo h's request id and operation.
func (c *nodeConn) interpret(h wire.RequestHeader, frame []byte) ([]byte, error) {
	p, code := wire.DecodePrologue(frame)
	if code != wire.OK {
		return nil, fmt.Errorf("node reply: bad prologue (%s)", code.Name())
	}
	if p.Command == wire.FrameEviction {
		e, code := wire.DecodeEviction(frame)
		if code != wire.OK {
			return nil, fmt.Errorf("node eviction: malformed (%s)", code.Name())
		}
		return nil, &evictedError{e: e}
	}
	rh, code := wire.DecodeReplyHeader(frame)
	if code != wire.OK {
		return nil, fmt.Errorf("node reply: bad header (%s)", code.Name())
	}
	opOK := rh.Operation == h.Operation ||
		(h.Operation == wire.OpDeleteSegments && rh.Operation == wire.OpTruncatePartition)
	if rh.Request != h.Request || !opOK {
		return nil, fmt.Errorf("node reply: request %d op %d, sent %d op %d", rh.Request, rh.Operation, h.Request, h.Operation)
	}
	body, code := wire.SplitReplyBody(rh, frame[wire.HeaderSize:])
	if code != wire.OK {
		return nil, fmt.Errorf("node reply: malformed body for operation %d", h.Operation)
	}
	if body.Result != wire.OK {
		return nil, &codeError{code: body.Result}
	}
	return body.Payload, nil
}

// registerPassword logs the connection in with a username and password.
func (c *nodeConn) registerPassword(username, password string, timeout time.Duration) error {
	return c.register(func(w *wire.Writer) {
		wire.LoginPassword{Username: username, Password: password}.Encode(w)
	}, timeout)
}

// registerToken logs the connection in with a personal access token. On a
// bound connection the node checks the token again without a new session.
func (c *nodeConn) registerToken(token string, timeout time.Duration) error {
	return c.register(func(w *wire.Writer) { wire.LoginToken{Token: token}.Encode(w) }, timeout)
}

func (c *nodeConn) register(creds func(*wire.Writer), timeout time.Duration) error {
	var w wire.Writer
	wire.LoginPrefix{Version: wire.ProtocolVersionCurrent, SDKName: sdkName, SDKVersion: sdkVersion}.Encode(&w)
	creds(&w)
	c.mu.Lock()
	defer c.mu.Unlock()
	payload, err := c.callLocked(wire.CmdLoginRegister, w.Buf, callPolicy{timeout: timeout, budget: timeout})
	if err != nil {
		return err
	}
	return c.boundLocked(payload)
}

// registerTrusted asks the node for a session of user without a credential
// (node.TrustedRegister); the caller has verified the bearer already.
func (c *nodeConn) registerTrusted(user wire.Identifier, timeout time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := wire.RequestHeader{Client: c.client, Operation: wire.OpRegister}
	in := node.TrustedRegister{Conn: c.id, Client: c.client, User: user}
	retryUntil := time.Now().Add(timeout)
	for {
		payload, err := c.roundTripLocked(h, func() { c.hub.Input(in) }, timeout)
		var ce *codeError
		if errors.As(err, &ce) && retryable(ce.code, false) && time.Now().Before(retryUntil) {
			time.Sleep(transientRetryInterval)
			continue
		}
		if err != nil {
			return err
		}
		return c.boundLocked(payload)
	}
}

func (c *nodeConn) boundLocked(payload []byte) error {
	reg, code := wire.DecodeRegisterReply(payload)
	if code != wire.OK {
		c.release()
		return fmt.Errorf("node register reply: malformed (%s)", code.Name())
	}
	c.session, c.userID = reg.Session, reg.UserID
	return nil
}

// logout ends the session (best effort) and closes the connection.
func (c *nodeConn) logout(timeout time.Duration) {
	c.mu.Lock()
	if c.aliveLocked() {
		_, _ = c.callLocked(wire.CmdLogoutUser, nil, callPolicy{timeout: timeout})
	}
	c.mu.Unlock()
	c.release()
}

// dispatch sends code and returns once the frame is with the node; the
// reply is awaited in the background, and the connection stays held until
// it arrives, so the session's next request waits for this one to settle.
func (c *nodeConn) dispatch(code wire.Command, body []byte, p callPolicy, done func(error)) {
	c.mu.Lock()
	h := c.stampLocked(wire.OperationForCommand(code), code)
	frame := buildFrame(h, body)
	var once sync.Once
	sent := make(chan struct{})
	markSent := func() { once.Do(func() { close(sent) }) }
	go func() {
		defer c.mu.Unlock()
		_, err := c.roundTripLocked(h, func() { c.hub.Frame(c.id, frame); markSent() }, p.timeout)
		markSent() // the connection was closed before the frame went out
		done(err)
	}()
	<-sent
}

// isClosed reports whether the connection was closed.
func (c *nodeConn) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}
