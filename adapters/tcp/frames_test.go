package tcp

import (
	"bytes"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/adapters/transport/transporttest"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// frameOf is a frame of size bytes (only the size field matters here).
func frameOf(size int) []byte {
	b := bytes.Repeat([]byte{7}, size)
	binary.LittleEndian.PutUint32(b[48:], uint32(size))
	return b
}

// A logged-in connection idles past the deadline its last frame left set
// and is still read (the idle wait clears it); a frame it leaves half sent
// closes it at its deadline. Issue 11, item 7.
func TestFrameDeadlinesAfterLogin(t *testing.T) {
	const grace = 100 * time.Millisecond
	c, n := serveOne(t, grace)
	hub := n.Hub
	open := transporttest.Recv(t, n.Opened, "ConnOpened")
	hub.Deliver(bus.Reply{Conn: open.Conn, Parts: [][]byte{make([]byte, wire.HeaderSize)}, Authenticated: true})
	if _, err := io.ReadFull(c, make([]byte, wire.HeaderSize)); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		f := frameOf(wire.HeaderSize + 1000)
		if _, err := c.Write(f); err != nil {
			t.Fatal(err)
		}
		if got := transporttest.Recv(t, n.Frames, "frame"); !bytes.Equal(got.Frame, f) {
			t.Fatalf("frame %d differs", i)
		}
		time.Sleep(4 * grace) // past the frame's deadline, idle
	}
	if _, err := c.Write(frameOf(wire.HeaderSize + 1000)[:300]); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	transporttest.Recv(t, n.Closed, "ConnClosed of the half frame")
	if took := time.Since(start); took < grace/2 {
		t.Fatalf("closed after %v, before the frame's deadline", took)
	}
}

// Before login a frame above the pre-login cap closes the connection at
// its header; one within it is read. Issue 11, item 3.
func TestPreLoginFrameCap(t *testing.T) {
	c, n := serveOne(t, time.Minute)
	transporttest.Recv(t, n.Opened, "ConnOpened")
	small := frameOf(transport.PreLoginFrameBytesMax)
	if _, err := c.Write(small); err != nil {
		t.Fatal(err)
	}
	transporttest.Recv(t, n.Frames, "a frame at the cap")
	if _, err := c.Write(frameOf(transport.PreLoginFrameBytesMax + 1)[:wire.HeaderSize]); err != nil {
		t.Fatal(err)
	}
	transporttest.Recv(t, n.Closed, "ConnClosed of a frame above the cap")
}

// serveOne starts a server whose hub has the given grace and connects one
// client to it.
func serveOne(t *testing.T, grace time.Duration) (net.Conn, *transporttest.Node) {
	t.Helper()
	return serveLimits(t, transport.Limits{Grace: grace})
}

// serveLimits starts a server whose hub has limits l and connects one
// client to it.
func serveLimits(t *testing.T, l transport.Limits) (net.Conn, *transporttest.Node) {
	t.Helper()
	hub := transport.NewHubLimits(l)
	s, err := Listen("127.0.0.1:0", nil, hub, 0, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	n := transporttest.Run(t, hub, s.Serve, s.Close)
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, n
}

// byteConn is a net.Conn that reads from a byte slice, in reads of at most
// chunk bytes, and takes any deadline.
type byteConn struct {
	net.Conn
	r     *bytes.Reader
	chunk int
}

func (c *byteConn) Read(p []byte) (int, error)      { return c.r.Read(p[:min(len(p), c.chunk)]) }
func (c *byteConn) SetReadDeadline(time.Time) error { return nil }

// The frame cutter returns whole frames, each within [256, the cap its
// connection has] and with the size it declares, in the order of the
// stream, whatever the stream holds and however it is split into reads.
func FuzzFrameReader(f *testing.F) {
	f.Add(append(frameOf(wire.HeaderSize), frameOf(wire.HeaderSize+10)...), uint8(7), false)
	f.Add(frameOf(transport.PreLoginFrameBytesMax+1), uint8(255), false)
	f.Add(frameOf(transport.PreLoginFrameBytesMax+1), uint8(1), true)
	f.Add([]byte{1, 2, 3}, uint8(0), true)
	f.Fuzz(func(t *testing.T, stream []byte, chunk uint8, loggedIn bool) {
		// One open and one close fit the inbox: nothing need drain it.
		hub := transport.NewHubLimits(transport.Limits{Grace: time.Hour})
		id, adm := hub.Open(&conn{}, bus.TransportTCP, "fuzz")
		if loggedIn {
			hub.Deliver(bus.Reply{Conn: id, Authenticated: true})
		}
		// A 1 MiB cap: a frame is allocated at its declared size.
		const sizeMax = 1 << 20
		r := frameReader{conn: &byteConn{r: bytes.NewReader(stream), chunk: int(chunk) + 1}, adm: adm,
			limits: hub.Limits(), sizeMax: sizeMax}
		var cut []byte
		for {
			frame, err := r.next()
			if err != nil {
				break
			}
			size := binary.LittleEndian.Uint32(frame[48:])
			if int(size) != len(frame) || size < wire.HeaderSize || size > adm.FrameSizeMax(sizeMax) {
				t.Fatalf("frame of %d bytes declares %d", len(frame), size)
			}
			cut = append(cut, frame...)
		}
		if !bytes.HasPrefix(stream, cut) {
			t.Fatal("the frames are not the stream's prefix")
		}
		hub.Closed(id)
	})
}
