package transport

import (
	"sync/atomic"
	"time"
)

// What a client may hold before it logs in. A login frame is a header and
// a body of a few hundred bytes (protocol-framing.md 4.3: a version prefix,
// a username and a password of at most 255 bytes each, and a client context
// the SDKs send empty), so a small cap loses no client while a connection
// that never logs in can no longer make the server read 64 MiB for it.
const (
	// PreLoginFrameBytesMax caps a frame read before the connection's login
	// succeeded; a bigger size closes the connection, as a size above the
	// frame cap does (1.1).
	PreLoginFrameBytesMax = 16 << 10
	// PreLoginBytesMax bounds the bytes of frames that connections without
	// a login hold, all transports together: frames being read and frames
	// the node has not answered yet. A frame that does not fit closes its
	// connection, so a flood of unauthenticated clients costs at most this.
	PreLoginBytesMax = 64 << 20
	// ReadBytesPerSecondMin is the slowest a started frame (or HTTP
	// request) may arrive: its deadline is the grace plus its size at this
	// rate (a 64 MiB frame gets the grace and 256 s).
	ReadBytesPerSecondMin = 256 << 10
)

// Limits are the connection deadlines of the client transports.
type Limits struct {
	// Grace is message_bus.handshake_grace: how long a connection may go
	// without a successful login, and the fixed part of a started frame's
	// deadline. 0: no deadline and no pre-login limits (tests of a
	// transport alone).
	Grace time.Duration
	// ConnectionsMax bounds the connections with a descriptor of their own
	// (TCP, WebSocket, HTTP) open at once; 0: no bound.
	ConnectionsMax int
	// ReplyQueueCapacity is message_bus.client_queue_capacity, the replies
	// that may wait for one connection's writer (FLOW-1); 0: the default.
	ReplyQueueCapacity int
	// WriteStallTimeout is message_bus.client_write_stall_timeout: a reply
	// that waited this long to be written closes its connection (FLOW-4);
	// 0: no stall timeout (tests of a transport alone).
	WriteStallTimeout time.Duration
}

func (l Limits) replyQueueCapacity() int {
	if l.ReplyQueueCapacity <= 0 {
		return ReplyQueueCapacityDefault
	}
	return l.ReplyQueueCapacity
}

// FrameTimeout is how long a frame (or an HTTP request) of size bytes may
// take to arrive once started: the grace and its size at the slowest rate.
func (l Limits) FrameTimeout(size int) time.Duration {
	return l.Grace + time.Duration(size)*time.Second/ReadBytesPerSecondMin
}

// FrameDeadline is when a frame of size bytes that started at start must
// have arrived whole; the zero time (none) when Grace is 0.
func (l Limits) FrameDeadline(start time.Time, size int) time.Time {
	if l.Grace <= 0 {
		return time.Time{}
	}
	return start.Add(l.FrameTimeout(size))
}

// budget counts the bytes held by connections without a login.
type budget struct {
	held atomic.Int64
	max  int64
}

func (b *budget) reserve(n int64) bool {
	if b.held.Add(n) > b.max {
		b.held.Add(-n)
		return false
	}
	return true
}

// Admission is one connection's standing before login: whether the node
// has bound it to a session, and the frame bytes it holds against the
// hub's pre-login budget. Readers consult it for every frame. A nil
// Admission is a connection without limits.
type Admission struct {
	budget   *budget // nil: no pre-login limits
	authed   atomic.Bool
	closed   atomic.Bool
	held     atomic.Int64
	deadline *time.Timer // the login deadline; nil when none
}

// Authenticated reports that a login of this connection succeeded.
func (a *Admission) Authenticated() bool { return a == nil || a.budget == nil || a.authed.Load() }

// FrameSizeMax is the cap for the connection's next frame: sizeMax once
// logged in, the pre-login cap before.
func (a *Admission) FrameSizeMax(sizeMax uint32) uint32 {
	if a.Authenticated() {
		return sizeMax
	}
	return min(sizeMax, PreLoginFrameBytesMax)
}

// Hold counts a frame of size bytes that the connection is about to read
// against the pre-login budget (nothing once logged in). False: the budget
// is spent and the caller closes the connection instead of reading it.
func (a *Admission) Hold(size int) bool {
	if a.Authenticated() {
		return true
	}
	if !a.budget.reserve(int64(size)) {
		return false
	}
	a.held.Add(int64(size))
	if a.closed.Load() || a.authed.Load() {
		a.release() // closed or logged in meanwhile: nobody else will
	}
	return true
}

// release gives back what the connection holds. Every reply calls it, so
// a connection that holds nothing (every logged-in one) only reads its own
// counter and never writes the shared one.
func (a *Admission) release() {
	if a.budget != nil && a.held.Load() != 0 {
		a.budget.held.Add(-a.held.Swap(0))
	}
}

// replied is a reply's arrival: the connection's frames the node has taken
// are done with or in its bounded queue, so what they held is given back;
// a reply that says the connection is bound lifts the pre-login limits.
func (a *Admission) replied(authenticated bool) {
	if authenticated && !a.authed.Load() && !a.authed.Swap(true) && a.deadline != nil {
		a.deadline.Stop()
	}
	a.release()
}

// close ends the accounting of a closed connection.
func (a *Admission) close() {
	a.closed.Store(true)
	if a.deadline != nil {
		a.deadline.Stop()
	}
	a.release()
}
