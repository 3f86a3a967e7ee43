package node

import (
	"encoding/binary"

	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// Send receipts (SESS-16..19, SESS-25, SESS-31; partition/receipts.go):
// a send resent in the same session after a lost reply gets its first
// result back and is not appended again. A standalone partition keeps its
// table beside its log (logReceipts) and settles a receipt when the write
// completes; a replica set's partition group keeps it as group state,
// recorded when the append applies on every replica, in the group's
// checkpoint image, so it survives failover, restart and state transfer.

// logReceipts is a standalone partition's table, for one incarnation of
// the log: a purge or a delete and create starts another (SESS-36).
type logReceipts struct {
	revision uint64
	table    *partition.Receipts
}

// dedupClientsMax is the configured table capacity a group commits at its
// first receipt (SESS-27).
func (n *Node) dedupClientsMax() int {
	if n.cfg.DedupClientsMax == 0 {
		return partition.DedupClientsMaxDefault
	}
	return int(min(n.cfg.DedupClientsMax, partition.DedupClientsMax))
}

// sendAttempt names a send by its session, request id and the checksum
// of the batch as the client sent it (before any sealing, whose nonces
// differ between attempts).
func sendAttempt(h wire.RequestHeader, batchChecksum uint64) partition.Attempt {
	return partition.Attempt{Client: h.Client, Session: h.Session, Request: h.Request, Fingerprint: batchChecksum}
}

// logReceiptsOf returns the table of standalone partition k's current
// incarnation.
func (n *Node) logReceiptsOf(k partKey, log *partition.Log) *partition.Receipts {
	r := n.receipts[k]
	if r == nil || r.revision != log.Revision() {
		r = &logReceipts{revision: log.Revision(), table: partition.NewReceipts()}
		r.table.CommitLimit(n.dedupClientsMax())
		n.receipts[k] = r
	}
	return r.table
}

// checkReceipt looks a send on c up in table t and answers what the table
// knows: a resend of a committed send gets its first result (SESS-16,
// SESS-18), one of a send not committed yet 57 (its outcome is unknown;
// SESS-25), a new writer at a full table 58 (never admitted; SESS-31). It
// returns what it found and whether it answered.
func (n *Node) checkReceipt(c *conn, h wire.RequestHeader, k partKey, t *partition.Receipts, a partition.Attempt) (partition.Found, bool) {
	found, base := t.Check(a, n.dedupClientsMax(), uint64(c.id))
	switch found {
	case partition.FoundCommitted:
		n.cfg.Marks.Hit("node.receipt.resend_answered")
		t.Answered(a, uint64(c.id))
		n.sendReply(c, h, k, base)
	case partition.FoundPending:
		n.cfg.Marks.Hit("node.receipt.resend_pending")
		n.deny(c, h, wire.TransientNotCommitted)
	case partition.FoundFull:
		n.cfg.Marks.Hit("node.receipt.table_full")
		n.deny(c, h, wire.TransientNotAccepted)
	case partition.FoundAnswered:
		n.cfg.Marks.Hit("node.receipt.same_bytes_again")
		return found, false
	default:
		return found, false
	}
	return found, true
}

// settleReceipt settles a standalone send's receipt when its write
// completed: committed, or forgotten when the write failed (nothing was
// appended, so a resend may append it).
func (n *Node) settleReceipt(k partKey, p pendingWrite, code wire.Code) {
	r := n.receipts[k]
	if !p.tracked || r == nil {
		return
	}
	if code == wire.OK {
		r.table.Commit(p.attempt)
		r.table.Answered(p.attempt, uint64(p.conn.id))
	} else {
		r.table.Abandon(p.attempt)
	}
}

// A partition group's send is a KindSessionAppend prepare: the attempt's
// session and fingerprint, the proposer's dedup_clients_max and flags
// before the batch record (the client id and request id are the prepare
// header's).
const (
	sessionAppendPrefixBytes = 24 // [session u64][fingerprint u64][capacity u32][flags u32]
	// sessionAppendAgain: the primary saw the recorded send's bytes again
	// on the connection it answered, a new send (Receipts.Check): apply it
	// even though the client's receipt names the same attempt.
	sessionAppendAgain = 1
)

// sessionAppend is a decoded KindSessionAppend body.
type sessionAppend struct {
	attempt  partition.Attempt
	capacity int
	again    bool
	rec      []byte
}

func encodeSessionAppend(a partition.Attempt, capacity int, again bool, rec []byte) []byte {
	b := make([]byte, sessionAppendPrefixBytes, sessionAppendPrefixBytes+len(rec))
	binary.LittleEndian.PutUint64(b, a.Session)
	binary.LittleEndian.PutUint64(b[8:], a.Fingerprint)
	binary.LittleEndian.PutUint32(b[16:], uint32(capacity))
	if again {
		binary.LittleEndian.PutUint32(b[20:], sessionAppendAgain)
	}
	return append(b, rec...)
}

// decodeSessionAppend splits a KindSessionAppend prepare; ok is false for
// a body too short to hold the prefix or with unknown flags.
func decodeSessionAppend(p *vsr.Prepare) (sessionAppend, bool) {
	if len(p.Body) < sessionAppendPrefixBytes || binary.LittleEndian.Uint32(p.Body[20:])&^sessionAppendAgain != 0 {
		return sessionAppend{}, false
	}
	a := partition.Attempt{Client: wire.U128{Lo: p.ClientLo, Hi: p.ClientHi}, Request: p.Request,
		Session: binary.LittleEndian.Uint64(p.Body), Fingerprint: binary.LittleEndian.Uint64(p.Body[8:])}
	return sessionAppend{attempt: a, capacity: int(binary.LittleEndian.Uint32(p.Body[16:])),
		again: binary.LittleEndian.Uint32(p.Body[20:]) == sessionAppendAgain, rec: p.Body[sessionAppendPrefixBytes:]}, true
}

// proposeSend proposes a send to partition k's group. Its primary answers
// a resend of a committed send from the group's table (a group's table
// holds no pending sends); a resend of one still in the pipeline is
// proposed again and applies as nothing (applySessionAppend), answered
// with the first one's offset.
func (n *Node) proposeSend(c *conn, h wire.RequestHeader, k partKey, a partition.Attempt, rec []byte) {
	again := false
	if g := n.groupOf(k); g != nil && g.leads() {
		found, answered := n.checkReceipt(c, h, k, g.receipts, a)
		if answered {
			return
		}
		again = found == partition.FoundAnswered
	}
	p := vsr.Prepare{Kind: vsr.KindSessionAppend, ClientLo: a.Client.Lo, ClientHi: a.Client.Hi, Request: a.Request,
		Body: encodeSessionAppend(a, n.dedupClientsMax(), again, rec)}
	n.proposeToGroup(c, h, k, p, nil)
}

// applySessionAppend applies a committed send on every replica alike: the
// group's first one commits the table's capacity (SESS-27); a resend of
// the client's recorded send appends nothing and answers its offset; a new
// writer past the capacity appends nothing and gets 58; any other send is
// appended and becomes the client's receipt.
func (n *Node) applySessionAppend(g *pgroup, log *partition.Log, p vsr.Prepare, w pgroupWaiter, waited bool) {
	s, ok := decodeSessionAppend(&p)
	if !ok {
		n.fatal("partition group %s: op %d has a malformed send body", g.dir(), p.Op)
		return
	}
	g.receipts.CommitLimit(s.capacity)
	found, base := g.receipts.Check(s.attempt, s.capacity, 0)
	switch {
	case found == partition.FoundCommitted && !s.again:
		n.cfg.Marks.Hit("node.receipt.duplicate_applied_as_nothing")
		if waited {
			g.receipts.Answered(s.attempt, uint64(w.conn.id))
			n.sendReply(w.conn, w.header, g.key, base)
		}
		return
	case found == partition.FoundFull:
		if waited {
			n.deny(w.conn, w.header, wire.TransientNotAccepted)
		}
		return
	}
	g.receipts.Record(s.attempt, g.nextOffset)
	if waited {
		// Its reply goes to this connection once the append is written.
		g.receipts.Answered(s.attempt, uint64(w.conn.id))
	}
	p.Body = s.rec
	n.applyAppend(g, log, p, w, waited)
}

// Retirement (SESS-7, SESS-8, SESS-33): the receipts of a session that
// ended go, so its slot serves a new writer. A standalone node frees them
// when the metadata op that ends the session applies, on every shard. A
// partition group frees them by a KindRetire op, so alike on every replica:
// its primary sweeps its table once it is half full and proposes the
// entries whose session this replica's metadata has ended.
const (
	// retireSessionsMax bounds the sessions one KindRetire op retires
	// (SESS-33: a barrier commits at most 128).
	retireSessionsMax = 128
	// retireEntryBytes: [client lo u64][client hi u64][session u64].
	retireEntryBytes = 24
	// receiptsSweepTicks spaces a group primary's sweeps.
	receiptsSweepTicks = 100
)

// shardRetire is the front's word to a host shard that sessions ended.
type shardRetire struct{ ended []partition.Session }

func (shardRetire) shardBody() {}

// sessionsEnded frees the standalone receipts of sessions that ended, on
// this shard and on every host.
func (n *Node) sessionsEnded(ended []partition.Session) {
	if n.cfg.clustered() || len(ended) == 0 {
		return
	}
	n.retireLogReceipts(ended)
	for s := uint8(1); s < n.cfg.Shards; s++ {
		n.toShard(s, shardRetire{ended: ended})
	}
}

// retireLogReceipts retires ended sessions from this shard's tables (each
// table on its own: map order reaches nothing).
func (n *Node) retireLogReceipts(ended []partition.Session) {
	for _, r := range n.receipts {
		for _, s := range ended {
			if r.table.Retire(s) {
				n.cfg.Marks.Hit("node.receipt.retired")
			}
		}
	}
}

// sweepReceipts proposes the retirement of ended sessions' entries of a
// group this replica leads, once its table is half full. A session is
// ended when this replica applied its register (a session number is its
// register's op) and its client no longer holds it: one it has not
// applied yet may be live.
func (n *Node) sweepReceipts(g *pgroup) {
	t := g.receipts
	if !g.leads() || t.Len() == 0 || t.Len() < t.Limit()/2 || n.now.Ticks < g.receiptsSweptAt+receiptsSweepTicks {
		return
	}
	g.receiptsSweptAt = n.now.Ticks
	ended := t.Ended(func(s partition.Session) bool {
		e, ok := n.clients[s.Client]
		return s.ID <= n.applied && (!ok || e.session != s.ID)
	}, retireSessionsMax)
	if len(ended) == 0 {
		return
	}
	body := make([]byte, 0, len(ended)*retireEntryBytes)
	for _, s := range ended {
		body = binary.LittleEndian.AppendUint64(body, s.Client.Lo)
		body = binary.LittleEndian.AppendUint64(body, s.Client.Hi)
		body = binary.LittleEndian.AppendUint64(body, s.ID)
	}
	if _, ok := g.host.Replica().Propose(vsr.Prepare{Kind: vsr.KindRetire, Timestamp: n.now.NowMicros, Body: body}); ok {
		n.cfg.Marks.Hit("node.receipt.retire_proposed")
	}
}

// applyRetire retires the sessions a KindRetire op names, on every replica.
func (n *Node) applyRetire(g *pgroup, p vsr.Prepare) {
	if len(p.Body)%retireEntryBytes != 0 || len(p.Body) > retireSessionsMax*retireEntryBytes {
		n.fatal("partition group %s: op %d has a malformed retire body", g.dir(), p.Op)
		return
	}
	for b := p.Body; len(b) > 0; b = b[retireEntryBytes:] {
		s := partition.Session{Client: wire.U128{Lo: binary.LittleEndian.Uint64(b), Hi: binary.LittleEndian.Uint64(b[8:])},
			ID: binary.LittleEndian.Uint64(b[16:])}
		if g.receipts.Retire(s) {
			n.cfg.Marks.Hit("node.receipt.retired")
		}
	}
}
