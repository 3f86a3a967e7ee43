package transport

import (
	"sync"

	"github.com/iggygo/iggy/io/bus"
)

// ReplyQueueCapacity bounds the replies waiting for a connection's writer (a
// slow reader); past it the connection is closed rather than letting memory
// grow. The node's own bound on a connection's requests keeps a client that
// reads its replies far below it.
const ReplyQueueCapacity = 1024

// Outgoing is one queued reply and what to call once it is written (nil:
// nobody waits; see WriteReporter).
type Outgoing struct {
	Reply   bus.Reply
	Written func()
}

// ReplyQueue is what every client connection's sending half shares: the
// bounded queue its writer goroutine drains and the once-only end that
// stops that writer and closes the connection. The zero value is not
// usable; call Init first.
type ReplyQueue struct {
	out  chan Outgoing
	done chan struct{}
	once sync.Once
}

// Init makes the queue ready; call it once, before the connection is
// registered with the hub.
func (q *ReplyQueue) Init() {
	q.out = make(chan Outgoing, ReplyQueueCapacity)
	q.done = make(chan struct{})
}

// Put queues r without blocking. False means the queue is full and the
// caller (the hub) closes the connection. After End it drops r and reports
// true: the connection is going anyway.
func (q *ReplyQueue) Put(r bus.Reply, written func()) bool {
	select {
	case <-q.done:
		return true
	case q.out <- Outgoing{Reply: r, Written: written}:
		return true
	default:
		return false
	}
}

// End runs closeConn once, whoever calls first (the hub, the reader or the
// writer); the writer stops at its next wait.
func (q *ReplyQueue) End(closeConn func()) {
	q.once.Do(func() {
		close(q.done)
		closeConn()
	})
}

// Next waits for the oldest queued reply; false once the queue has ended.
func (q *ReplyQueue) Next() (Outgoing, bool) {
	select {
	case <-q.done:
		return Outgoing{}, false
	case o := <-q.out:
		return o, true
	}
}

// TryNext takes a queued reply without waiting.
func (q *ReplyQueue) TryNext() (Outgoing, bool) {
	select {
	case o := <-q.out:
		return o, true
	default:
		return Outgoing{}, false
	}
}

// Drain is a writer goroutine that writes one reply at a time: write
// returns false when the connection cannot go on, and then end closes it.
func (q *ReplyQueue) Drain(write func(Outgoing) bool, end func()) {
	for {
		o, ok := q.Next()
		if !ok {
			return
		}
		if !write(o) {
			end()
			return
		}
	}
}
