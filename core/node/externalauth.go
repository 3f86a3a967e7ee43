package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/wire"
)

// External authentication (AUTH-15..28, the reference's release notes): a
// password login naming a user this node does not know is asked of the
// external_auth service. The callout is a job the adapter runs beside the
// argon2 workers, bounded by the service timeout there and by
// ExternalAuthCalloutsMax here, so a slow service holds neither the loop,
// nor a worker, nor another login's turn. Nothing is cached: the SDKs send
// a refused-as-retryable login again, and the documents make the service
// answer the same request the same way, so every login asks again.

// callOut asks the service about p. Only the metadata primary calls out
// (AUTH-24); elsewhere, and with every callout slot taken (AUTH-27), the
// login is answered 58, which the SDKs retry.
func (n *Node) callOut(p *pendingLogin, source string) {
	if !n.leading() || n.callouts >= n.cfg.ExternalAuthCalloutsMax {
		n.loginRetry(p)
		return
	}
	n.callouts++
	job := compute.Request{
		Kind: compute.KindExternalAuth, Username: p.l.Username, Password: p.l.Password,
		Transport: transportName(p.conn.transport), ClientAddress: p.conn.addr,
	}
	n.handOut(job, func(res compute.Result) {
		n.callouts--
		n.calledOut(p, source, res)
		n.startLoginChecks()
	})
}

// calledOut ends p with the service's answer. An allow signs the client in
// as the existing, active, non-root user the service named (AUTH-16,
// AUTH-19, AUTH-22, AUTH-23); the user is looked up now, not when the
// callout started, so a user deleted meanwhile is not signed in.
func (n *Node) calledOut(p *pendingLogin, source string, res compute.Result) {
	switch wire.Code(res.Code) {
	case wire.OK:
		u, ok := n.meta.User(wire.NamedID(string(res.Data)))
		if ok && u.ID != metadata.RootUserID && u.Status == metadata.UserActive {
			n.logins.bySource.forget(source)
			p.then(u.ID, 0)
			return
		}
	case wire.TransientNotAccepted:
		n.loginRetry(p) // a timeout, a 5xx or 429: not the client's failure
		return
	}
	now := n.now.Ticks
	n.logins.bySource.failed(source, now)
	n.logins.byUser.failed(p.l.Username, now)
	p.then(0, wire.EvictInvalidCredentials)
}

// loginRetry answers p with 58 (nothing was committed; the client may send
// the login again), unless its connection closed meanwhile.
func (n *Node) loginRetry(p *pendingLogin) {
	if c, open := n.conns[p.conn.id]; open && c == p.conn {
		n.reject(p.conn, p.h, wire.TransientNotAccepted)
	}
}

// transportName is the transport as the callout names it.
func transportName(t bus.Transport) string {
	switch t {
	case bus.TransportTCP:
		return "tcp"
	case bus.TransportQUIC:
		return "quic"
	case bus.TransportHTTP:
		return "http"
	case bus.TransportWebSocket:
		return "ws"
	}
	return "unknown"
}
