package quic

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/iggygo/iggy/adapters/framing"
	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// fakeStream is a request stream in memory: reads come from in, the reply
// goes to out.
type fakeStream struct {
	in        io.Reader
	out       bytes.Buffer
	finished  bool
	cancelled bool
}

func (f *fakeStream) Read(p []byte) (int, error)       { return f.in.Read(p) }
func (f *fakeStream) Write(p []byte) (int, error)      { return f.out.Write(p) }
func (f *fakeStream) Close() error                     { f.finished = true; return nil }
func (f *fakeStream) CancelWrite(quic.StreamErrorCode) { f.cancelled = true }
func (f *fakeStream) SetReadDeadline(time.Time) error  { return nil }
func newFakeStream(b []byte) *fakeStream               { return &fakeStream{in: bytes.NewReader(b)} }
func waitingFor(ids ...uint64) (w []waitingStream) {
	for _, id := range ids {
		w = append(w, waitingStream{st: newFakeStream(nil), request: id})
	}
	return w
}

// Replies pick the oldest stream echoing their request id; evictions and
// unknown ids take the oldest; nothing waiting is -1.
// covers TRAN-2
func TestPick(t *testing.T) {
	reply := func(id uint64) []byte { return replyFrame(id, nil) }
	ev := wire.Eviction{Client: wire.U128{Lo: 1}, Reason: wire.EvictNoSession}.Bytes()
	cases := []struct {
		name    string
		waiting []waitingStream
		head    []byte
		want    int
	}{
		{"nothing waiting", nil, reply(1), -1},
		{"the oldest", waitingFor(1, 2), reply(1), 0},
		{"a later one", waitingFor(1, 2, 3), reply(3), 2},
		{"same id twice: the oldest", waitingFor(4, 5, 5), reply(5), 1},
		{"unknown id", waitingFor(1, 2), reply(9), 0},
		{"eviction", waitingFor(1, 2), ev, 0},
	}
	for _, tc := range cases {
		if got := pick(tc.waiting, tc.head); got != tc.want {
			t.Errorf("%s: pick %d, want %d", tc.name, got, tc.want)
		}
	}
}

// take finishes the streams a reply skipped over and keeps the rest in order.
// covers TRAN-2
func TestTakeFinishesSkippedStreams(t *testing.T) {
	c := newConn(nil)
	c.waiting = waitingFor(1, 2, 3)
	skipped, answered := c.waiting[0].st.(*fakeStream), c.waiting[1].st
	st, ok := c.take(bus.Reply{Parts: [][]byte{replyFrame(2, nil)}})
	if !ok || st != answered {
		t.Fatalf("take: %v %v", st, ok)
	}
	if !skipped.finished || len(c.waiting) != 1 || c.waiting[0].request != 3 {
		t.Fatalf("skipped finished %v, waiting %+v", skipped.finished, c.waiting)
	}
}

// FuzzReadRequest: any stream content is one frame handed to the node and
// queued for its reply, or an error; never a panic, never a frame that is
// not the stream's prefix.
func FuzzReadRequest(f *testing.F) {
	f.Add(requestFrame(256, 1))
	f.Add(requestFrame(700, 2))
	f.Add(append(requestFrame(256, 3), 0))
	f.Add(requestFrame(300, 4)[:280])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		s := &Server{hub: transport.NewHub(), opts: Options{FrameSizeMax: 1 << 16}}
		c := newConn(nil)
		err := s.readRequest(c, newFakeStream(in))
		switch {
		case err == nil:
			m := (<-s.hub.Inbox()).(node.ClientFrame)
			if !bytes.Equal(m.Frame, in) || len(c.waiting) != 1 {
				t.Fatalf("accepted %d of %d bytes, %d waiting", len(m.Frame), len(in), len(c.waiting))
			}
		case errors.Is(err, framing.ErrTrailing):
			m := (<-s.hub.Inbox()).(node.ClientFrame) // handed over before the end was read
			if len(m.Frame) >= len(in) || !bytes.Equal(m.Frame, in[:len(m.Frame)]) {
				t.Fatalf("trailing: frame of %d bytes for %d", len(m.Frame), len(in))
			}
		case errors.Is(err, framing.ErrSize):
			if len(s.hub.Inbox()) != 0 || len(c.waiting) != 0 {
				t.Fatal("a refused frame reached the node")
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}
