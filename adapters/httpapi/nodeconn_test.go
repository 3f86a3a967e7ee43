package httpapi

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// fakeNode reads the hub's inbox and answers frames with answer, standing
// in for the node loop.
type fakeNode struct {
	hub    *transport.Hub
	mu     sync.Mutex
	frames []wire.RequestHeader
	closed []bus.ConnID
	// answer returns the reply frame parts for h; nil sends nothing.
	answer func(h wire.RequestHeader, n int) [][]byte
	done   chan struct{}
}

func newFakeNode(t *testing.T, answer func(h wire.RequestHeader, n int) [][]byte) *fakeNode {
	f := &fakeNode{hub: transport.NewHub(), answer: answer, done: make(chan struct{})}
	go f.run()
	t.Cleanup(func() { close(f.done) })
	return f
}

func (f *fakeNode) run() {
	for {
		select {
		case <-f.done:
			return
		case in := <-f.hub.Inbox():
			switch m := in.(type) {
			case node.ClientFrame:
				h, _ := wire.DecodeRequestHeader(m.Frame)
				f.mu.Lock()
				f.frames = append(f.frames, h)
				n := len(f.frames)
				f.mu.Unlock()
				if parts := f.answer(h, n); parts != nil {
					f.hub.Deliver(bus.Reply{Conn: m.Conn, Parts: parts})
				}
			case node.TrustedRegister:
				h := wire.RequestHeader{Client: m.Client, Operation: wire.OpRegister}
				f.hub.Deliver(bus.Reply{Conn: m.Conn, Parts: registerReply(h, 9)})
			case node.ConnClosed:
				f.mu.Lock()
				f.closed = append(f.closed, m.Conn)
				f.mu.Unlock()
			}
		}
	}
}

func (f *fakeNode) seen() ([]wire.RequestHeader, []bus.ConnID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wire.RequestHeader(nil), f.frames...), append([]bus.ConnID(nil), f.closed...)
}

func registerReply(h wire.RequestHeader, userID uint32) [][]byte {
	w := wire.Writer{}
	wire.RegisterReply{UserID: userID, Session: 5, Protocol: wire.ProtocolVersionCurrent, ServerVersion: "test"}.Encode(&w)
	r := wire.ReplyTo(h)
	r.Op = 5
	return wire.ResultFrame(r, w.Buf)
}

// okReply answers h with success and payload in the shape its operation uses.
func okReply(h wire.RequestHeader, payload []byte) [][]byte {
	if h.Operation.ResultFramed(4 + len(payload)) {
		return wire.ResultFrame(wire.ReplyTo(h), payload)
	}
	return wire.RawFrame(wire.ReplyTo(h), payload)
}

func testPolicy() callPolicy {
	return callPolicy{timeout: 2 * time.Second, budget: 2 * time.Second, replay57: true}
}

func TestCallStampsRequestIDsAndReplaysTransientAnswers(t *testing.T) {
	f := newFakeNode(t, func(h wire.RequestHeader, n int) [][]byte {
		if h.Operation == wire.OpRegister {
			return registerReply(h, 3)
		}
		if n == 2 { // the first CreateStream: not accepted, replay it
			return [][]byte{wire.RejectionFrame(wire.ReplyTo(h), wire.TransientNotAccepted)}
		}
		return okReply(h, nil)
	})
	c, err := openConn(f.hub, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.registerPassword("user", "pass", time.Second); err != nil || c.userID != 3 || c.session != 5 {
		t.Fatalf("register: %v user %d session %d", err, c.userID, c.session)
	}
	body := encode(wire.CreateStreamRequest{Name: "s"}.Encode)
	if _, err := c.call(wire.CmdCreateStream, body, testPolicy()); err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := c.call(wire.CmdGetStreams, nil, testPolicy()); err != nil {
		t.Fatalf("get streams: %v", err)
	}
	if _, err := c.call(wire.CmdDeleteStream, body, testPolicy()); err != nil {
		t.Fatalf("delete: %v", err)
	}
	frames, _ := f.seen()
	reqs := []uint64{}
	for _, h := range frames {
		reqs = append(reqs, h.Request)
	}
	// Register 0; the create and its replay share 1; NR reads the current 2
	// without consuming it; the delete consumes 2.
	want := []uint64{0, 1, 1, 2, 2}
	if len(reqs) != len(want) {
		t.Fatalf("request ids %v, want %v", reqs, want)
	}
	for i := range want {
		if reqs[i] != want[i] {
			t.Fatalf("request ids %v, want %v", reqs, want)
		}
	}
}

func TestTimeoutClosesTheConnection(t *testing.T) {
	f := newFakeNode(t, func(h wire.RequestHeader, _ int) [][]byte { return nil })
	c, _ := openConn(f.hub, "test")
	_, err := c.call(wire.CmdPing, nil, callPolicy{timeout: 50 * time.Millisecond})
	if !errors.Is(err, errTimeout) {
		t.Fatalf("err %v, want a timeout", err)
	}
	if !c.isClosed() {
		t.Fatal("a timed-out connection stays open")
	}
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if _, closed := f.seen(); len(closed) == 1 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the node was not told the connection closed")
}

func TestEvictionEndsTheSession(t *testing.T) {
	f := newFakeNode(t, func(h wire.RequestHeader, _ int) [][]byte {
		return [][]byte{wire.Eviction{Client: h.Client, Reason: wire.EvictInvalidToken}.Bytes()}
	})
	c, _ := openConn(f.hub, "test")
	err := c.registerToken("bad", time.Second)
	var ev *evictedError
	if !errors.As(err, &ev) || ev.e.Reason != wire.EvictInvalidToken {
		t.Fatalf("err %v, want eviction 10", err)
	}
	if c.alive() {
		t.Fatal("an evicted connection is alive")
	}
	if e := loginFailure(err); e.status != 401 || e.id != uint32(wire.InvalidPersonalAccessToken) {
		t.Fatalf("login failure %+v", e)
	}
}

func TestTrustedRegisterOpensASession(t *testing.T) {
	f := newFakeNode(t, func(h wire.RequestHeader, _ int) [][]byte { return okReply(h, nil) })
	c, _ := openConn(f.hub, "test")
	if err := c.registerTrusted(wire.NamedID("svc"), time.Second); err != nil || c.userID != 9 || !c.alive() {
		t.Fatalf("trusted register: %v user %d", err, c.userID)
	}
}

// An ack=none send returns once dispatched; the session's next request
// waits until that send has its reply.
// covers MSG-17, MSG-18, MSG-19
func TestDispatchHoldsTheSessionUntilTheReply(t *testing.T) {
	release := make(chan struct{})
	var hub *transport.Hub
	f := newFakeNode(t, func(h wire.RequestHeader, n int) [][]byte {
		if h.Operation == wire.OpSendMessages {
			go func(conn bus.ConnID) { // answer later, as a slow disk would
				<-release
				w := wire.Writer{}
				wire.EncodeSendConfirmations(&w, nil)
				hub.Deliver(bus.Reply{Conn: conn, Parts: wire.RawFrame(wire.ReplyTo(h), w.Buf)})
			}(bus.ConnID(1))
			return nil
		}
		return okReply(h, nil)
	})
	hub = f.hub
	c, _ := openConn(f.hub, "test")
	c.session = 5
	settled := make(chan error, 1)
	c.dispatch(wire.CmdSendMessages, []byte{1}, testPolicy(), func(err error) { settled <- err })
	next := make(chan error, 1)
	go func() {
		_, err := c.call(wire.CmdPing, nil, testPolicy())
		next <- err
	}()
	select {
	case <-next:
		t.Fatal("the next request ran before the ack=none send settled")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-settled; err != nil {
		t.Fatalf("dispatched send: %v", err)
	}
	if err := <-next; err != nil {
		t.Fatalf("next request: %v", err)
	}
}
