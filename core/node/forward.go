package node

import (
	"encoding/binary"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
	"github.com/zeebo/xxh3"
)

// Bounds of forwarding (a backup handing client proposals to its primary).
const (
	// forwardsMax bounds the forwarded requests a backup awaits at once;
	// past it a request gets 58, as a full pipeline does.
	forwardsMax = 1024
	// forwardTimeoutTicks: a forwarded request not applied here this long
	// is answered 57 (its outcome is unknown: it may still commit). Long
	// enough for a commit to reach a backup by heartbeat.
	forwardTimeoutTicks = 300
)

// forwarded is a request this backup handed to the primary, awaiting its op
// here: the client table dedupes per client, so one per client suffices.
type forwarded struct {
	w       waiter
	kind    vsr.Kind
	request uint64 // the request id, or the nonce of a register or logout
	sentAt  uint64
}

// proposeFor proposes p for c's request h: here when this replica leads,
// through the primary when it is a backup of an established view (the
// reference forwards control-plane writes to the metadata primary). It
// reports false when neither can take it now; the caller answers 58.
func (n *Node) proposeFor(c *conn, h wire.RequestHeader, p vsr.Prepare, token string) bool {
	w := waiter{conn: c, header: h, token: token}
	switch {
	case !n.mg.Replica().Full():
		n.waiting[n.propose(p)] = w
	case n.canForward(h.Client):
		if p.Kind != vsr.KindCommand {
			p.Request = n.forwardNonce()
		}
		if p.Kind == vsr.KindRegister {
			n.stampSeen(p.Body, h.Client)
		}
		n.forwards[h.Client] = forwarded{w: w, kind: p.Kind, request: p.Request, sentAt: n.now.Ticks}
		n.forward(p)
	default:
		return false
	}
	return true
}

// forwardNonce names one forwarded register or logout, which has no request
// id of its own, so that its op is told from an earlier attempt's. It must
// differ across incarnations of this node too (a restarted backup applies
// the ops of its previous life as it catches up; sim cluster seeds 661,
// 966): it hashes the replica, the wall clock when this incarnation started
// and a counter.
func (n *Node) forwardNonce() uint64 {
	n.forwardSeq++
	var b [17]byte
	b[0] = n.cfg.Replica
	binary.LittleEndian.PutUint64(b[1:], n.startMicros)
	binary.LittleEndian.PutUint64(b[9:], n.forwardSeq)
	return xxh3.Hash(b[:])
}

// canForward: a backup in normal status with room, and no request of the
// same client already on its way.
func (n *Node) canForward(client wire.U128) bool {
	_, busy := n.forwards[client]
	return n.cfg.clustered() && !n.mg.Replica().IsPrimary() && n.mg.Replica().Status() == vsr.StatusNormal &&
		!busy && len(n.forwards) < forwardsMax
}

// forward sends p to the primary of the current view.
func (n *Node) forward(p vsr.Prepare) {
	n.ready.Peers = append(n.ready.Peers, PeerMessage{Msg: vsr.Message{
		Command: vsr.CmdRequest, From: n.cfg.Replica, To: n.mg.Replica().Primary(),
		View: n.mg.Replica().View(), Prepares: []vsr.Prepare{p},
	}})
}

// onForwarded proposes a request a backup forwarded, if this replica leads
// that view and has room; otherwise it is dropped and the backup's client
// times out and retries.
func (n *Node) onForwarded(m vsr.Message) {
	if len(m.Prepares) == 1 && m.Prepares[0].Kind == kindRenewals && m.View == n.mg.Replica().View() {
		n.onRenewals(m.Prepares[0].Body)
		return
	}
	if len(m.Prepares) != 1 || m.View != n.mg.Replica().View() || n.mg.Replica().Full() || n.boot.phase != bootDone {
		return
	}
	p := m.Prepares[0]
	p.Op, p.Checksum, p.View = 0, 0, 0
	switch p.Kind {
	case vsr.KindCommand, vsr.KindRegister, vsr.KindLogout:
		n.propose(p)
	}
}

// takeForwarded returns the waiter of a forwarded request that op p
// settles: the same client, kind and request id (or nonce).
func (n *Node) takeForwarded(p *vsr.Prepare) (waiter, bool) {
	client := wire.U128{Lo: p.ClientLo, Hi: p.ClientHi}
	f, ok := n.forwards[client]
	if !ok || f.kind != p.Kind || f.request != p.Request {
		return waiter{}, false
	}
	delete(n.forwards, client)
	return f.w, true
}

// expireForwards answers 57 to forwarded requests that did not come back in
// time, and forgets those of closed connections.
func (n *Node) expireForwards() {
	if len(n.forwards) == 0 {
		return
	}
	for _, id := range sortedClientIDs(n.forwards) {
		f := n.forwards[id]
		_, open := n.conns[f.w.conn.id]
		if open && n.now.Ticks-f.sentAt < forwardTimeoutTicks {
			continue
		}
		delete(n.forwards, id)
		if e, ok := n.clients[id]; ok {
			e.inflight = false
		}
		if open {
			n.unknownOutcome(f.w)
		}
	}
}

// unknownOutcome answers 57: the request may or may not commit.
func (n *Node) unknownOutcome(w waiter) {
	if w.header.Operation == wire.OpLogout {
		n.deny(w.conn, w.header, wire.TransientNotCommitted)
		return
	}
	n.reject(w.conn, w.header, wire.TransientNotCommitted)
}
