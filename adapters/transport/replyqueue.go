package transport

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/iggygo/iggy/io/bus"
)

// Bounds of a connection's reply queue (FLOW-1, FLOW-2).
const (
	// ReplyQueueCapacityDefault is message_bus.client_queue_capacity's
	// default: the replies that may wait for a connection's writer. The
	// node's own bound on a connection's requests keeps a client that reads
	// its replies far below it.
	ReplyQueueCapacityDefault = 1024
	// ReplyQueueBytesMax bounds the bytes of the replies queued for one
	// connection and being written to it, so a client that pipelines polls
	// and never reads holds at most this (or one reply, when a single reply
	// is bigger) instead of every reply the node can read for it. The SDKs
	// have one request in flight, so their queue holds one reply.
	ReplyQueueBytesMax = 64 << 20
)

// Outgoing is one queued reply and what to call once it is written (nil:
// nobody waits; see WriteReporter).
type Outgoing struct {
	Reply   bus.Reply
	Written func()
	queued  time.Time // when it entered the queue: its stall deadline runs from here
	size    int64
}

// ReplyQueue is what every client connection's sending half shares: the
// bounded queue its writer goroutine drains, the stall timer that closes a
// connection whose client stopped reading, and the once-only end that stops
// the writer and closes the connection. The zero value is not usable; call
// Init first.
//
// Nothing that queues a reply waits for room: a reply that does not fit
// (too many replies or too many bytes queued) closes the connection
// (FLOW-2), and a reply that waited longer than the stall timeout to be
// written closes it too (FLOW-4), which unblocks the writer.
type ReplyQueue struct {
	out       chan Outgoing
	done      chan struct{}
	once      sync.Once
	closeConn func()
	bytes     atomic.Int64 // of replies queued or being written
	stall     time.Duration
	stalled   *time.Timer // armed while a write is under way; nil without a stall timeout
}

// Init makes the queue ready under l's bounds; closeConn is what ending the
// connection does (called once). Call it once, before the connection is
// registered with the hub.
func (q *ReplyQueue) Init(l Limits, closeConn func()) {
	q.out = make(chan Outgoing, l.replyQueueCapacity())
	q.done = make(chan struct{})
	q.closeConn = closeConn
	q.stall = l.WriteStallTimeout
	if q.stall > 0 {
		q.stalled = time.AfterFunc(q.stall, q.End)
		q.stalled.Stop()
	}
}

// Put queues r without blocking. False means the queue is full (in replies
// or in bytes) and the caller (the hub) closes the connection. A reply
// alone in the queue always fits, whatever its size. After End it drops r
// and reports true: the connection is going anyway.
func (q *ReplyQueue) Put(r bus.Reply, written func()) bool {
	o := Outgoing{Reply: r, Written: written, size: replyBytes(r)}
	if q.stall > 0 {
		o.queued = time.Now()
	}
	if held := q.bytes.Add(o.size); held > ReplyQueueBytesMax && held != o.size {
		q.bytes.Add(-o.size)
		return false
	}
	select {
	case <-q.done:
		return true
	case q.out <- o:
		return true
	default:
		q.bytes.Add(-o.size)
		return false
	}
}

func replyBytes(r bus.Reply) int64 {
	var n int
	for _, p := range r.Parts {
		n += len(p)
	}
	return int64(n)
}

// QueuedBytes is what the connection's replies hold: queued, or being
// written.
func (q *ReplyQueue) QueuedBytes() int64 { return q.bytes.Load() }

// End runs closeConn once, whoever calls first (the hub, the reader, the
// writer or the stall timer); the writer stops at its next wait.
func (q *ReplyQueue) End() {
	q.once.Do(func() {
		close(q.done)
		if q.stalled != nil {
			q.stalled.Stop()
		}
		q.closeConn()
	})
}

// Next waits for the oldest queued reply; false once the queue has ended.
// The writer then writes it (and any it takes with TryNext) and calls Sent:
// meanwhile the stall timer ends the connection if the reply has waited
// the stall timeout in all.
func (q *ReplyQueue) Next() (Outgoing, bool) {
	select {
	case <-q.done:
		return Outgoing{}, false
	case o := <-q.out:
		q.arm(o)
		return o, true
	}
}

// arm starts the stall timer for o, the oldest reply about to be written:
// replies queued behind it are younger, so its deadline is theirs too
// until it is written.
func (q *ReplyQueue) arm(o Outgoing) {
	if q.stalled == nil {
		return
	}
	left := q.stall - time.Since(o.queued)
	if left <= 0 {
		q.End()
		return
	}
	q.stalled.Reset(left)
}

// TryNext takes a queued reply without waiting, to be written with the one
// Next returned.
func (q *ReplyQueue) TryNext() (Outgoing, bool) {
	select {
	case o := <-q.out:
		return o, true
	default:
		return Outgoing{}, false
	}
}

// Sent reports that replies of size bytes in all were written (or failed
// to be): they no longer count against the queue's bytes, and the stall
// timer stops until the next write.
func (q *ReplyQueue) Sent(size int64) {
	if q.stalled != nil {
		q.stalled.Stop()
	}
	q.bytes.Add(-size)
}

// Size is the bytes of o's reply.
func (o Outgoing) Size() int64 { return o.size }

// Drain is a writer goroutine that writes one reply at a time: write
// returns false when the connection cannot go on, and then the connection
// ends.
func (q *ReplyQueue) Drain(write func(Outgoing) bool) {
	for {
		o, ok := q.Next()
		if !ok {
			return
		}
		wrote := write(o)
		q.Sent(o.size)
		if !wrote {
			q.End()
			return
		}
	}
}
