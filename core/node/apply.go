package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// applyCommitted applies every newly committed op in order and answers its waiter.
func (n *Node) applyCommitted() {
	if n.cfg.clustered() && n.boot.phase != bootDone {
		return // partition recovery counts its logs; ops wait for it
	}
	for _, p := range n.mg.Replica().TakeCommitted() {
		n.applyPrepare(&p, false)
		if n.boot.phase == bootRootCommit && p.Op == 1 {
			n.boot.rootCommitted()
		}
	}
	n.maybeCheckpoint()
}

// applyPrepare applies one committed op. Replay at boot runs the same code
// without waiters, so receipts and sessions come back as they were.
func (n *Node) applyPrepare(p *vsr.Prepare, replaying bool) {
	if p.Op != n.applied+1 {
		assert.Failf("applying op %d after %d", p.Op, n.applied)
	}
	n.applied, n.appliedChecksum = p.Op, p.Checksum
	n.place.applied(p.Op)
	n.appliedLog.push(AppliedOp{Op: p.Op, Checksum: p.Checksum})
	w, waited := n.waiting[p.Op]
	delete(n.waiting, p.Op)
	if !waited {
		w, waited = n.takeForwarded(p)
	}
	client := wire.U128{Lo: p.ClientLo, Hi: p.ClientHi}
	if p.Kind == vsr.KindCommand && n.appliedBefore(p, client, w, waited) {
		return
	}
	switch p.Kind {
	case vsr.KindRegister:
		e, outcome := n.applyRegister(p)
		switch {
		case !waited:
			return
		case outcome == registerStale:
			n.reject(w.conn, w.header, wire.TransientNotAccepted) // nothing changed: log in again
			return
		case outcome == registerRefused:
			n.evict(w.conn, w.header, wire.EvictSessionError)
			return
		}
		n.demote(client, w.conn)
		n.registered(w.conn, w.header, e.userID, e.session)
	case vsr.KindLogout:
		n.applyLogout(p)
		if waited {
			n.raw(w.conn, w.header)
		}
	case vsr.KindCommand:
		body := n.applyCommand(p, replaying)
		n.answerCommand(p, client, body, w, waited)
	}
}

// appliedBefore answers a command whose request the client table already
// holds: in a replica set, a client retries on another replica after 57
// (outcome unknown), and both attempts may commit. The second one must not
// apply again; it is answered like a resend, from the receipt.
func (n *Node) appliedBefore(p *vsr.Prepare, client wire.U128, w waiter, waited bool) bool {
	e, ok := n.clients[client]
	if !ok || client.IsZero() || p.Request > e.watermark {
		return false
	}
	if waited {
		e.inflight = false
		n.resend(w.conn, w.header, e)
	}
	return true
}

// applyCommand applies a metadata command and returns the reply body.
func (n *Node) applyCommand(p *vsr.Prepare, replaying bool) []byte {
	cmd, err := metadata.Decode(p.Body)
	if err != nil {
		// The journal's checksum held, so this is a bug, not a torn write.
		n.fatal("op %d: undecodable command: %v", p.Op, err)
		return nil
	}
	n.applying = metadata.Ctx{Op: p.Op, NowMicros: p.Timestamp, UserID: p.UserID}
	res := n.meta.Apply(n.applying, cmd)
	n.applyEffects(res.Effects, replaying)
	if res.Code == wire.OK && changesRetention(cmd) {
		n.retune()
	}
	if res.Code == wire.OK && res.Stream != nil && n.cfg.clustered() {
		n.noteStreamKey(res.Stream)
	}
	if res.Code != wire.OK {
		return rejectionBody(res.Code)
	}
	return okBody(n.commandPayload(cmd, res))
}

// answerCommand records the receipt of a client's op and replies to its waiter.
func (n *Node) answerCommand(p *vsr.Prepare, client wire.U128, body []byte, w waiter, waited bool) {
	op := wire.Operation(p.Operation)
	if op == wire.OpDeleteSegments {
		op = wire.OpTruncatePartition // protocol-framing.md 2: DeleteSegments is answered as 68
	}
	if e, ok := n.clients[client]; ok && !client.IsZero() {
		e.inflight = false
		e.remember(receipt{request: p.Request, operation: op, op: p.Op, body: body})
	}
	if !waited {
		return
	}
	if w.token != "" && len(body) == 4 {
		tw := wire.Writer{Buf: body}
		wire.CreatePATReply{Token: w.token}.Encode(&tw)
		body = tw.Buf
	}
	// A committed reply reports its own op as the commit position, so a
	// resend from the receipt is the same frame byte for byte.
	r := n.replyHeader(w.header, p.Op)
	r.Operation, r.Commit = op, p.Op
	n.reply(w.conn, wire.RawFrame(r, body)...)
}

// demote unbinds every other connection bound to client (4.6: the newest
// registration takes the client id over).
func (n *Node) demote(client wire.U128, keep *conn) {
	for _, c := range n.sortedConns() {
		if c != keep && c.bound && c.client == client {
			c.bound = false
		}
	}
}

func okBody(payload []byte) []byte {
	w := wire.Writer{Buf: make([]byte, 0, 4+len(payload))}
	w.U32(0)
	w.Bytes(payload)
	return w.Buf
}

func rejectionBody(code wire.Code) []byte {
	w := wire.Writer{}
	w.U32(1)
	w.U32(0)
	w.U32(uint32(code))
	return w.Buf
}

// changesRetention reports commands that may change a topic's expiry, size
// cap or partition count, and so the retention of its open logs.
func changesRetention(cmd metadata.Command) bool {
	switch cmd.(type) {
	case *metadata.UpdateResource, *metadata.UpdateTopic, *metadata.CreatePartitions, *metadata.DeletePartitions:
		return true
	}
	return false
}
