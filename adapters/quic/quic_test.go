package quic

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/iggygo/iggy/adapters/selfsigned"
	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/adapters/transport/transporttest"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

const testTimeout = transporttest.Timeout

// startServer listens on a free port and serves hub.
func startServer(t *testing.T, opts Options, hub *transport.Hub) (*Server, *transporttest.Node) {
	t.Helper()
	cert, err := selfsigned.Certificate()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Listen("127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}}, hub, opts, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return s, transporttest.Run(t, hub, s.Serve, s.Close)
}

// dial connects without ALPN and without verifying the certificate, as the
// Rust SDK does by default.
func dial(t *testing.T, s *Server) *quic.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	qc, err := quic.DialAddr(ctx, s.Addr().String(), &tls.Config{InsecureSkipVerify: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = qc.CloseWithError(0, "") })
	return qc
}

// requestFrame is a request frame of size bytes carrying request id request.
func requestFrame(size int, request uint64) []byte {
	b := make([]byte, size)
	h := wire.RequestHeader{Client: wire.U128{Lo: 1}, Request: request, Session: 1, Operation: wire.OpNonReplicated}
	h.Put(b, size-wire.HeaderSize)
	for i := wire.HeaderSize; i < size; i++ {
		b[i] = byte(i * 3)
	}
	return b
}

// replyFrame is a reply echoing request, with body bytes after the header.
func replyFrame(request uint64, body []byte) []byte {
	b := make([]byte, wire.HeaderSize+len(body))
	wire.ReplyHeader{Request: request, Operation: wire.OpNonReplicated}.Put(b, len(body))
	copy(b[wire.HeaderSize:], body)
	return b
}

// send opens a stream and writes frame; the stream is finished unless keepOpen.
func send(t *testing.T, qc *quic.Conn, frame []byte) *quic.Stream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	st, err := qc.OpenStreamSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Write(frame); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return st
}

func readAll(t *testing.T, st *quic.Stream) []byte {
	t.Helper()
	_ = st.SetReadDeadline(time.Now().Add(testTimeout))
	b, err := io.ReadAll(st)
	if err != nil {
		t.Fatalf("read reply: %v", err)
	}
	return b
}

// One stream carries one request frame in and one reply frame out, then it
// is finished; the connection is one hub connection tagged QUIC.
// covers TRAN-2
func TestStreamRoundTrip(t *testing.T) {
	s, n := startServer(t, Options{StreamsConcurrentMax: 1}, transport.NewHub())
	qc := dial(t, s)
	for i, size := range []int{256, 1000, 200_000} {
		req := requestFrame(size, uint64(i+1))
		st := send(t, qc, req)
		f := transporttest.Recv(t, n.Frames, "frame")
		if !bytes.Equal(f.Frame, req) {
			t.Fatalf("frame of %d bytes differs from the %d sent", len(f.Frame), size)
		}
		if i == 0 {
			if open := transporttest.Recv(t, n.Opened, "ConnOpened"); open.Transport != bus.TransportQUIC || open.Conn != f.Conn {
				t.Fatalf("opened %+v, frame on %d", open, f.Conn)
			}
		}
		body := bytes.Repeat([]byte{byte(i)}, size)
		want := replyFrame(uint64(i+1), body)
		n.Hub.Deliver(bus.Reply{Conn: f.Conn, Parts: [][]byte{want[:100], want[100:]}})
		if got := readAll(t, st); !bytes.Equal(got, want) {
			t.Fatalf("reply of %d bytes, want %d", len(got), len(want))
		}
	}
}

// A reply goes to the stream whose request id it echoes; older streams got
// no reply (a silent drop, protocol-framing.md 4.9) and are finished empty.
// covers TRAN-2
func TestReplyFindsItsStream(t *testing.T) {
	s, n := startServer(t, Options{StreamsConcurrentMax: 4}, transport.NewHub())
	qc := dial(t, s)
	stA := send(t, qc, requestFrame(256, 7))
	fa := transporttest.Recv(t, n.Frames, "frame A")
	stB := send(t, qc, requestFrame(256, 8))
	transporttest.Recv(t, n.Frames, "frame B")
	want := replyFrame(8, []byte("for B"))
	n.Hub.Deliver(bus.Reply{Conn: fa.Conn, Parts: [][]byte{want}})
	if got := readAll(t, stB); !bytes.Equal(got, want) {
		t.Fatalf("B got %q", got)
	}
	if got := readAll(t, stA); len(got) != 0 {
		t.Fatalf("A, silently dropped, got %d bytes", len(got))
	}
	// The connection stays usable.
	stC := send(t, qc, requestFrame(256, 9))
	transporttest.Recv(t, n.Frames, "frame C")
	ev := wire.Eviction{Client: wire.U128{Lo: 1}, Reason: wire.EvictStaleClient}.Bytes()
	n.Hub.Deliver(bus.Reply{Conn: fa.Conn, Parts: [][]byte{ev}})
	if got := readAll(t, stC); !bytes.Equal(got, ev) {
		t.Fatalf("C got %x, want the eviction", got)
	}
}

// An eviction with no stream waiting, a Close from the node, a bad size and
// data after the frame each end the connection; the node hears of it.
// covers TRAN-2
func TestConnectionEnds(t *testing.T) {
	s, n := startServer(t, Options{FrameSizeMax: 4096}, transport.NewHub())
	ev := wire.Eviction{Client: wire.U128{Lo: 1}, Reason: wire.EvictStaleClient}.Bytes()
	short := requestFrame(300, 1)
	binary.LittleEndian.PutUint32(short[48:], 400)
	cases := []struct {
		name  string
		act   func(qc *quic.Conn, id bus.ConnID)
		wants quic.ApplicationErrorCode
	}{
		{"idle eviction", func(_ *quic.Conn, id bus.ConnID) { n.Hub.Deliver(bus.Reply{Conn: id, Parts: [][]byte{ev}}) }, closeNormal},
		{"node close", func(_ *quic.Conn, id bus.ConnID) { n.Hub.Deliver(bus.Reply{Conn: id, Close: true}) }, closeNormal},
		{"over the cap", func(qc *quic.Conn, _ bus.ConnID) { send(t, qc, requestFrame(4097, 1)) }, closeBadFrame},
		{"short", func(qc *quic.Conn, _ bus.ConnID) { send(t, qc, short) }, closeBadFrame},
		{"trailing", func(qc *quic.Conn, _ bus.ConnID) { send(t, qc, append(requestFrame(256, 1), 0)) }, closeBadFrame},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			qc := dial(t, s)
			send(t, qc, requestFrame(256, 1)) // the connection exists for the server once a stream arrives
			f := transporttest.Recv(t, n.Frames, "first frame")
			transporttest.Recv(t, n.Opened, "ConnOpened")
			n.Hub.Deliver(bus.Reply{Conn: f.Conn, Parts: [][]byte{replyFrame(1, nil)}})
			tc.act(qc, f.Conn)
			if cl := transporttest.Recv(t, n.Closed, "ConnClosed"); cl.Conn != f.Conn {
				t.Fatalf("closed %d, want %d", cl.Conn, f.Conn)
			}
			// A frame with trailing data reached the node before the close
			// (inbox order); drop it so the next case starts clean.
			for len(n.Frames) > 0 {
				<-n.Frames
			}
			select {
			case <-qc.Context().Done():
			case <-time.After(testTimeout):
				t.Fatal("client connection still open")
			}
			var appErr *quic.ApplicationError
			if err := context.Cause(qc.Context()); !errors.As(err, &appErr) || appErr.ErrorCode != tc.wants || !appErr.Remote {
				t.Fatalf("closed with %v, want application code %d from the server", err, tc.wants)
			}
		})
	}
}

// A reply stuck on flow control (the client does not read it) does not keep
// the connection alive once the node closes it.
// covers TRAN-2
func TestCloseUnblocksStuckReply(t *testing.T) {
	s, n := startServer(t, Options{}, transport.NewHub())
	qc := dial(t, s)
	send(t, qc, requestFrame(256, 1))
	f := transporttest.Recv(t, n.Frames, "frame")
	transporttest.Recv(t, n.Opened, "ConnOpened")
	big := replyFrame(1, make([]byte, 32<<20)) // far beyond the client's receive window
	n.Hub.Deliver(bus.Reply{Conn: f.Conn, Parts: [][]byte{big}})
	n.Hub.Deliver(bus.Reply{Conn: f.Conn, Close: true})
	if cl := transporttest.Recv(t, n.Closed, "ConnClosed"); cl.Conn != f.Conn {
		t.Fatalf("closed %d, want %d", cl.Conn, f.Conn)
	}
}

// A client that stops reading: the reply its receive window cannot take
// closes the connection once it has waited
// message_bus.client_write_stall_timeout.
// covers FLOW-4
func TestStalledReplyClosesConnection(t *testing.T) {
	const stall = 300 * time.Millisecond
	s, n := startServer(t, Options{}, transport.NewHubLimits(transport.Limits{WriteStallTimeout: stall}))
	qc := dial(t, s)
	send(t, qc, requestFrame(256, 1))
	f := transporttest.Recv(t, n.Frames, "frame")
	transporttest.Recv(t, n.Opened, "ConnOpened")
	transporttest.StallCutOff(t, n, f.Conn, replyFrame(1, make([]byte, 32<<20)), stall)
}

// Before login a QUIC connection gets the small frame cap and must log in
// within the grace; once the node says it is bound, full-size frames pass
// and the deadline no longer applies. Issue 11, items 3 and 7.
func TestPreLoginLimits(t *testing.T) {
	const grace = 300 * time.Millisecond
	hub := transport.NewHubLimits(transport.Limits{Grace: grace})
	s, n := startServer(t, Options{StreamsConcurrentMax: 4}, hub)

	big := dial(t, s)
	if st, err := big.OpenStream(); err == nil {
		// The server may close the connection before the write ends.
		_, _ = st.Write(requestFrame(transport.PreLoginFrameBytesMax+1, 1))
		_ = st.Close()
	}
	transporttest.Recv(t, n.Opened, "ConnOpened")
	transporttest.Recv(t, n.Closed, "ConnClosed of the big frame")

	silent := dial(t, s)
	send(t, silent, requestFrame(wire.HeaderSize, 1)) // a small frame is fine
	transporttest.Recv(t, n.Opened, "ConnOpened")
	transporttest.Recv(t, n.Frames, "the small frame")
	transporttest.Recv(t, n.Closed, "ConnClosed at the login deadline")

	bound := dial(t, s)
	st := send(t, bound, requestFrame(wire.HeaderSize, 1))
	transporttest.Recv(t, n.Opened, "ConnOpened")
	f := transporttest.Recv(t, n.Frames, "the login frame")
	n.Hub.Deliver(bus.Reply{Conn: f.Conn, Parts: [][]byte{replyFrame(1, nil)}, Authenticated: true})
	readAll(t, st)
	time.Sleep(2 * grace)
	req := requestFrame(200_000, 2)
	send(t, bound, req)
	if got := transporttest.Recv(t, n.Frames, "frame after login"); !bytes.Equal(got.Frame, req) {
		t.Fatal("the frame after login differs")
	}
}
