package replicalink

import (
	"bytes"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/replica"
)

// byteConn is a connection that reads fixed bytes and swallows writes.
type byteConn struct{ r io.Reader }

func (c byteConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c byteConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c byteConn) Close() error                     { return nil }
func (c byteConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c byteConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c byteConn) SetDeadline(time.Time) error      { return nil }
func (c byteConn) SetReadDeadline(time.Time) error  { return nil }
func (c byteConn) SetWriteDeadline(time.Time) error { return nil }

// fuzzBus is node 1 of a two-node cluster, without listener or dialers.
func fuzzBus() *Bus {
	cfg := testConfig(1, []string{"127.0.0.1:1", "127.0.0.1:2"})
	b := &Bus{cfg: cfg, codec: replica.Codec{Cluster: cfg.Cluster, Release: cfg.Identity.stamp()}, slots: map[uint8][]*slot{}}
	b.slots[0] = []*slot{{peer: 0, link: 0}}
	return b
}

// fuzzSeeds are what node 0 would send node 1: a preamble, a hello, a
// finish, then frames.
func fuzzSeeds(f *testing.F) {
	b := fuzzBus()
	node0 := &Bus{cfg: testConfig(0, []string{"", ""})}
	pre := preamble(0, 0)
	hello := slices.Clip(replica.AppendHello(pre[:], wire.FrameReplicaHello, node0.ourHello(1, 0)))
	fin := replica.AppendFinish(nil, b.cfg.Cluster, 0, 1, [replica.MACSize]byte{})
	f.Add(hello)
	f.Add(append(hello, fin...))
	var frames []byte
	for _, m := range every(0, 1) {
		frames, _ = b.codec.Append(frames, m)
	}
	f.Add(frames)
	f.Add(append(append(hello, fin...), frames...))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
}

// The acceptor's side of a handshake never panics on what a stranger
// sends, and admits nothing without a whole valid preamble, hello and
// finish.
func FuzzAcceptHandshake(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		b := fuzzBus()
		s, err := b.acceptHandshake(byteConn{bytes.NewReader(in)})
		if err == nil && (s == nil || len(in) < preambleSize+2*replica.HeaderSize) {
			t.Fatalf("admitted %d bytes", len(in))
		}
	})
}

// A link's reader never panics on what the peer sends, and delivers only
// messages from that peer to this node.
func FuzzReadFrames(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		b := fuzzBus()
		b.cfg.Deliver = func(m node.PeerMessage) {
			if m.Msg.From != 0 || m.Msg.To != 1 {
				t.Fatalf("delivered %d -> %d", m.Msg.From, m.Msg.To)
			}
		}
		_ = b.readFrames(bytes.NewReader(in), 0)
	})
}
