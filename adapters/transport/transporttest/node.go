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
