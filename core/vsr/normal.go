package vsr

import (
	"slices"

	"github.com/iggygo/iggy/internal/assert"
)

// observe folds the journal's progress into the replica: the primary
// counts its own acknowledgement and may commit, a backup owes one.
func (r *Replica) observe() {
	written, durable := r.journal.WrittenOp(), r.journal.DurableOp()
	if !r.installed() {
		return
	}
	if r.IsPrimary() {
		r.acks[r.id] = ackState{written: written, durable: durable, commit: r.commit}
		r.advanceCommit()
		return
	}
	if written != r.acked.written || durable != r.acked.durable || r.commit != r.acked.commit {
		r.ackDue = true
	}
}

// advanceCommit commits every op durable on a quorum in this view.
func (r *Replica) advanceCommit() {
	c := canaryCommit(r, min(r.quorumOf(func(a ackState) uint64 { return a.durable }), r.log.head()))
	if c > r.commit {
		r.commit = c
		r.acks[r.id].commit = c
	}
}

// quorumOf is the highest value that a quorum of replicas reached.
func (r *Replica) quorumOf(f func(ackState) uint64) uint64 {
	var vals [ReplicasMax]uint64
	for i := range r.count {
		vals[i] = f(r.acks[i])
	}
	s := vals[:r.count]
	slices.Sort(s)
	return s[int(r.count)-r.quorum]
}

// onPrepare appends the primary's next prepare when it continues the log;
// a gap or a prepare that does not link starts a catch-up.
func (r *Replica) onPrepare(m *Message) {
	if !r.fromPrimaryInView(m) || len(m.Prepares) != 1 {
		return
	}
	p := m.Prepares[0]
	raw, ok := Verify(&p)
	if !ok || p.Op != m.Op {
		r.marks.Hit("vsr.message.corrupt")
		return
	}
	if r.sync.active && r.sync.purpose == syncInstall || r.transfer.emitted {
		return // the log is being replaced; this op is fetched after
	}
	head := r.log.head()
	switch {
	case p.Op == head+1 && r.log.has(head, m.Parent) && (!r.sync.active || r.sync.cursor == head):
		r.appendLocal(p, raw)
		if r.sync.active { // a catch-up: the prepare continues what it verified
			r.sync.cursor = p.Op
			r.syncAdvance()
		}
	case p.Op > head:
		r.catchUp(p.Op, p.Checksum)
	}
	r.learnCommit(m.Commit)
}

// onCommit is the primary's heartbeat: it carries the commit point and the
// head, so a backup that missed the last prepares asks for them.
func (r *Replica) onCommit(m *Message) {
	if !r.fromPrimaryInView(m) {
		return
	}
	if m.Op > r.log.head() && !(r.sync.active && r.sync.purpose == syncInstall) {
		r.catchUp(m.Op, m.Checksum)
	}
	r.learnCommit(m.Commit)
	r.ackDue = r.installed() // answering the heartbeat keeps the primary in office (VSR-16)
}

// fromPrimaryInView checks a primary's message to a backup of the same view;
// a message of a newer view makes the replica follow it.
func (r *Replica) fromPrimaryInView(m *Message) bool {
	if m.View > r.view {
		if m.From == r.primaryOf(m.View) {
			r.jumpView(m.View)
		}
		return false
	}
	if m.View < r.view || r.IsPrimary() || m.From != r.Primary() {
		return false
	}
	if r.status == StatusViewChange {
		// The primary of the view it votes for already runs it: the view
		// change finished without this replica, which asks for the log.
		r.marks.Hit("vsr.view_change.joined_late")
		r.enterRecovering()
		return false
	}
	if r.status != StatusNormal {
		return false
	}
	r.primarySeen = r.now
	r.voteNext = false // the primary is alive: withdraw the vote
	return true
}

// learnCommit commits up to the primary's commit point, within what the
// log holds of the view's log (during a repair, what it verified).
func (r *Replica) learnCommit(c uint64) {
	if !r.installed() {
		return
	}
	limit := r.log.head()
	if r.sync.active {
		limit = min(limit, r.sync.cursor)
	}
	r.commit = max(r.commit, min(c, limit))
}

// onPrepareOk records a backup's cumulative acknowledgement: it holds this
// view's log up to Op (the checksum proves which prepare), durably up to
// Durable, and has committed up to Commit.
func (r *Replica) onPrepareOk(m *Message) {
	if m.View != r.view || !r.IsPrimary() || !r.installed() {
		return
	}
	if m.Durable > m.Op || m.Op > r.log.head() {
		return
	}
	if c, ok := r.log.checksumAt(m.Op); ok && c != m.Checksum {
		return // an acknowledgement of another log: not of this view
	}
	a := &r.acks[m.From]
	a.written = max(a.written, m.Op)
	a.durable = max(a.durable, m.Durable)
	a.commit = max(a.commit, m.Commit)
	r.advanceCommit()
}

// sendAck sends the backup's acknowledgement if one is due.
func (r *Replica) sendAck() {
	if !r.ackDue || !r.installed() || r.IsPrimary() || !r.viewDurable() {
		return
	}
	r.ackDue = false
	head := r.log.head()
	a := ackState{written: min(r.journal.WrittenOp(), head), durable: min(r.journal.DurableOp(), head), commit: r.commit}
	c, _ := r.log.checksumAt(a.written)
	r.acked = a
	r.send(Message{Command: CmdPrepareOk, To: r.Primary(), View: r.view, Op: a.written, Checksum: c,
		Durable: a.durable, Commit: a.commit})
}

// heartbeat sends the commit point and head to every backup.
func (r *Replica) heartbeat() {
	assert.That(r.IsPrimary() && r.installed(), "vsr: a heartbeat from a replica that does not lead")
	r.broadcast(Message{Command: CmdCommit, View: r.view, Op: r.log.head(), Checksum: r.log.headChecksum(), Commit: r.commit})
	r.heartbeatAt = r.now + r.t.HeartbeatTicks
}

// Durability says when a reply for an op may be sent (DESIGN.md, Replication).
type Durability uint8

const (
	// NoAck: as soon as the primary accepted the op.
	NoAck Durability = iota
	// Replicated: the op's prepare is written (page cache) on a quorum.
	Replicated
	// Persisted: the op is committed: synced on a quorum.
	Persisted
	// Quorum: a quorum of replicas committed the op.
	Quorum
)

// ReplicatedOp is the highest op written on a quorum in this view (on a
// backup, the commit point, which implies it).
func (r *Replica) ReplicatedOp() uint64 {
	if !r.IsPrimary() || !r.installed() {
		return r.commit
	}
	return max(r.commit, min(r.quorumOf(func(a ackState) uint64 { return a.written }), r.log.head()))
}

// QuorumCommitOp is the highest op a quorum reported committed (0 on a
// backup, which is not told).
func (r *Replica) QuorumCommitOp() uint64 {
	if !r.IsPrimary() || !r.installed() {
		return 0
	}
	return min(r.quorumOf(func(a ackState) uint64 { return a.commit }), r.commit)
}

// Acknowledged reports whether op, proposed by this primary in its current
// view, may be acknowledged under d. A caller that saw the view change
// must answer its waiting requests otherwise (they may or may not commit).
func (r *Replica) Acknowledged(op uint64, d Durability) bool {
	if op == 0 || op > r.log.head() {
		return false
	}
	switch d {
	case NoAck:
		return true
	case Replicated:
		return op <= r.ReplicatedOp()
	case Persisted:
		return op <= r.commit
	default:
		return op <= r.QuorumCommitOp()
	}
}
