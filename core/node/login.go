package node

import (
	"encoding/binary"
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// waiter is a connection awaiting the commit of its op.
type waiter struct {
	conn   *conn
	header wire.RequestHeader
	token  string // the raw token of a CreatePersonalAccessToken, never logged
}

// register runs the login handshake of protocol-framing.md 4.3, in its order:
// version prefix, version gate, password shape, token shape, then commit.
func (n *Node) register(c *conn, h wire.RequestHeader, body []byte) {
	prefix, creds, code := wire.DecodeLoginPrefix(body)
	if code != wire.OK {
		n.evict(c, h, wire.EvictMalformedLogin)
		return
	}
	if !wire.ProtocolVersionAccepted(prefix.Version) {
		n.evict(c, h, wire.EvictIncompatibleProtocol)
		return
	}
	n.authenticate(c, h, creds, func(userID uint32, reason wire.EvictionReason) {
		if _, open := n.conns[c.id]; open {
			n.login(c, h, userID, reason)
		}
	})
}

// login binds c as userID once authentication is done: the session it has,
// or a new one committed through the log.
func (n *Node) login(c *conn, h wire.RequestHeader, userID uint32, reason wire.EvictionReason) {
	if reason != 0 {
		n.evict(c, h, reason)
		return
	}
	if c.bound && n.bindingCurrent(c) {
		n.registered(c, h, c.userID, c.session)
		return
	}
	c.bound = false
	n.proposeRegister(c, h, userID)
}

// bindingCurrent reports that c is bound to its client's newest session: in
// a replica set the client may have registered again through another
// replica since, and answering with the older session would have its next
// request evicted as SessionTooLow (sim cluster seeds 661, 966).
func (n *Node) bindingCurrent(c *conn) bool {
	e, ok := n.clients[c.client]
	return ok && e.session == c.session
}

// proposeRegister commits the binding of h.Client to userID (4.3 step 6),
// unless another user holds that client id or the log is full.
func (n *Node) proposeRegister(c *conn, h wire.RequestHeader, userID uint32) {
	e, ok := n.clients[h.Client]
	if ok && e.userID != userID {
		n.evict(c, h, wire.EvictSessionError)
		return
	}
	if !ok && len(n.clients) >= n.clientsTableMax() && n.cfg.HeartbeatIntervalTicks != 0 && n.leading() {
		// Retire the sessions whose lease ran out now, not at the next sweep:
		// their logouts take ops before this register's, so it finds room.
		n.expireLeases()
	}
	p := vsr.Prepare{
		Kind: vsr.KindRegister, Timestamp: n.now.NowMicros,
		ClientLo: h.Client.Lo, ClientHi: h.Client.Hi, UserID: userID,
		Operation: uint8(wire.OpRegister), Body: n.registerBody(userID),
	}
	if !n.proposeFor(c, h, p, "") {
		n.reject(c, h, wire.TransientNotAccepted)
	}
}

// authenticate tries the password shape, then the token shape, and calls
// done with the user or the eviction reason. The password check is a job
// handed out in turn with other sources' (logins.go: argon2id is too slow
// for the loop); the token check is cheap.
func (n *Node) authenticate(c *conn, h wire.RequestHeader, creds []byte, done func(uint32, wire.EvictionReason)) {
	l, code := wire.DecodeLoginPassword(creds)
	if code != wire.OK {
		done(n.tokenLogin(creds, wire.EvictMalformedLogin))
		return
	}
	n.checkPassword(c, h, l, done)
}

// tokenLogin checks the token shape; fail is the reason when it does not decode.
func (n *Node) tokenLogin(creds []byte, fail wire.EvictionReason) (uint32, wire.EvictionReason) {
	t, code := wire.DecodeLoginToken(creds)
	if code != wire.OK {
		return 0, fail
	}
	pat, ok := n.meta.TokenByHash(n.crypto.HashToken(t.Token))
	if !ok || pat.Expired(n.now.NowMicros) {
		return 0, wire.EvictInvalidToken
	}
	u, ok := n.meta.User(wire.NumericID(pat.UserID))
	if !ok || u.Status != metadata.UserActive {
		return 0, wire.EvictUserInactive
	}
	return u.ID, 0
}

// registered binds c to the session and sends the Register reply.
func (n *Node) registered(c *conn, h wire.RequestHeader, userID uint32, session uint64) {
	c.bound, c.userID, c.session, c.client = true, userID, session, h.Client
	r := n.replyHeader(h, session)
	n.reply(c, wire.ResultFrame(r, n.registerReply(userID, session))...)
}

// registerReply is the body of a Register (and a BindSession) answer.
func (n *Node) registerReply(userID uint32, session uint64) []byte {
	w := wire.Writer{}
	wire.RegisterReply{
		UserID: userID, Session: session,
		Protocol: wire.ProtocolVersionCurrent, ServerVersion: n.cfg.ServerVersion,
	}.Encode(&w)
	return w.Buf
}

// logout commits the end of c's session (4.8); an unbound logout is a no-op.
func (n *Node) logout(c *conn, h wire.RequestHeader) {
	if !c.bound {
		n.raw(c, h)
		return
	}
	p := logoutPrepare(c.client, c.session, n.now.NowMicros)
	p.Body = append(p.Body, logoutByClient) // the session's own user ends it (MCL-27)
	if !n.proposeFor(c, h, p, "") {
		n.deny(c, h, wire.TransientNotAccepted)
	}
}

// logoutByClient, a Logout body's optional ninth byte, marks a logout the
// client asked for; without it (lease expiry, a stale member, journals of
// older builds) the server ended the session.
const logoutByClient = 1

// logoutPrepare ends the session of client numbered session. The number is
// in the op, so a logout that commits after the client registered again (a
// late implicit logout of its old connection) ends nothing.
func logoutPrepare(client wire.U128, session, nowMicros uint64) vsr.Prepare {
	return vsr.Prepare{
		Kind: vsr.KindLogout, Timestamp: nowMicros,
		ClientLo: client.Lo, ClientHi: client.Hi, Operation: uint8(wire.OpLogout),
		Body: binary.LittleEndian.AppendUint64(nil, session),
	}
}

// implicitLogout ends a stale session, unless the client registered again
// since (its session number then differs).
func (n *Node) implicitLogout(client wire.U128, session uint64) {
	e, ok := n.clients[client]
	if !ok || e.session != session {
		return
	}
	p := logoutPrepare(client, session, n.now.NowMicros)
	switch {
	case !n.mg.Replica().Full():
		n.propose(p)
	case n.canForward(client):
		n.forward(p) // nobody awaits the answer
	}
}
