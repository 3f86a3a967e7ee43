package node

import (
	"encoding/binary"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// Session leases (SESS-5, SESS-7, CGRP-10). A session outlives its
// connections (SESS-4) for one session timeout, 1.2 × heartbeat.interval
// (SESS-6): a connection bound to it renews it, and so does its last request
// when the connection closes. A lease that runs out is retired by a Logout
// op the metadata primary proposes, so every replica retires it at the same
// op, its consumer-group memberships go with it and its slot of
// clients_table_max is free once that op commits.
//
// Leases are local and only the primary keeps them: a replica that becomes
// primary (or boots, restoring sessions from the journal and checkpoint
// whose connections died with the process) starts every session's lease at
// that moment, so a session it cannot see expires one timeout later. A backup
// forwards the sessions bound to its connections to the primary once per
// sweep instead (renewals).

// leaseSweepsPerInterval is how often per heartbeat interval leases are
// checked: a lease ends at most a tenth of an interval late.
const leaseSweepsPerInterval = 10

// renewalsPerMessageMax bounds the client ids one renewal message carries
// (16 bytes each); a backup with more bound sessions sends several.
const renewalsPerMessageMax = 4096

// kindRenewals marks the prepare of a backup's renewal message. It is never
// proposed nor journaled: it only rides a CmdRequest, and its body is the
// renewed client ids. It lies outside the vsr kinds so none can collide.
const kindRenewals vsr.Kind = 0xFF

// sessionTimeoutTicks is 1.2 × heartbeat.interval; 0 when heartbeats are off
// (sessions then end only by logout).
func (n *Node) sessionTimeoutTicks() uint64 {
	interval := n.cfg.HeartbeatIntervalTicks
	return interval + interval/5
}

// tickLeases renews the sessions bound here and, on the primary, retires
// those whose lease ran out; a backup sends its renewals instead.
func (n *Node) tickLeases() {
	interval := n.cfg.HeartbeatIntervalTicks
	if interval == 0 || n.now.Ticks%max(interval/leaseSweepsPerInterval, 1) != 0 {
		return
	}
	if n.leaseSweptAt != 0 && n.now.Ticks-n.leaseSweptAt > n.sessionTimeoutTicks()/2 {
		// This node stalled (a pause, a slow disk): renewals it could not
		// hear meanwhile must not end sessions, so every lease starts again.
		n.cfg.Marks.Hit("node.session.leases_restarted")
		clear(n.leases)
	}
	n.leaseSweptAt = n.now.Ticks
	if !n.leading() {
		clear(n.leases)
		if n.cfg.clustered() && n.mg.Replica().Status() == vsr.StatusNormal {
			n.sendRenewals()
		}
		return
	}
	n.expireLeases()
}

// expireLeases proposes the retirement of every session whose lease ran out,
// in client id order, while the pipeline has room (the rest wait for the
// next sweep). A session bound to a connection here is renewed first, and
// one without a lease gets one starting now.
func (n *Node) expireLeases() {
	for _, c := range n.conns {
		if c.bound {
			n.leases[c.client] = n.now.Ticks
		}
	}
	timeout := n.sessionTimeoutTicks()
	for _, id := range sortedClientIDs(n.leases) {
		if _, ok := n.clients[id]; !ok {
			delete(n.leases, id) // retired
		}
	}
	for _, id := range sortedClientIDs(n.clients) {
		last, ok := n.leases[id]
		switch {
		case !ok:
			n.leases[id] = n.now.Ticks
		case n.now.Ticks-last > timeout:
			if n.mg.Replica().Full() {
				return
			}
			n.cfg.Marks.Hit("node.session.lease_expired")
			n.propose(logoutPrepare(id, n.clients[id].session, n.now.NowMicros))
			n.leases[id] = n.now.Ticks // retried after another timeout if the op is lost
		}
	}
}

// leaseFrom starts a session's lease at tick: its connection closed, and its
// last request came then.
func (n *Node) leaseFrom(client wire.U128, tick uint64) {
	if n.cfg.HeartbeatIntervalTicks != 0 && n.leading() {
		n.leases[client] = tick
	}
}

// sendRenewals forwards to the primary the sessions bound to this backup's
// connections, and those with a request forwarded (a register whose commit
// has not reached this backup yet binds nothing here so far), and the
// primary renews their leases.
func (n *Node) sendRenewals() {
	renewed := map[wire.U128]bool{}
	for _, c := range n.conns {
		if c.bound {
			renewed[c.client] = true
		}
	}
	for id := range n.forwards {
		renewed[id] = true
	}
	ids := sortedClientIDs(renewed)
	for len(ids) > 0 {
		k := min(len(ids), renewalsPerMessageMax)
		body := make([]byte, 0, 16*k)
		for _, id := range ids[:k] {
			body = binary.LittleEndian.AppendUint64(body, id.Lo)
			body = binary.LittleEndian.AppendUint64(body, id.Hi)
		}
		n.forward(vsr.Prepare{Kind: kindRenewals, Body: body})
		ids = ids[k:]
	}
}

// onRenewals renews the leases a backup forwarded, of sessions that still
// exist.
func (n *Node) onRenewals(body []byte) {
	if n.cfg.HeartbeatIntervalTicks == 0 || !n.leading() || len(body)%16 != 0 || len(body) > 16*renewalsPerMessageMax {
		return
	}
	for b := body; len(b) > 0; b = b[16:] {
		id := wire.U128{Lo: binary.LittleEndian.Uint64(b), Hi: binary.LittleEndian.Uint64(b[8:])}
		if _, ok := n.clients[id]; ok {
			n.leases[id] = n.now.Ticks
		}
	}
}
