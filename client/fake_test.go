package client

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/iggygo/iggy/wire"
)

// fakeServer is a tiny scripted server: it reads request frames, records
// them, and answers each with whatever the handler returns (nil = no reply).
type fakeServer struct {
	t        *testing.T
	ln       net.Listener
	handler  func(h wire.RequestHeader, body []byte) [][]byte
	mu       sync.Mutex
	requests []fakeRequest
}

type fakeRequest struct {
	header wire.RequestHeader
	frame  []byte
}

func newFakeServer(t *testing.T, handler func(h wire.RequestHeader, body []byte) [][]byte) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return newFakeServerOn(t, ln, handler)
}

// newFakeServerOn serves on ln (a TLS listener, for instance).
func newFakeServerOn(t *testing.T, ln net.Listener, handler func(h wire.RequestHeader, body []byte) [][]byte) *fakeServer {
	t.Helper()
	s := &fakeServer{t: t, ln: ln, handler: handler}
	t.Cleanup(func() { ln.Close() })
	go s.serve()
	return s
}

func (s *fakeServer) serve() {
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.serveConn(conn)
	}
}

func (s *fakeServer) serveConn(conn net.Conn) {
	defer conn.Close()
	for {
		head := make([]byte, wire.HeaderSize)
		if _, err := io.ReadFull(conn, head); err != nil {
			return
		}
		p, code := wire.DecodePrologue(head)
		if code != wire.OK {
			return
		}
		frame := make([]byte, p.Size)
		copy(frame, head)
		if _, err := io.ReadFull(conn, frame[wire.HeaderSize:]); err != nil {
			return
		}
		h, verdict := wire.DecodeRequestHeader(frame)
		if verdict != wire.VerdictAccept {
			s.t.Errorf("fake server: request header verdict %d", verdict)
			return
		}
		s.mu.Lock()
		s.requests = append(s.requests, fakeRequest{header: h, frame: frame})
		s.mu.Unlock()
		for _, part := range s.handler(h, frame[wire.HeaderSize:]) {
			if _, err := conn.Write(part); err != nil {
				return
			}
		}
	}
}

func (s *fakeServer) received() []fakeRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]fakeRequest(nil), s.requests...)
}

func (s *fakeServer) dial(t *testing.T) *Client {
	t.Helper()
	c, err := Dial(context.Background(), s.ln.Addr().String(), Options{RequestTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// fakeSession is the session number the fake server hands out.
const fakeSession = 77

// okHandler answers every request with the success shape its operation uses.
func okHandler(h wire.RequestHeader, body []byte) [][]byte {
	rh := wire.ReplyTo(h)
	switch {
	case h.Operation == wire.OpRegister:
		var w wire.Writer
		wire.RegisterReply{UserID: 5, Session: fakeSession, Protocol: wire.ProtocolVersionCurrent, ServerVersion: "fake"}.Encode(&w)
		rh.Op = fakeSession
		return wire.ResultFrame(rh, w.Buf)
	case h.Operation == wire.OpSendMessages:
		return wire.RawFrame(rh, []byte{0, 0, 0, 0})
	case h.Operation == wire.OpNonReplicated || h.Operation == wire.OpLogout:
		return wire.RawFrame(rh)
	case h.Operation == wire.OpDeleteSegments:
		rh.Operation = wire.OpTruncatePartition
		return wire.ResultFrame(rh)
	}
	return wire.ResultFrame(rh)
}
