package transport

import (
	"sync/atomic"
	"testing"

	"github.com/iggygo/iggy/io/bus"
)

// queueConn is a connection whose writer never runs (a client that does
// not read): its replies stay in its queue.
type queueConn struct {
	q      ReplyQueue
	closed atomic.Bool
}

func newQueueConn(l Limits) *queueConn {
	c := &queueConn{}
	c.q.Init(l, func() { c.closed.Store(true) })
	return c
}

func (c *queueConn) Send(r bus.Reply) bool { return c.q.Put(r, nil) }
func (c *queueConn) Close()                { c.q.End() }

// deliverUntilClosed delivers replies of size bytes to c through a hub
// until the hub closes c, and returns how many were queued.
func deliverUntilClosed(t *testing.T, c *queueConn, size, limit int) int {
	t.Helper()
	h := NewHub()
	go drain(h, t.Context().Done())
	id, _ := h.Open(c, bus.TransportTCP, "a")
	for i := range limit {
		h.Deliver(bus.Reply{Conn: id, Parts: [][]byte{make([]byte, size)}})
		if c.closed.Load() {
			return i
		}
	}
	t.Fatalf("%d replies of %d bytes queued and the connection still open", limit, size)
	return 0
}

// A connection's reply queue holds message_bus.client_queue_capacity
// replies; the reply that does not fit closes the connection.
// covers FLOW-1, FLOW-2
func TestReplyQueueCapacity(t *testing.T) {
	for _, capacity := range []int{4, ReplyQueueCapacityDefault} {
		c := newQueueConn(Limits{ReplyQueueCapacity: capacity})
		if got := deliverUntilClosed(t, c, 1, 2*capacity); got != capacity {
			t.Errorf("capacity %d: %d replies queued before the close", capacity, got)
		}
	}
	if got := deliverUntilClosed(t, newQueueConn(Limits{}), 1, 2*ReplyQueueCapacityDefault); got != ReplyQueueCapacityDefault {
		t.Errorf("default capacity: %d replies queued before the close", got)
	}
}

// The replies queued for one connection hold at most ReplyQueueBytesMax,
// except a reply alone in the queue, which always fits; the next reply past
// the bound closes the connection. The queue counts what it holds.
// covers FLOW-2
func TestReplyQueueBytes(t *testing.T) {
	const mib = 1 << 20
	c := newQueueConn(Limits{})
	if got := deliverUntilClosed(t, c, mib, 2*ReplyQueueBytesMax/mib); got != ReplyQueueBytesMax/mib {
		t.Errorf("%d replies of 1 MiB queued before the close, want %d", got, ReplyQueueBytesMax/mib)
	}
	if held := c.q.QueuedBytes(); held != ReplyQueueBytesMax {
		t.Errorf("the queue holds %d bytes, want %d", held, ReplyQueueBytesMax)
	}
	alone := newQueueConn(Limits{})
	if got := deliverUntilClosed(t, alone, ReplyQueueBytesMax+1, 2); got != 1 {
		t.Errorf("%d replies above the byte bound queued, want the first alone", got)
	}
}
