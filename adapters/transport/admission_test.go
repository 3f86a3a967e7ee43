package transport

import (
	"testing"
	"time"

	"github.com/iggygo/iggy/io/bus"
)

// Before login a connection gets the small frame cap and holds its frames
// against the shared budget; a reply gives them back, a bound reply lifts
// every limit, a close gives back what it held.
func TestAdmissionBeforeAndAfterLogin(t *testing.T) {
	h := NewHubLimits(Limits{Grace: time.Hour})
	stop := make(chan struct{})
	defer close(stop)
	go drain(h, stop)
	idA, a := h.Open(&countConn{}, bus.TransportTCP, "a")
	idB, b := h.Open(&countConn{}, bus.TransportTCP, "b")
	if got := a.FrameSizeMax(64 << 20); got != PreLoginFrameBytesMax {
		t.Fatalf("pre-login cap %d, want %d", got, PreLoginFrameBytesMax)
	}
	frames := PreLoginBytesMax / PreLoginFrameBytesMax
	for i := range frames {
		if !a.Hold(PreLoginFrameBytesMax) {
			t.Fatalf("frame %d of %d refused inside the budget", i, frames)
		}
	}
	if b.Hold(PreLoginFrameBytesMax) {
		t.Fatal("a frame past the budget was granted")
	}
	h.Deliver(bus.Reply{Conn: idA, Parts: [][]byte{{1}}}) // a's frames are answered
	if !b.Hold(PreLoginFrameBytesMax) {
		t.Fatal("the budget was not given back by a reply")
	}
	h.Deliver(bus.Reply{Conn: idB, Parts: [][]byte{{1}}, Authenticated: true})
	if !b.Authenticated() || b.FrameSizeMax(64<<20) != 64<<20 {
		t.Fatal("a bound reply did not lift the pre-login limits")
	}
	if got := h.budget.held.Load(); got != 0 {
		t.Fatalf("%d bytes held after every frame was answered", got)
	}
	if !a.Hold(PreLoginFrameBytesMax) {
		t.Fatal("a frame inside the budget refused")
	}
	h.Closed(idA)
	if got := h.budget.held.Load(); got != 0 {
		t.Fatalf("%d bytes held after the connection closed", got)
	}
	if a.Hold(1); h.budget.held.Load() != 0 {
		t.Fatal("a closed connection keeps what it holds")
	}
}

// A connection that has not logged in when the grace ends is closed; one
// that has is not; HTTP connections (bound by the adapter) have no deadline.
func TestLoginDeadline(t *testing.T) {
	const grace = 20 * time.Millisecond
	h := NewHubLimits(Limits{Grace: grace})
	stop := make(chan struct{})
	defer close(stop)
	go drain(h, stop)
	silent, bound, httpConn := &countConn{}, &countConn{}, &countConn{}
	h.Open(silent, bus.TransportTCP, "silent")
	id, _ := h.Open(bound, bus.TransportQUIC, "bound")
	h.Open(httpConn, bus.TransportHTTP, "http")
	h.Deliver(bus.Reply{Conn: id, Parts: [][]byte{{1}}, Authenticated: true})
	deadline := time.Now().Add(5 * time.Second)
	for !silent.closed.Load() && time.Now().Before(deadline) {
		time.Sleep(grace)
	}
	time.Sleep(2 * grace) // the others' deadlines, had they any, passed too
	if !silent.closed.Load() || bound.closed.Load() || httpConn.closed.Load() {
		t.Fatalf("closed: silent %t, logged in %t, http %t; want only the silent one",
			silent.closed.Load(), bound.closed.Load(), httpConn.closed.Load())
	}
}

// A frame's deadline is the grace plus its size at the slowest rate; no
// grace, no deadline.
func TestFrameDeadline(t *testing.T) {
	start := time.Unix(1000, 0)
	l := Limits{Grace: 10 * time.Second}
	if got := l.FrameDeadline(start, 64<<20).Sub(start); got != 10*time.Second+256*time.Second {
		t.Fatalf("64 MiB frame deadline %v after its start", got)
	}
	if !(Limits{}).FrameDeadline(start, 1).IsZero() {
		t.Fatal("a deadline without a grace")
	}
}
