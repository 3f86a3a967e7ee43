package websocket

import (
	"bytes"
	"context"
	"encoding/binary"
	"log/slog"
	"testing"
	"time"

	ws "github.com/coder/websocket"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/adapters/transport/transporttest"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// startServer listens on a free port and serves hub.
func startServer(t *testing.T, opts Options, hub *transport.Hub) (*Server, *transporttest.Node) {
	t.Helper()
	s, err := Listen("127.0.0.1:0", nil, hub, opts, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return s, transporttest.Run(t, hub, s.Serve, s.Close)
}

func dial(t *testing.T, s *Server) *ws.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), transporttest.Timeout)
	defer cancel()
	c, _, err := ws.Dial(ctx, "ws://"+s.Addr().String()+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(-1)
	t.Cleanup(func() { _ = c.CloseNow() })
	return c
}

// requestFrame is a frame of size bytes with a consistent size field.
func requestFrame(size int) []byte {
	b := make([]byte, size)
	binary.LittleEndian.PutUint32(b[48:], uint32(size))
	b[60] = byte(wire.FrameRequest)
	for i := wire.HeaderSize; i < size; i++ {
		b[i] = byte(i * 7)
	}
	return b
}

// One binary message in is one frame to the node, tagged WebSocket; one
// reply out is one binary message, even when its parts exceed a frame chunk.
// covers TRAN-3
func TestFrameRoundTrip(t *testing.T) {
	s, n := startServer(t, Options{}, transport.NewHub())
	c := dial(t, s)
	open := transporttest.Recv(t, n.Opened, "ConnOpened")
	if open.Transport != bus.TransportWebSocket {
		t.Fatalf("transport %d, want WebSocket", open.Transport)
	}
	ctx := context.Background()
	for _, size := range []int{256, 300, 70_000} {
		req := requestFrame(size)
		if err := c.Write(ctx, ws.MessageBinary, req); err != nil {
			t.Fatal(err)
		}
		f := transporttest.Recv(t, n.Frames, "frame")
		if f.Conn != open.Conn || !bytes.Equal(f.Frame, req) {
			t.Fatalf("frame of %d bytes differs from the %d sent", len(f.Frame), size)
		}
	}
	big := bytes.Repeat([]byte{0xAB}, 3*replyChunkBytesMax+5)
	want := append(requestFrame(wire.HeaderSize), big...)
	n.Hub.Deliver(bus.Reply{Conn: open.Conn, Parts: [][]byte{want[:wire.HeaderSize], big}})
	typ, got, err := c.Read(ctx)
	if err != nil || typ != ws.MessageBinary || !bytes.Equal(got, want) {
		t.Fatalf("reply: type %v, %d bytes (want %d), err %v", typ, len(got), len(want), err)
	}
}

// A text message, a bad size field, data after the frame and an oversized
// message each close the connection, and the node hears of the close.
// covers TRAN-3
func TestBadMessagesClose(t *testing.T) {
	const capBytes = 4096
	trailing := append(requestFrame(300), 1)
	short := requestFrame(300)
	binary.LittleEndian.PutUint32(short[48:], 400)
	cases := []struct {
		name   string
		typ    ws.MessageType
		msg    []byte
		status ws.StatusCode
	}{
		{"text", ws.MessageText, requestFrame(256), ws.StatusUnsupportedData},
		{"short", ws.MessageBinary, short, ws.StatusPolicyViolation},
		{"trailing", ws.MessageBinary, trailing, ws.StatusPolicyViolation},
		{"tiny", ws.MessageBinary, []byte{1, 2, 3}, ws.StatusPolicyViolation},
		{"over the cap", ws.MessageBinary, requestFrame(capBytes + 1), ws.StatusPolicyViolation},
	}
	s, n := startServer(t, Options{FrameSizeMax: capBytes}, transport.NewHub())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, s)
			open := transporttest.Recv(t, n.Opened, "ConnOpened")
			if err := c.Write(context.Background(), tc.typ, tc.msg); err != nil {
				t.Fatal(err)
			}
			_, _, err := c.Read(context.Background())
			if got := ws.CloseStatus(err); got != tc.status {
				t.Fatalf("close status %v (err %v), want %v", got, err, tc.status)
			}
			if cl := transporttest.Recv(t, n.Closed, "ConnClosed"); cl.Conn != open.Conn {
				t.Fatalf("closed %d, want %d", cl.Conn, open.Conn)
			}
			select {
			case f := <-n.Frames:
				t.Fatalf("a refused message reached the node: %d bytes", len(f.Frame))
			default:
			}
		})
	}
}

// A reply with Close drops the connection; the client sees it end.
// covers TRAN-3
func TestNodeCloseEndsConnection(t *testing.T) {
	s, n := startServer(t, Options{}, transport.NewHub())
	c := dial(t, s)
	open := transporttest.Recv(t, n.Opened, "ConnOpened")
	n.Hub.Deliver(bus.Reply{Conn: open.Conn, Close: true})
	if _, _, err := c.Read(context.Background()); err == nil {
		t.Fatal("read succeeded on a closed connection")
	}
	transporttest.Recv(t, n.Closed, "ConnClosed")
}

// FuzzReadMessage: any message gives its one frame or an error, never a panic.
func FuzzReadMessage(f *testing.F) {
	f.Add(true, requestFrame(256))
	f.Add(true, requestFrame(1000))
	f.Add(false, requestFrame(256))
	f.Add(true, append(requestFrame(300), 9))
	f.Add(true, []byte{})
	f.Fuzz(func(t *testing.T, binaryMsg bool, msg []byte) {
		typ := ws.MessageText
		if binaryMsg {
			typ = ws.MessageBinary
		}
		frame, err := readMessage(typ, bytes.NewReader(msg), wire.FrameSizeMax, nil)
		if err != nil {
			return
		}
		if !binaryMsg || !bytes.Equal(frame, msg) || len(frame) < wire.HeaderSize {
			t.Fatalf("accepted %d of %d bytes (binary %v)", len(frame), len(msg), binaryMsg)
		}
		if size := binary.LittleEndian.Uint32(frame[48:]); int(size) != len(frame) {
			t.Fatalf("size field %d for %d bytes", size, len(frame))
		}
	})
}

// A reply stuck on a client that does not read does not keep the
// connection alive once the node closes it.
// covers TRAN-3
func TestCloseUnblocksStuckReply(t *testing.T) {
	s, n := startServer(t, Options{}, transport.NewHub())
	dial(t, s)
	open := transporttest.Recv(t, n.Opened, "ConnOpened")
	big := append(requestFrame(wire.HeaderSize), make([]byte, 32<<20)...) // beyond the socket buffers
	n.Hub.Deliver(bus.Reply{Conn: open.Conn, Parts: [][]byte{big}})
	n.Hub.Deliver(bus.Reply{Conn: open.Conn, Close: true})
	if cl := transporttest.Recv(t, n.Closed, "ConnClosed"); cl.Conn != open.Conn {
		t.Fatalf("closed %d, want %d", cl.Conn, open.Conn)
	}
}

// A client that stops reading: the reply it does not take closes the
// connection once it has waited message_bus.client_write_stall_timeout.
// covers FLOW-4
func TestStalledReplyClosesConnection(t *testing.T) {
	const stall = 300 * time.Millisecond
	s, n := startServer(t, Options{}, transport.NewHubLimits(transport.Limits{WriteStallTimeout: stall}))
	dial(t, s)
	open := transporttest.Recv(t, n.Opened, "ConnOpened")
	big := append(requestFrame(wire.HeaderSize), make([]byte, 32<<20)...) // beyond the socket buffers
	transporttest.StallCutOff(t, n, open.Conn, big, stall)
}

// A WebSocket client without a login may send frames of at most 16 KiB and
// is cut off when the grace ends; a bound one sends full-size frames and
// may idle past it. Issue 11, items 3 and 7.
func TestLoginLimits(t *testing.T) {
	ctx := context.Background()
	limits := transport.Limits{Grace: 300 * time.Millisecond}
	hub := transport.NewHubLimits(limits)
	s, n := startServer(t, Options{}, hub)

	big := dial(t, s)
	transporttest.Recv(t, n.Opened, "ConnOpened")
	if err := big.Write(ctx, ws.MessageBinary, requestFrame(transport.PreLoginFrameBytesMax+1)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := big.Read(ctx); err == nil {
		t.Fatal("a frame above the pre-login cap was answered")
	}
	transporttest.Recv(t, n.Closed, "ConnClosed of the big frame")

	silent := dial(t, s)
	transporttest.Recv(t, n.Opened, "ConnOpened")
	if _, _, err := silent.Read(ctx); err == nil {
		t.Fatal("a silent connection got a message")
	}
	transporttest.Recv(t, n.Closed, "ConnClosed at the login deadline")

	bound := dial(t, s)
	open := transporttest.Recv(t, n.Opened, "ConnOpened")
	hub.Deliver(bus.Reply{Conn: open.Conn, Parts: [][]byte{requestFrame(wire.HeaderSize)}, Authenticated: true})
	if _, _, err := bound.Read(ctx); err != nil {
		t.Fatalf("the login reply: %v", err)
	}
	time.Sleep(2 * limits.Grace)
	req := requestFrame(70_000)
	if err := bound.Write(ctx, ws.MessageBinary, req); err != nil {
		t.Fatal(err)
	}
	if f := transporttest.Recv(t, n.Frames, "frame after login"); !bytes.Equal(f.Frame, req) {
		t.Fatal("the frame after login differs")
	}
}
