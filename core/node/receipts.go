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

// answeredByReceipt answers a send the table already knows: a resend of a
// committed send gets its first result (SESS-16, SESS-18), one of a send
// not committed yet 57 (its outcome is unknown; SESS-25), a new writer at a
// full table 58 (never admitted; SESS-31). It reports whether it answered.
func (n *Node) answeredByReceipt(c *conn, h wire.RequestHeader, k partKey, found partition.Found, base uint64) bool {
	switch found {
	case partition.FoundCommitted:
		n.cfg.Marks.Hit("node.receipt.resend_answered")
		n.sendReply(c, h, k, base)
	case partition.FoundPending:
		n.cfg.Marks.Hit("node.receipt.resend_pending")
		n.deny(c, h, wire.TransientNotCommitted)
	case partition.FoundFull:
		n.cfg.Marks.Hit("node.receipt.table_full")
		n.deny(c, h, wire.TransientNotAccepted)
	default:
		return false
	}
	return true
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
	} else {
		r.table.Abandon(p.attempt)
	}
}

// A partition group's send is a KindSessionAppend prepare: the attempt's
// session and fingerprint and the proposer's dedup_clients_max before the
// batch record (the client id and request id are the prepare header's).
const (
	sessionAppendPrefixBytes = 24 // [session u64][fingerprint u64][capacity u32][zero u32]
)

func encodeSessionAppend(a partition.Attempt, capacity int, rec []byte) []byte {
	b := make([]byte, sessionAppendPrefixBytes, sessionAppendPrefixBytes+len(rec))
	binary.LittleEndian.PutUint64(b, a.Session)
	binary.LittleEndian.PutUint64(b[8:], a.Fingerprint)
	binary.LittleEndian.PutUint32(b[16:], uint32(capacity))
	return append(b, rec...)
}

// decodeSessionAppend splits a KindSessionAppend prepare; ok is false for
// a body too short to hold the prefix.
func decodeSessionAppend(p *vsr.Prepare) (a partition.Attempt, capacity int, rec []byte, ok bool) {
	if len(p.Body) < sessionAppendPrefixBytes {
		return partition.Attempt{}, 0, nil, false
	}
	a = partition.Attempt{Client: wire.U128{Lo: p.ClientLo, Hi: p.ClientHi}, Request: p.Request,
		Session: binary.LittleEndian.Uint64(p.Body), Fingerprint: binary.LittleEndian.Uint64(p.Body[8:])}
	return a, int(binary.LittleEndian.Uint32(p.Body[16:])), p.Body[sessionAppendPrefixBytes:], true
}

// proposeSend proposes a send to partition k's group. Its primary answers
// a resend of a committed send from the group's table; a resend of one
// still in the pipeline is proposed again and applies as nothing
// (applySessionAppend), answered with the first one's offset.
func (n *Node) proposeSend(c *conn, h wire.RequestHeader, k partKey, a partition.Attempt, rec []byte) {
	if g := n.groupOf(k); g != nil && g.leads() {
		found, base := g.receipts.Check(a, n.dedupClientsMax())
		if found != partition.FoundPending && n.answeredByReceipt(c, h, k, found, base) {
			return
		}
	}
	p := vsr.Prepare{Kind: vsr.KindSessionAppend, ClientLo: a.Client.Lo, ClientHi: a.Client.Hi, Request: a.Request,
		Body: encodeSessionAppend(a, n.dedupClientsMax(), rec)}
	n.proposeToGroup(c, h, k, p, nil)
}

// applySessionAppend applies a committed send on every replica alike: the
// group's first one commits the table's capacity (SESS-27); a resend of
// the client's recorded send appends nothing and answers its offset; a new
// writer past the capacity appends nothing and gets 58; any other send is
// appended and becomes the client's receipt.
func (n *Node) applySessionAppend(g *pgroup, log *partition.Log, p vsr.Prepare, w pgroupWaiter, waited bool) {
	a, capacity, rec, ok := decodeSessionAppend(&p)
	if !ok {
		n.fatal("partition group %s: op %d has a short send body", g.dir(), p.Op)
		return
	}
	g.receipts.CommitLimit(capacity)
	found, base := g.receipts.Check(a, capacity)
	switch found {
	case partition.FoundCommitted:
		n.cfg.Marks.Hit("node.receipt.duplicate_applied_as_nothing")
		if waited {
			n.sendReply(w.conn, w.header, g.key, base)
		}
		return
	case partition.FoundFull:
		if waited {
			n.deny(w.conn, w.header, wire.TransientNotAccepted)
		}
		return
	}
	g.receipts.Record(a, g.nextOffset)
	p.Body = rec
	n.applyAppend(g, log, p, w, waited)
}
