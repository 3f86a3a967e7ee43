// Package transporttest is what the tests of the client transports share:
// a stand-in for the node loop that drains a hub's inbox into channels.
package transporttest

import (
	"testing"
	"time"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
)

// Timeout bounds every wait of a transport test.
const Timeout = 10 * time.Second

// inputsQueuedMax bounds the inputs a test has not taken yet.
const inputsQueuedMax = 16

// Node stands in for the node loop: the hub's inputs, by kind.
type Node struct {
	Hub    *transport.Hub
	Opened chan bus.ConnOpened
	Frames chan bus.ClientFrame
	Closed chan bus.ConnClosed
}

// Start drains hub until the test ends.
func Start(t *testing.T, hub *transport.Hub) *Node {
	t.Helper()
	n := &Node{Hub: hub, Opened: make(chan bus.ConnOpened, inputsQueuedMax),
		Frames: make(chan bus.ClientFrame, inputsQueuedMax), Closed: make(chan bus.ConnClosed, inputsQueuedMax)}
	Serve(t, hub, func(in node.Input) {
		switch m := in.(type) {
		case node.ConnOpened:
			n.Opened <- bus.ConnOpened(m)
		case node.ClientFrame:
			n.Frames <- bus.ClientFrame(m)
		case node.ConnClosed:
			n.Closed <- bus.ConnClosed(m)
		}
	})
	return n
}

// Run serves a transport's listener for the test: serve on a goroutine of
// its own, a stand-in node on hub, and at the end every connection and the
// listener closed.
func Run(t *testing.T, hub *transport.Hub, serve func(), closeListener func() error) *Node {
	t.Helper()
	go serve()
	n := Start(t, hub)
	t.Cleanup(func() {
		hub.CloseAll()
		_ = closeListener()
	})
	return n
}

// Serve hands every input of hub to step, on a goroutine of its own,
// until the test ends.
func Serve(t *testing.T, hub *transport.Hub, step func(in node.Input)) {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		for {
			select {
			case <-stop:
				return
			case in := <-hub.Inbox():
				step(in)
			}
		}
	}()
}

// Recv takes the next value of ch, failing t after Timeout.
func Recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(Timeout):
		t.Fatalf("no %s within %v", what, Timeout)
		panic("unreachable")
	}
}

// StallSlackMax is how late after the write stall timeout a stalled
// connection may be closed in these tests (a loaded machine's scheduling).
const StallSlackMax = 2 * time.Second

// StallCutOff delivers reply, far bigger than the socket buffers, to conn,
// whose client reads nothing, and checks that the connection is closed
// once the reply has waited stall, the hub's write stall timeout (FLOW-4):
// not before, and not much after.
func StallCutOff(t *testing.T, n *Node, conn bus.ConnID, reply []byte, stall time.Duration) {
	t.Helper()
	start := time.Now()
	n.Hub.Deliver(bus.Reply{Conn: conn, Parts: [][]byte{reply}})
	cl := Recv(t, n.Closed, "ConnClosed of a stalled reply")
	took := time.Since(start)
	if cl.Conn != conn {
		t.Fatalf("closed %d, want %d", cl.Conn, conn)
	}
	if took < stall || took > stall+StallSlackMax {
		t.Fatalf("a reply the client did not read closed its connection after %v; want %v (+%v at most)", took, stall, StallSlackMax)
	}
}
