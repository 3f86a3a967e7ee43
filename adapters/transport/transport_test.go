package transport

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
)

// countConn counts the replies it is sent.
type countConn struct {
	sent   atomic.Int64
	closed atomic.Bool
}

func (c *countConn) Send(bus.Reply) bool { c.sent.Add(1); return true }
func (c *countConn) Close()              { c.closed.Store(true) }

// drain takes the inputs the hub hands the node, as a loop would.
func drain(h *Hub, stop <-chan struct{}) {
	for {
		select {
		case <-h.Inbox():
		case <-stop:
			return
		}
	}
}

// Replies from several loops at once reach their connections while other
// connections open and close (run with -race: the reply path takes no lock).
func TestDeliverFromManyLoops(t *testing.T) {
	const loops, repliesPerLoop = 4, 1000
	h := NewHub()
	stop := make(chan struct{})
	defer close(stop)
	go drain(h, stop)
	target := &countConn{}
	id, _ := h.Open(target, bus.TransportTCP, "a")
	var wg sync.WaitGroup
	for range loops {
		wg.Go(func() {
			for range repliesPerLoop {
				h.Deliver(bus.Reply{Conn: id, Parts: [][]byte{{1}}})
			}
		})
	}
	wg.Go(func() {
		for range repliesPerLoop {
			other, _ := h.Open(&countConn{}, bus.TransportTCP, "b")
			h.Closed(other)
		}
	})
	wg.Wait()
	if got := target.sent.Load(); got != loops*repliesPerLoop {
		t.Fatalf("delivered %d replies, want %d", got, loops*repliesPerLoop)
	}
}

// A closed connection gets no reply, and only the first Closed tells the node.
func TestClosedConnection(t *testing.T) {
	h := NewHub()
	c := &countConn{}
	id, _ := h.Open(c, bus.TransportTCP, "a")
	if _, ok := (<-h.Inbox()).(node.ConnOpened); !ok {
		t.Fatal("the node was not told of the open")
	}
	h.Closed(id)
	h.Closed(id)
	if _, ok := (<-h.Inbox()).(node.ConnClosed); !ok {
		t.Fatal("the node was not told of the close")
	}
	select {
	case in := <-h.Inbox():
		t.Fatalf("a second close reached the node: %#v", in)
	default:
	}
	h.Deliver(bus.Reply{Conn: id, Parts: [][]byte{{1}}, Close: true})
	if c.sent.Load() != 0 || c.closed.Load() {
		t.Fatal("a reply reached a closed connection")
	}
}
