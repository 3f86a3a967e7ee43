// Package transport is what every client transport (TCP, QUIC, WebSocket)
// shares: connection ids, the inbox of inputs for the node loop, and the
// registry that routes the node's replies back to connections.
package transport

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
)

// Conn is the sending half of one client connection.
type Conn interface {
	// Send queues a reply without blocking; false means the queue is full and
	// the connection is being closed (the client must recover).
	Send(r bus.Reply) bool
	Close()
}

// WriteReporter is a Conn that can say when a reply has been written: after
// that nothing refers to the reply's bytes, so buffers lent to it can be
// reused. A Conn without it never reports, and such buffers are left to
// the GC.
type WriteReporter interface {
	// SendThen is Send, and calls written once the reply has left for the
	// socket (or failed to). It is not called for a reply dropped unsent.
	SendThen(r bus.Reply, written func()) bool
}

// Hub allocates connection ids, carries inputs to the node loop and routes replies.
//
// Replies come from every shard's loop at once (a host shard answers the
// connections whose requests it serves), and there are far more of them than
// connection opens and closes, so the registry is a sync.Map: a reply's
// lookup takes no lock and never waits for another loop's.
type Hub struct {
	inbox  chan node.Input
	nextID atomic.Uint64
	conns  sync.Map // bus.ConnID -> *entry
	limits Limits
	budget *budget // nil without limits
	gate   *Gate   // nil without a connection bound
}

// entry is one registered connection.
type entry struct {
	conn Conn
	adm  *Admission
}

// inboxCapacity bounds the inputs waiting for the node loop; readers block
// when it is full, which is the back-pressure on clients.
const inboxCapacity = 4096

// NewHub is a hub without deadlines or pre-login limits (tests of one
// transport); the server uses NewHubLimits.
func NewHub() *Hub { return NewHubLimits(Limits{}) }

// NewHubLimits is a hub whose client connections (all but HTTP's, which
// the HTTP adapter binds itself) must log in within l.Grace and are held
// to the pre-login caps until they do.
func NewHubLimits(l Limits) *Hub {
	h := &Hub{inbox: make(chan node.Input, inboxCapacity), limits: l, gate: NewGate(l.ConnectionsMax)}
	if l.Grace > 0 {
		h.budget = &budget{max: PreLoginBytesMax}
	}
	return h
}

// Limits are the hub's connection limits.
func (h *Hub) Limits() Limits { return h.limits }

// Gate bounds the connections of every listener of the hub (nil: none).
func (h *Hub) Gate() *Gate { return h.gate }

// Inbox is read by the node loop only.
func (h *Hub) Inbox() <-chan node.Input { return h.inbox }

// Open registers c and tells the node. The Admission is the connection's
// standing before login, which its reader consults; a connection that has
// not logged in when the grace ends is closed.
func (h *Hub) Open(c Conn, t bus.Transport, addr string) (bus.ConnID, *Admission) {
	id := bus.ConnID(h.nextID.Add(1))
	adm := &Admission{}
	if h.budget != nil && t != bus.TransportHTTP {
		adm.budget = h.budget
		adm.deadline = time.AfterFunc(h.limits.Grace, func() {
			if !adm.Authenticated() {
				c.Close()
			}
		})
	}
	h.conns.Store(id, &entry{conn: c, adm: adm})
	h.inbox <- node.ConnOpened{Conn: id, Transport: t, Addr: addr}
	return id, adm
}

// Frame hands a complete request frame to the node.
func (h *Hub) Frame(id bus.ConnID, frame []byte) { h.inbox <- node.ClientFrame{Conn: id, Frame: frame} }

// Input hands the node an input an adapter makes other than a frame: the
// HTTP adapter's node.TrustedRegister, after it verified a bearer itself.
func (h *Hub) Input(in node.Input) { h.inbox <- in }

// Closed forgets id and tells the node (implicit logout).
func (h *Hub) Closed(id bus.ConnID) {
	// LoadAndDelete: of two racing Closed calls only one tells the node.
	if v, ok := h.conns.LoadAndDelete(id); ok {
		v.(*entry).adm.close()
		h.inbox <- node.ConnClosed{Conn: id}
	}
}

// Deliver routes the node's reply to its connection; a reply for a
// connection that has gone is dropped.
func (h *Hub) Deliver(r bus.Reply) { h.DeliverThen(r, nil) }

// DeliverThen is Deliver, calling written once the reply is written when
// its connection reports writes (WriteReporter); otherwise never.
func (h *Hub) DeliverThen(r bus.Reply, written func()) {
	v, ok := h.conns.Load(r.Conn)
	if !ok {
		return
	}
	e := v.(*entry)
	e.adm.replied(r.Authenticated)
	c := e.conn
	if len(r.Parts) > 0 && !send(c, r, written) {
		c.Close()
		return
	}
	if r.Close {
		c.Close()
	}
}

// send queues r on c, asking for the written report when c gives one.
func send(c Conn, r bus.Reply, written func()) bool {
	if wr, reports := c.(WriteReporter); reports && written != nil {
		return wr.SendThen(r, written)
	}
	return c.Send(r)
}

// CloseAll closes every connection (shutdown).
func (h *Hub) CloseAll() {
	h.conns.Range(func(_, v any) bool {
		v.(*entry).conn.Close()
		return true
	})
}
