package transport

import (
	"net"
	"sync"
	"sync/atomic"
)

// Gate bounds the connections open at once over the listeners that share
// it (TCP, WebSocket, HTTP: each holds a descriptor), so that clients cannot
// take the descriptors the boot guard counted for storage. A connection
// past it is accepted and closed at once.
type Gate struct {
	open atomic.Int64
	max  int64
}

// NewGate admits at most max connections at once; max <= 0 is no gate.
func NewGate(max int) *Gate {
	if max <= 0 {
		return nil
	}
	return &Gate{max: int64(max)}
}

func (g *Gate) enter() bool {
	if g.open.Add(1) > g.max {
		g.open.Add(-1)
		return false
	}
	return true
}

// gatedConn gives its place at the gate back when it is closed (once).
type gatedConn struct {
	net.Conn
	gate *Gate
	once sync.Once
}

func (c *gatedConn) Close() error {
	c.once.Do(func() { c.gate.open.Add(-1) })
	return c.Conn.Close()
}

// CloseWrite keeps the half-close net/http uses on a refused request.
func (c *gatedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
