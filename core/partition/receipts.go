package partition

import (
	"cmp"
	"encoding/binary"
	"errors"
	"maps"
	"slices"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// Session receipts of one partition (SESS-16..19, SESS-25, SESS-31): for
// each session's client id, the last send it made here and that send's
// first result, so a send resent after a lost reply gets that result back
// and is not applied twice. Partition sends do not consume a request id
// (protocol-framing.md 4.5: the SDK stamps the current counter), so a
// request id alone does not name a send: a resend is the same session,
// request id and body (Fingerprint, a hash of the batch as the client sent
// it, which carries its random message ids and origin timestamps). A new
// send of the client replaces its entry. The same bytes sent again on the
// connection that was answered are a new send: that reply was not lost
// (a connection delivers in order or dies), so the client means it again
// (a producer that resends one prepared buffer).
const (
	// DedupClientsMaxDefault is partition.dedup_clients_max's default.
	DedupClientsMaxDefault = 8192
	// DedupClientsMax is the largest table a partition keeps, whatever the
	// configuration says (config.md bounds dedup_clients_max by it); an
	// image holding more is malformed.
	DedupClientsMax = 65536
	// receiptsImageHeaderBytes: [limit u32][count u32].
	receiptsImageHeaderBytes = 8
	// receiptsImageEntryBytes: [client lo u64][client hi u64][session u64]
	// [request u64][fingerprint u64][base u64].
	receiptsImageEntryBytes = 48
)

// Attempt names one send: who sent it and what.
type Attempt struct {
	Client      wire.U128
	Session     uint64
	Request     uint64
	Fingerprint uint64
}

// Found is what a table knows of an attempt.
type Found uint8

const (
	FoundNew       Found = iota // not a resend: apply it
	FoundCommitted              // a resend of a committed send: answer Base
	FoundPending                // a resend of a send not committed yet: 57
	FoundFull                   // a new writer while the table is full (SESS-31)
	// FoundAnswered: the committed send again on the connection that was
	// answered, a new send of the same bytes.
	FoundAnswered
)

// receiptEntry is one client's last send: the committed one (done), and
// one admitted but not committed yet (pending, standalone logs only).
type receiptEntry struct {
	done, pending       Attempt
	base, pendingBase   uint64
	hasDone, hasPending bool
	// answeredConn is the connection the done send was answered on (0:
	// none known); local to this replica, not in the image.
	answeredConn uint64
}

// Receipts is the table of one partition. Its limit is the capacity the
// partition's group committed with its first receipt (SESS-27); 0 until
// then.
type Receipts struct {
	limit    int
	byClient map[wire.U128]*receiptEntry
}

// NewReceipts returns an empty table with no committed limit.
func NewReceipts() *Receipts {
	return &Receipts{byClient: make(map[wire.U128]*receiptEntry)}
}

// Len is the number of clients the table holds.
func (r *Receipts) Len() int { return len(r.byClient) }

// Limit is the committed capacity, 0 before the first receipt.
func (r *Receipts) Limit() int { return r.limit }

// CommitLimit fixes the table's capacity at stamp unless one is committed
// already (SESS-27: later configurations do not change it, SESS-29), and
// returns the capacity in force.
func (r *Receipts) CommitLimit(stamp int) int {
	if r.limit == 0 {
		r.limit = min(max(stamp, 1), DedupClientsMax)
	}
	return r.limit
}

// Check decides an attempt that arrived on connection conn against the
// table; capacity is the limit a new writer is held to (the committed one
// once there is one). A retry of the committed send gets its base offset,
// unless conn is the connection it was answered on; an entry of another
// session is not that session's (SESS-20) and is replaced by its next send.
func (r *Receipts) Check(a Attempt, capacity int, conn uint64) (Found, uint64) {
	e, ok := r.byClient[a.Client]
	switch {
	case !ok:
		if len(r.byClient) >= r.capacity(capacity) {
			return FoundFull, 0
		}
		return FoundNew, 0
	case e.hasDone && e.done == a && conn != 0 && e.answeredConn == conn:
		return FoundAnswered, 0
	case e.hasDone && e.done == a:
		return FoundCommitted, e.base
	case e.hasPending && e.pending == a:
		return FoundPending, e.pendingBase
	}
	return FoundNew, 0
}

func (r *Receipts) capacity(proposed int) int {
	if r.limit > 0 {
		return r.limit
	}
	return min(max(proposed, 1), DedupClientsMax)
}

// entry returns a's entry, made if need be. A full table is the caller's
// refusal to make (Check), except at a replica's apply, where the
// committed limit already decided it.
func (r *Receipts) entry(a Attempt) *receiptEntry {
	e, ok := r.byClient[a.Client]
	if !ok {
		assert.That(len(r.byClient) < DedupClientsMax, "partition: receipts table past its bound")
		e = &receiptEntry{}
		r.byClient[a.Client] = e
	}
	return e
}

// Answered notes that the committed send a was answered on connection
// conn.
func (r *Receipts) Answered(a Attempt, conn uint64) {
	if e, ok := r.byClient[a.Client]; ok && e.hasDone && e.done == a {
		e.answeredConn = conn
	}
}

// Admit notes a send appended at base whose write is not durable yet: a
// resend meanwhile gets 57, and the entry's committed receipt stays until
// it commits (SESS-25: an attempt that fails does not replace it).
func (r *Receipts) Admit(a Attempt, base uint64) {
	e := r.entry(a)
	e.pending, e.pendingBase, e.hasPending = a, base, true
}

// Commit makes the pending send a committed receipt (SESS-19).
func (r *Receipts) Commit(a Attempt) {
	e, ok := r.byClient[a.Client]
	if !ok || !e.hasPending || e.pending != a {
		return // replaced by a later send of the client, or retired
	}
	e.done, e.base, e.hasDone, e.hasPending, e.answeredConn = a, e.pendingBase, true, false, 0
}

// Abandon forgets a pending send whose write failed: nothing was applied,
// so a resend may apply it. A client left with no receipt leaves the table.
func (r *Receipts) Abandon(a Attempt) {
	e, ok := r.byClient[a.Client]
	if !ok || !e.hasPending || e.pending != a {
		return
	}
	e.hasPending = false
	if !e.hasDone {
		delete(r.byClient, a.Client)
	}
}

// Record is a replica's commit of a send at base: its receipt replaces the
// client's previous one.
func (r *Receipts) Record(a Attempt, base uint64) {
	e := r.entry(a)
	e.done, e.base, e.hasDone, e.answeredConn = a, base, true, 0
	if e.hasPending && e.pending == a {
		e.hasPending = false
	}
}

// Session names one session of a client: its number is the op of its
// register.
type Session struct {
	Client wire.U128
	ID     uint64
}

// Retire frees the entry of a session that ended (SESS-7, SESS-8), unless
// the client has since sent in a newer session.
func (r *Receipts) Retire(s Session) bool {
	e, ok := r.byClient[s.Client]
	if !ok || e.hasDone && e.done.Session > s.ID || e.hasPending && e.pending.Session > s.ID {
		return false
	}
	delete(r.byClient, s.Client)
	return true
}

// Ended lists, in client order, up to max sessions of committed entries
// that ended says have ended.
func (r *Receipts) Ended(ended func(Session) bool, max int) []Session {
	var out []Session
	for _, id := range slices.SortedFunc(maps.Keys(r.byClient), compareClients) {
		e := r.byClient[id]
		if len(out) >= max {
			break
		}
		if s := (Session{Client: id, ID: e.done.Session}); e.hasDone && !e.hasPending && ended(s) {
			out = append(out, s)
		}
	}
	return out
}

// Holds reports whether client has an entry.
func (r *Receipts) Holds(client wire.U128) bool {
	_, ok := r.byClient[client]
	return ok
}

// AppendImage appends the committed part of the table to b, in client id
// order (no map order reaches the bytes): [limit u32][count u32], then
// count entries.
func (r *Receipts) AppendImage(b []byte) []byte {
	ids := slices.SortedFunc(maps.Keys(r.byClient), compareClients)
	count := 0
	for _, id := range ids {
		if r.byClient[id].hasDone {
			count++
		}
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(r.limit))
	b = binary.LittleEndian.AppendUint32(b, uint32(count))
	for _, id := range ids {
		e := r.byClient[id]
		if !e.hasDone {
			continue
		}
		for _, v := range [...]uint64{id.Lo, id.Hi, e.done.Session, e.done.Request, e.done.Fingerprint, e.base} {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
	}
	return b
}

// ReceiptsImageLen is the length of the receipts image at the front of b
// (what AppendImage wrote, other data may follow); ok is false when b is
// too short to hold the one its header announces.
func ReceiptsImageLen(b []byte) (n int, ok bool) {
	if len(b) < receiptsImageHeaderBytes {
		return 0, false
	}
	count := uint64(binary.LittleEndian.Uint32(b[4:]))
	if count > DedupClientsMax || uint64(len(b)) < receiptsImageHeaderBytes+count*receiptsImageEntryBytes {
		return 0, false
	}
	return receiptsImageHeaderBytes + int(count)*receiptsImageEntryBytes, true
}

// DecodeReceiptsImage reads what AppendImage wrote, which must be all of b.
func DecodeReceiptsImage(b []byte) (*Receipts, error) {
	if len(b) < receiptsImageHeaderBytes {
		return nil, errors.New("short receipts image")
	}
	limit, count := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	if limit > DedupClientsMax || count > limit ||
		uint64(len(b)) != receiptsImageHeaderBytes+uint64(count)*receiptsImageEntryBytes {
		return nil, errors.New("receipts image length does not match its entries")
	}
	r := NewReceipts()
	r.limit = int(limit)
	var last wire.U128
	for i := range int(count) {
		e := b[receiptsImageHeaderBytes+i*receiptsImageEntryBytes:]
		u := func(k int) uint64 { return binary.LittleEndian.Uint64(e[8*k:]) }
		a := Attempt{Client: wire.U128{Lo: u(0), Hi: u(1)}, Session: u(2), Request: u(3), Fingerprint: u(4)}
		if i > 0 && compareClients(last, a.Client) >= 0 {
			return nil, errors.New("receipts image entries are not in client order")
		}
		last = a.Client
		r.Record(a, u(5))
	}
	return r, nil
}

// compareClients orders client ids (Hi, then Lo).
func compareClients(x, y wire.U128) int {
	return cmp.Or(cmp.Compare(x.Hi, y.Hi), cmp.Compare(x.Lo, y.Lo))
}
