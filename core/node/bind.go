package node

import (
	"encoding/binary"

	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/wire"
)

// BindSession (code 15, operation 2) attaches a connection to a logical
// session that exists already (SESS-1, SESS-2), so one session can be used
// from several connections, or again after its connection closed (SESS-4).
//
// Its registration proof is client-owned: the 128-bit client id the client
// drew at random for its Register, which the server never shows to anyone
// else (GetClient and GetClients show connection ids, SESS-37), together
// with the session number the Register answered. The body is
//
//	client id u128 (low u64, high u64) | session u64      (24 bytes)
//
// and the answer is the Register reply body (user id, session, protocol and
// server version), raw as every operation-2 reply. It commits nothing: the
// session is in the replicated client table already, and binding it renews
// its lease (a bound connection keeps it alive).
//
// A body of another size is status 3 (InvalidCommand). A proof naming no
// session, or a session other than the client's current one, is eviction 12
// (SessionError). An owner who is gone or no longer active is eviction 11
// (UserInactive): the proof is a credential independent of the password, but
// binding needs the owner to exist and be active (SESS-9).
const bindSessionBodySize = 24

// bindSession serves code 15 on any connection, bound or not: a bound one
// moves to the session named.
func (n *Node) bindSession(c *conn, h wire.RequestHeader, body []byte) {
	if len(body) != bindSessionBodySize {
		n.deny(c, h, wire.InvalidCommand)
		return
	}
	client := wire.U128{Lo: binary.LittleEndian.Uint64(body), Hi: binary.LittleEndian.Uint64(body[8:])}
	session := binary.LittleEndian.Uint64(body[16:])
	e, ok := n.clients[client]
	if !ok || client.IsZero() || session == 0 || e.session != session {
		n.evict(c, h, wire.EvictSessionError)
		return
	}
	if u, ok := n.meta.User(wire.NumericID(e.userID)); !ok || u.Status != metadata.UserActive {
		n.evict(c, h, wire.EvictUserInactive)
		return
	}
	c.bound, c.client, c.session, c.userID = true, client, session, e.userID
	n.leaseFrom(client, n.now.Ticks)
	n.cfg.Marks.Hit("node.session.bound")
	n.raw(c, h, n.registerReply(e.userID, session))
}
