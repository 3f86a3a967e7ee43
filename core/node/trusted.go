package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// TrustedRegister registers a session for an existing, active user on an
// HTTP connection without a credential. The HTTP adapter steps it only after
// it has verified a bearer itself (its own JWT, a trusted issuer's JWT), so
// it can serve a verified principal whose node session is gone (a restart of
// the process, an evicted principal). It commits the same KindRegister
// prepare a password Register does and answers on Conn with the same
// Register reply frame (request 0, operation Register), or an eviction.
//
// It is refused, by closing Conn, on any transport other than HTTP (a binary
// client can never reach it: only the adapter makes this input), on a
// connection that is bound or has a request in flight, and for a zero client
// id. An unknown user is eviction 9, an inactive one eviction 11.
type TrustedRegister struct {
	Conn   bus.ConnID
	Client wire.U128       // the client id the adapter stamps on the session's requests
	User   wire.Identifier // the user by username (what the adapter uses) or numeric id
}

func (n *Node) trustedRegister(m TrustedRegister) {
	c, ok := n.conns[m.Conn]
	if !ok {
		return // closed meanwhile
	}
	if c.transport != bus.TransportHTTP || m.Client.IsZero() || c.bound || c.busy {
		n.logf("trusted register refused on connection %d (transport %d)", c.id, c.transport)
		n.ready.Replies = append(n.ready.Replies, bus.Reply{Conn: c.id, Close: true})
		return
	}
	c.busy = true
	h := wire.RequestHeader{Client: m.Client, Operation: wire.OpRegister}
	u, ok := n.meta.User(m.User)
	switch {
	case !ok:
		n.evict(c, h, wire.EvictInvalidCredentials)
		return
	case u.Status != metadata.UserActive:
		n.evict(c, h, wire.EvictUserInactive)
		return
	}
	n.proposeRegister(c, h, u.ID)
}
