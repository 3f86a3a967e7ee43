package node

import (
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// Bounds of the requests a connection queues behind the one it runs
// (FLOW-5, FLOW-6). The SDKs send one at a time; a frame past either bound
// is answered 58 (TransientNotAccepted, nothing was done: the client may
// send it again), unless the queue is empty (FLOW-7).
const (
	connQueuedFramesMax = 1024
	// requestQueueBytesMaxDefault is
	// message_bus.client_request_queue_bytes_max's default.
	requestQueueBytesMaxDefault = 256 << 20
)

// conn is one client connection. Binding is local to this node; the session
// it is bound to lives in the replicated client table.
type conn struct {
	id        bus.ConnID
	transport bus.Transport
	addr      string
	source    string // loginSource(addr): failed logins count and queue by it

	bound   bool
	client  wire.U128
	session uint64
	userID  uint32

	// handed: a host shard's stand-in for a front's connection while it
	// serves one request (shard_host.go).
	handed bool

	busy        bool     // a request of this connection awaits its reply
	queued      [][]byte // frames that arrived while busy, in order
	queuedBytes uint64   // their sizes' sum
	last        uint64   // tick of the last request, for stale eviction
}

func (n *Node) onConnOpened(m bus.ConnOpened) {
	if _, ok := n.conns[m.Conn]; ok {
		n.logf("connection %d opened twice", m.Conn)
		return
	}
	n.conns[m.Conn] = &conn{id: m.Conn, transport: m.Transport, addr: m.Addr, source: loginSource(m.Addr), last: n.now.Ticks}
}

func (n *Node) onConnClosed(id bus.ConnID) {
	c, ok := n.conns[id]
	if !ok {
		return
	}
	delete(n.conns, id)
	n.dropLogin(c)
	// The session outlives its connection (SESS-4): the client may bind it
	// again until its lease, running from its last request, ends (lease.go).
	if c.bound {
		n.leaseFrom(c.client, c.last)
	}
}

// onFrame accepts a frame now, or queues it behind the connection's request in flight.
func (n *Node) onFrame(id bus.ConnID, frame []byte) {
	c, ok := n.conns[id]
	if !ok {
		return // closed meanwhile
	}
	c.last = n.now.Ticks
	if c.busy {
		if len(c.queued) > 0 && (len(c.queued) >= connQueuedFramesMax ||
			c.queuedBytes+uint64(len(frame)) > n.cfg.RequestQueueBytesMax) {
			n.refuseQueued(c, frame)
			return
		}
		c.queued = append(c.queued, frame)
		c.queuedBytes += uint64(len(frame))
		n.cancelArrived(c, frame)
		return
	}
	n.handleFrame(c, frame)
}

// refuseQueued answers a frame the connection's queue has no room for with
// 58 in the shape its operation takes (protocol-framing.md 1.8, 4.3, 4.8):
// a result section for Register and metadata operations, the header status
// for the others. The request in flight and the queued ones are untouched,
// so this answer may overtake theirs; a client that pipelines matches
// replies by operation and request id. A frame that would get no answer or
// a close in its turn gets the same now.
func (n *Node) refuseQueued(c *conn, frame []byte) {
	h, ok := n.decodeHeader(c, frame)
	if !ok {
		return
	}
	var reply []byte
	if h.Operation == wire.OpRegister || h.Operation.Metadata() {
		reply = wire.RejectionFrame(n.replyHeader(h, 0), wire.TransientNotAccepted)
	} else {
		reply = n.denialFrame(h, wire.TransientNotAccepted)
	}
	n.ready.Replies = append(n.ready.Replies, bus.Reply{Conn: c.id, Parts: [][]byte{reply}, Authenticated: c.bound})
}

// done marks c's request answered and starts its next queued frame.
func (n *Node) done(c *conn) {
	if c.handed {
		n.hostDone(c)
		return
	}
	c.busy, c.last = false, n.now.Ticks
	for !c.busy && len(c.queued) > 0 {
		f := c.queued[0]
		c.queued[0] = nil
		c.queued = c.queued[1:]
		c.queuedBytes -= uint64(len(f))
		n.handleFrame(c, f)
	}
}

// reply sends parts to c and ends its request. A bound connection's reply
// says so, which is how a transport learns that the login succeeded.
func (n *Node) reply(c *conn, parts ...[]byte) {
	n.ready.Replies = append(n.ready.Replies, bus.Reply{Conn: c.id, Parts: parts, Authenticated: c.bound})
	n.done(c)
}
