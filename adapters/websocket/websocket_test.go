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
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

const testTimeout = 10 * time.Second

// fakeNode stands in for the node loop: it drains the hub's inbox into channels.
type fakeNode struct {
	hub    *transport.Hub
	opened chan bus.ConnOpened
	frames chan bus.ClientFrame
	closed chan bus.ConnClosed
}

func startServer(t *testing.T, opts Options) (*Server, *fakeNode) {
	t.Helper()
	hub := transport.NewHub()
	s, err := Listen("127.0.0.1:0", nil, hub, opts, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	n := &fakeNode{hub: hub, opened: make(chan bus.ConnOpened, 16), frames: make(chan bus.ClientFrame, 16), closed: make(chan bus.ConnClosed, 16)}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case in := <-hub.Inbox():
				switch m := in.(type) {
				case bus.ConnOpened:
					n.opened <- m
				case bus.ClientFrame:
					n.frames <- m
				case bus.ConnClosed:
					n.closed <- m
				}
			}
		}
	}()
	t.Cleanup(func() {
		_ = s.Close()
		hub.CloseAll()
		close(stop)
	})
	return s, n
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testTimeout):
		t.Fatalf("no %s within %v", what, testTimeout)
		panic("unreachable")
	}
}

func dial(t *testing.T, s *Server) *ws.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
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
	s, n := startServer(t, Options{})
	c := dial(t, s)
	open := recv(t, n.opened, "ConnOpened")
	if open.Transport != bus.TransportWebSocket {
		t.Fatalf("transport %d, want WebSocket", open.Transport)
	}
	ctx := context.Background()
	for _, size := range []int{256, 300, 70_000} {
		req := requestFrame(size)
		if err := c.Write(ctx, ws.MessageBinary, req); err != nil {
			t.Fatal(err)
		}
		f := recv(t, n.frames, "frame")
		if f.Conn != open.Conn || !bytes.Equal(f.Frame, req) {
			t.Fatalf("frame of %d bytes differs from the %d sent", len(f.Frame), size)
		}
	}
	big := bytes.Repeat([]byte{0xAB}, 3*replyChunkBytesMax+5)
	want := append(requestFrame(wire.HeaderSize), big...)
	n.hub.Deliver(bus.Reply{Conn: open.Conn, Parts: [][]byte{want[:wire.HeaderSize], big}})
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
	s, n := startServer(t, Options{FrameSizeMax: capBytes})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, s)
			open := recv(t, n.opened, "ConnOpened")
			if err := c.Write(context.Background(), tc.typ, tc.msg); err != nil {
				t.Fatal(err)
			}
			_, _, err := c.Read(context.Background())
			if got := ws.CloseStatus(err); got != tc.status {
				t.Fatalf("close status %v (err %v), want %v", got, err, tc.status)
			}
			if cl := recv(t, n.closed, "ConnClosed"); cl.Conn != open.Conn {
				t.Fatalf("closed %d, want %d", cl.Conn, open.Conn)
			}
			select {
			case f := <-n.frames:
				t.Fatalf("a refused message reached the node: %d bytes", len(f.Frame))
			default:
			}
		})
	}
}

// A reply with Close drops the connection; the client sees it end.
// covers TRAN-3
func TestNodeCloseEndsConnection(t *testing.T) {
	s, n := startServer(t, Options{})
	c := dial(t, s)
	open := recv(t, n.opened, "ConnOpened")
	n.hub.Deliver(bus.Reply{Conn: open.Conn, Close: true})
	if _, _, err := c.Read(context.Background()); err == nil {
		t.Fatal("read succeeded on a closed connection")
	}
	recv(t, n.closed, "ConnClosed")
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
	s, n := startServer(t, Options{})
	dial(t, s)
	open := recv(t, n.opened, "ConnOpened")
	big := append(requestFrame(wire.HeaderSize), make([]byte, 32<<20)...) // beyond the socket buffers
	n.hub.Deliver(bus.Reply{Conn: open.Conn, Parts: [][]byte{big}})
	n.hub.Deliver(bus.Reply{Conn: open.Conn, Close: true})
	if cl := recv(t, n.closed, "ConnClosed"); cl.Conn != open.Conn {
		t.Fatalf("closed %d, want %d", cl.Conn, open.Conn)
	}
}
