// Package bus holds the boundary types for what travels between the core and
// connections: client frames in, replies out.
package bus

// ConnID names one client connection for the lifetime of the process. The
// adapter allocates it; the core only compares and echoes it.
type ConnID uint64

// Transport is the kind of client connection, with the wire codes of ClientInfo.
type Transport uint8

const (
	TransportTCP       Transport = 1
	TransportQUIC      Transport = 2
	TransportHTTP      Transport = 3
	TransportWebSocket Transport = 4
)

// ConnOpened tells the core a client connected.
type ConnOpened struct {
	Conn      ConnID
	Transport Transport
	Addr      string
}

// ConnClosed tells the core a client's connection is gone (implicit logout).
type ConnClosed struct{ Conn ConnID }

// ClientFrame is one complete request frame (256-byte header and body) as read
// from a connection. The core may keep slices of Frame (a send's batch) and
// patch them in place; the adapter must not reuse the buffer.
type ClientFrame struct {
	Conn  ConnID
	Frame []byte
}

// Reply is one frame for a connection: the concatenation of Parts, written
// with one vectored write. Close asks the adapter to close after writing.
// Authenticated says the connection is bound to a session (a login
// succeeded): the adapter lifts the limits it keeps on connections before
// login. Only true tells something; a reply that leaves it false (an
// eviction, a host shard's reply) changes nothing.
type Reply struct {
	Conn          ConnID
	Parts         [][]byte
	Close         bool
	Authenticated bool
}
