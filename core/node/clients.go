package node

import (
	"cmp"
	"encoding/binary"
	"maps"
	"slices"

	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// repliesCachedMax is how many committed replies a client's entry keeps for
// resends (protocol-framing.md 4.5: the last five).
const repliesCachedMax = 5

// clientsMax bounds the client table whatever the configuration says (the
// largest clients_table_max config.md allows); a checkpoint image holding
// more is malformed.
const clientsMax = 65536

// clientsTableMax is the capacity of the client table: a new session past
// it is refused until a logout or an expiry retires one (SESS-8, SESS-30).
// It is the committed limit once the group has one (SESS-29), the
// configured one before.
func (n *Node) clientsTableMax() int {
	if n.clientsLimit > 0 {
		return n.clientsLimit
	}
	return n.clientsTableConfigured()
}

func (n *Node) clientsTableConfigured() int {
	if n.cfg.ClientsTableMax == 0 {
		return clientsMax
	}
	return int(min(n.cfg.ClientsTableMax, clientsMax))
}

// logClientsLimit says, after recovery, when the configured
// clients_table_max differs from the limit the group committed, which it
// keeps (SESS-29).
func (n *Node) logClientsLimit() {
	if n.clientsLimit > 0 && n.clientsLimit != n.clientsTableConfigured() {
		n.logf("metadata.clients_table_max is %d but this group committed %d with its first session; keeping %d",
			n.clientsTableConfigured(), n.clientsLimit, n.clientsLimit)
	}
}

// client is one entry of the replicated client table: a session and the
// receipts that make a resent request return its first result.
type client struct {
	userID    uint32
	session   uint64
	watermark uint64
	inflight  bool  // a metadata op of this client is proposed, not committed (local)
	claim     claim // what that op holds of a capped capacity (local)
	replies   [repliesCachedMax]receipt
	next      int // ring position of the next receipt
}

// receipt is a committed reply, kept byte for byte.
type receipt struct {
	request   uint64
	operation wire.Operation
	op        uint64
	body      []byte
}

func (e *client) remember(r receipt) {
	e.replies[e.next] = r
	e.next = (e.next + 1) % repliesCachedMax
	if r.request > e.watermark {
		e.watermark = r.request
	}
}

func (e *client) lookup(request uint64) (receipt, bool) {
	for _, r := range e.replies {
		if r.request == request && r.body != nil {
			return r, true
		}
	}
	return receipt{}, false
}

// registerBody is the body of a KindRegister prepare: the user the client
// id is registered for (the client id itself is in the prepare header), the
// client table capacity of the replica that proposed it, and the session
// a backup saw for the client when it forwarded the register (stampSeen).
// The first such register a group applies commits its capacity as the
// group's limit, and every replica applies every register under that
// limit, so all agree on a register at the cap whatever their own
// configuration, before a restart with another one and after. A register the
// primary proposes itself is never late, and its table may lag its own
// pipeline, so it is not checked (registerUnchecked).
func (n *Node) registerBody(userID uint32) []byte {
	b := binary.LittleEndian.AppendUint32(nil, userID)
	b = binary.LittleEndian.AppendUint32(b, uint32(n.clientsTableMax()))
	return binary.LittleEndian.AppendUint64(b, registerUnchecked)
}

// stampSeen writes into a register body the client's session as this
// replica sees it (0: none): a forwarded register that arrives after a
// newer one of the same client is then stale, so a login retried on
// another replica after 57 cannot overtake the session its client holds.
func (n *Node) stampSeen(body []byte, client wire.U128) {
	if len(body) != registerBodySize {
		assert.Failf("register body of %d bytes", len(body))
	}
	var seen uint64
	if e, ok := n.clients[client]; ok {
		seen = e.session
	}
	binary.LittleEndian.PutUint64(body[8:], seen)
}

// registerBodyV1Size is a body of the user alone, from before the capacity
// was stamped: it applies under clientsMax, unchecked, as it did then.
const (
	registerBodyV1Size = 4
	registerBodySize   = 16
	registerUnchecked  = ^uint64(0) // the seen session of a body that is not checked
)

// registration is a decoded register body.
type registration struct {
	userID   uint32
	capacity int
	seen     uint64
	checked  bool // the body names the session its proposer saw
}

// decodeRegisterBody reads either form; ok is false for any other size.
func decodeRegisterBody(b []byte) (registration, bool) {
	switch len(b) {
	case registerBodyV1Size:
		return registration{userID: binary.LittleEndian.Uint32(b), capacity: clientsMax}, true
	case registerBodySize:
		return registration{
			userID:   binary.LittleEndian.Uint32(b),
			capacity: min(int(binary.LittleEndian.Uint32(b[4:])), clientsMax),
			seen:     binary.LittleEndian.Uint64(b[8:]),
			checked:  binary.LittleEndian.Uint64(b[8:]) != registerUnchecked,
		}, true
	}
	return registration{}, false
}

// registerOutcome is what applying a register did.
type registerOutcome uint8

const (
	registerApplied registerOutcome = iota
	registerRefused                 // another user's client id, a malformed body or a full table
	registerStale                   // the client's session changed since it was proposed
)

// applyRegister binds a client id to a user: a new entry, or a resume of the
// same user's entry with a larger session number (the op). A different
// user's entry is left alone and reported, and so is a register proposed
// against a session that is no longer the client's.
func (n *Node) applyRegister(p *vsr.Prepare) (*client, registerOutcome) {
	r, ok := decodeRegisterBody(p.Body)
	if !ok {
		return nil, registerRefused
	}
	if len(p.Body) == registerBodySize {
		if n.clientsLimit == 0 {
			n.clientsLimit = r.capacity // SESS-29: the group's limit from now on
		}
		r.capacity = n.clientsLimit
	}
	id := wire.U128{Lo: p.ClientLo, Hi: p.ClientHi}
	e, ok := n.clients[id]
	var current uint64
	if ok {
		current = e.session
	}
	switch {
	case r.checked && current != r.seen:
		return nil, registerStale
	case ok && e.userID != r.userID:
		return nil, registerRefused
	case !ok && len(n.clients) >= r.capacity:
		return nil, registerRefused
	case !ok:
		e = &client{userID: r.userID}
		n.clients[id] = e
	}
	previous := e.session
	e.session = p.Op
	n.meta.RecordSession(metadata.Ctx{Op: p.Op, NowMicros: p.Timestamp, UserID: r.userID}, true,
		metadata.SessionChange{Client: metadataClientID(id), Session: p.Op, Previous: previous, ByUser: true, User: r.userID})
	return e, registerApplied
}

// applyLogout removes a client's entry and its group memberships.
func (n *Node) applyLogout(p *vsr.Prepare) {
	id := wire.U128{Lo: p.ClientLo, Hi: p.ClientHi}
	e, ok := n.clients[id]
	if !ok || (len(p.Body) != 8 && len(p.Body) != 9) || e.session != binary.LittleEndian.Uint64(p.Body) {
		return // that session is gone already, or was replaced by a newer one
	}
	delete(n.clients, id)
	n.sessionsEnded([]partition.Session{{Client: id, ID: e.session}})
	n.meta.Apply(metadata.Ctx{Op: p.Op, NowMicros: p.Timestamp}, &metadata.RemoveMember{Client: metadataClientID(id)})
	explicit := len(p.Body) == 9 && p.Body[8] == logoutByClient
	end := metadata.SessionChange{Client: metadataClientID(id), Session: e.session, Reason: "expired", User: e.userID}
	if explicit {
		end.Reason, end.ByUser = "logout", true
	}
	n.meta.RecordSession(metadata.Ctx{Op: p.Op, NowMicros: p.Timestamp, UserID: e.userID}, false, end)
	for _, c := range n.sortedConns() {
		if c.bound && c.client == id {
			c.bound = false
		}
	}
}

// endSessionsOf retires every session of a deleted or deactivated user, as
// part of the op that did it, so it happens alike on every replica (SESS-14):
// the entries go, their group memberships go, and the connections bound to
// them get eviction 1 at their next request.
func (n *Node) endSessionsOf(userID uint32, reason string) {
	var ids []wire.U128
	for id, e := range n.clients {
		if e.userID == userID {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, compareClientIDs)
	members := make([]metadata.ClientID, len(ids))
	ended := make([]partition.Session, len(ids))
	for i, id := range ids {
		ended[i] = partition.Session{Client: id, ID: n.clients[id].session}
		members[i] = metadataClientID(id)
		n.meta.RecordSession(n.applying, false, metadata.SessionChange{Client: members[i], Session: n.clients[id].session,
			Reason: reason, ByUser: true, User: userID})
		delete(n.clients, id)
	}
	n.meta.RemoveMembers(members)
	n.sessionsEnded(ended)
	for _, c := range n.sortedConns() {
		if c.bound && c.userID == userID {
			c.bound = false
		}
	}
}

// compareClientIDs orders client ids (Hi, then Lo), so no map order reaches
// output.
func compareClientIDs(a, b wire.U128) int {
	return cmp.Or(cmp.Compare(a.Hi, b.Hi), cmp.Compare(a.Lo, b.Lo))
}

// sortedClientIDs returns the keys of a table keyed by client id, in order.
func sortedClientIDs[V any](m map[wire.U128]V) []wire.U128 {
	return slices.SortedFunc(maps.Keys(m), compareClientIDs)
}
