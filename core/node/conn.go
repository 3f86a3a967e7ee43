package node

import (
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// connQueuedFramesMax bounds the frames a connection may send ahead of its
// replies. The SDKs send one at a time; a client past this is closed.
const connQueuedFramesMax = 1024

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

	busy   bool     // a request of this connection awaits its reply
	queued [][]byte // frames that arrived while busy, in order
	last   uint64   // tick of the last request, for stale eviction
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
		if len(c.queued) >= connQueuedFramesMax {
			n.ready.Replies = append(n.ready.Replies, bus.Reply{Conn: id, Close: true})
			return
		}
		c.queued = append(c.queued, frame)
		n.cancelArrived(c, frame)
		return
	}
	n.handleFrame(c, frame)
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
		n.handleFrame(c, f)
	}
}

// reply sends parts to c and ends its request. A bound connection's reply
// says so, which is how a transport learns that the login succeeded.
func (n *Node) reply(c *conn, parts ...[]byte) {
	n.ready.Replies = append(n.ready.Replies, bus.Reply{Conn: c.id, Parts: parts, Authenticated: c.bound})
	n.done(c)
}
