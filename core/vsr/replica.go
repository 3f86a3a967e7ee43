package vsr

import (
	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// ReplicasMax bounds a replica set (VSR-13).
const ReplicasMax = 32

// pipelineMax bounds the ops prepared but not yet committed.
const pipelineMax = 1024

// WindowOpsDefault is the soft bound on the prepares kept in memory for
// peers' repairs (Config.WindowOps).
const WindowOpsDefault = 16384

// outboxMax bounds the messages gathered between two TakeReady calls; past
// it messages are dropped, which the protocol survives as it survives loss.
const outboxMax = 1 << 14

// Status is where a replica is in the protocol.
type Status uint8

const (
	// StatusNormal: the view is established; the primary proposes, backups
	// follow (a backup may still be installing the view's log).
	StatusNormal Status = iota
	// StatusViewChange: voting for a new view.
	StatusViewChange
	// StatusRecovering: restarted as a backup, waiting for the primary's
	// start_view before taking part.
	StatusRecovering
)

var statusNames = [...]string{"normal", "view_change", "recovering"}

func (s Status) String() string { return statusNames[s] }

// Config opens a replica of a group.
type Config struct {
	Replica uint8 // this replica's index, 0..Count-1
	Count   uint8 // replicas in the group, 1..ReplicasMax
	Journal *Journal
	// Superblock is the durable state read at boot (zero for a new group).
	Superblock Superblock
	// Prepares are the journal's ops after Superblock.CheckpointOp, in op
	// order (Recovery.Prepares).
	Prepares []Prepare
	// ClaimOp is Recovery.ClaimOp: damage at rest cut ops up to it.
	ClaimOp uint64
	// Images serves and receives checkpoint images (state transfer); nil
	// for a group of one.
	Images Images
	// Marks receives coverage marks; nil discards them.
	Marks mark.Sink
	// WindowOps is the soft bound on prepares kept in memory (0: default).
	WindowOps int
	// WindowBytesMax bounds the bytes of the prepares kept for peers'
	// repairs past the checkpoint (0: only WindowOps bounds them); a peer
	// that needs more gets a state transfer (VSR-20, VSR-21, VSR-22).
	WindowBytesMax uint64
	// StateChunkBytes is the size of a state transfer chunk (0: the max).
	StateChunkBytes int
	// Timeouts are the replica's timing (zero fields: the defaults).
	Timeouts Timeouts
}

// ackState is what one replica reported in the current view: every op up
// to written is in its page cache, up to durable on its disk, up to commit
// committed there.
type ackState struct {
	written, durable, commit uint64
}

// Replica orders the ops of one group and decides when each commits. It is
// stepped by one caller: Step for peer messages, Tick for time, journal
// completions through Complete (or the journal directly, then any call);
// it answers with TakeReady and TakeCommitted. With a replica set of one,
// an op commits as soon as its prepare is durable locally.
type Replica struct {
	id, count   uint8
	quorum      int
	journal     *Journal
	images      Images
	marks       mark.Sink
	windowOps   int
	windowBytes uint64
	chunkSize   int
	t           Timeouts // with defaults

	status  Status
	view    uint32
	sb      ViewState // durable
	sbWrite *ViewState
	log     window
	commit  uint64
	applied uint64 // delivered by TakeCommitted (or covered by an installed image)
	ckptOp  uint64 // newest durable checkpoint the caller reported

	untrusted bool   // the log lost ops its log view promised (VSR-14)
	claimOp   uint64 // the head the log view promised

	now uint64 // ticks

	// Normal status.
	acks        [ReplicasMax]ackState
	heard       [ReplicasMax]uint64 // primary: tick a replica was last heard in this view
	normalSince uint64
	heartbeatAt uint64
	primarySeen uint64 // backup: tick the primary was last heard
	ackDue      bool
	acked       ackState // backup: last reported

	// View change and recovery.
	changeSince uint64
	resendAt    uint64
	svcFrom     uint32              // bit per replica
	voteNext    bool                // votes for view+1 (VSR-15)
	handOffView uint32              // the view HandOff entered (its votes say so)
	svcVote     [ReplicasMax]uint32 // the view each peer last voted for
	svcAt       [ReplicasMax]uint64 // tick that vote was last heard
	dvcSent     bool
	votes       [ReplicasMax]*Message

	sync     syncState
	transfer transferState

	out     []Message
	install *Install
}

// NewReplica continues a standalone group (a replica set of one) whose
// journal holds ops 1..op, all committed.
func NewReplica(journal *Journal, view uint32, op uint64) *Replica {
	if journal.DurableOp() != op {
		assert.Failf("journal durable %d, replica op %d", journal.DurableOp(), op)
	}
	r := newReplica(Config{Count: 1, Journal: journal})
	r.view = view
	r.sb = ViewState{View: view, LogView: view}
	r.log = window{base: op}
	r.commit, r.applied, r.ckptOp = op, op, op
	r.invariants()
	return r
}

// Open continues a group from its durable state (see Config). A replica of
// a cluster that restarts does not resume as it was: in a view change it
// votes again; the primary of its view moves on to the next view (it may
// have lost prepares it sent, and must never propose the same op twice in
// one view); a backup recovers, asking the primary for the view's log.
func Open(cfg Config) *Replica {
	r := newReplica(cfg)
	sb := cfg.Superblock
	r.view = sb.View
	r.sb = ViewState{View: sb.View, LogView: sb.LogView, LogHeadOp: sb.LogHeadOp, LogHeadChecksum: sb.LogHeadChecksum}
	r.log = window{base: sb.CheckpointOp, baseChecksum: sb.CheckpointChecksum,
		baseKnown: sb.CheckpointOp == 0 || sb.CheckpointChecksum != 0}
	for _, p := range cfg.Prepares {
		r.log.append(p)
	}
	if r.log.head() != cfg.Journal.queuedOp {
		assert.Failf("log head %d, journal %d", r.log.head(), cfg.Journal.queuedOp)
	}
	r.commit, r.applied, r.ckptOp = sb.CheckpointOp, sb.CheckpointOp, sb.CheckpointOp
	if sb.LogHeadOp > sb.CheckpointOp && !r.log.has(sb.LogHeadOp, sb.LogHeadChecksum) {
		r.untrusted, r.claimOp = true, sb.LogHeadOp
		r.marks.Hit("vsr.recovery.untrusted_log")
	}
	if cfg.ClaimOp > r.log.head() && r.count > 1 {
		r.untrusted, r.claimOp = true, max(r.claimOp, cfg.ClaimOp)
		r.marks.Hit("vsr.recovery.damaged_log")
	}
	if !r.untrusted || r.claimOp <= r.sb.LogHeadOp {
		r.journal.ReleaseCut() // nothing to claim, or the superblock already holds it
	}
	switch {
	case r.count == 1 || sb.Sequence == 0:
		// Standalone, or a new group: its first view has nothing to recover.
	case r.sb.LogView < r.view:
		r.enterViewChange(r.view)
	case r.IsPrimary():
		r.marks.Hit("vsr.recovery.primary_restarted")
		r.enterViewChange(r.view + 1)
	default:
		r.enterRecovering()
	}
	r.invariants()
	return r
}

func newReplica(cfg Config) *Replica {
	if cfg.Count < 1 || cfg.Count > ReplicasMax {
		assert.Failf("replica count %d", cfg.Count)
	}
	if cfg.Replica >= cfg.Count {
		assert.Failf("replica %d of %d", cfg.Replica, cfg.Count)
	}
	assert.That(cfg.Count == 1 || cfg.Images != nil, "a cluster replica needs Images")
	r := &Replica{id: cfg.Replica, count: cfg.Count, quorum: int(cfg.Count)/2 + 1,
		journal: cfg.Journal, images: cfg.Images, marks: cfg.Marks,
		windowOps: cfg.WindowOps, windowBytes: cfg.WindowBytesMax, chunkSize: cfg.StateChunkBytes,
		t: cfg.Timeouts.withDefaults()}
	if r.marks == nil {
		r.marks = mark.Discard{}
	}
	if r.windowOps == 0 {
		r.windowOps = WindowOpsDefault
	}
	if r.chunkSize == 0 {
		r.chunkSize = StateChunkBytesMax
	}
	if r.windowOps <= 0 || r.windowOps > logOpsMax/2 {
		assert.Failf("window %d ops", r.windowOps)
	}
	if r.chunkSize <= 0 || r.chunkSize > StateChunkBytesMax {
		assert.Failf("state chunk %d bytes", r.chunkSize)
	}
	return r
}

// Status, View, LogView (durable), Commit (the highest op known committed),
// Op (the head of the log), Untrusted (the log falls short of what its log
// view promised), Primary and IsPrimary (of the current view) describe the
// replica.
func (r *Replica) Status() Status           { return r.status }
func (r *Replica) View() uint32             { return r.view }
func (r *Replica) LogView() uint32          { return r.sb.LogView }
func (r *Replica) Commit() uint64           { return r.commit }
func (r *Replica) Op() uint64               { return r.log.head() }
func (r *Replica) Untrusted() bool          { return r.untrusted }
func (r *Replica) Primary() uint8           { return r.primaryOf(r.view) }
func (r *Replica) ID() uint8                { return r.id }
func (r *Replica) Count() uint8             { return r.count }
func (r *Replica) IsPrimary() bool          { return r.primaryOf(r.view) == r.id }
func (r *Replica) primaryOf(v uint32) uint8 { return uint8(v % uint32(r.count)) }

// viewDurable reports whether the current view is in the superblock, so the
// replica may act in it (STOR-25).
func (r *Replica) viewDurable() bool { return r.sb.View == r.view }

// installed reports whether the replica holds the current view's log: a
// backup acknowledges prepares only then.
func (r *Replica) installed() bool { return r.sb.LogView == r.view && r.status == StatusNormal }

// Full reports whether Propose would refuse: the replica is not a primary
// in normal status, or its pipeline has no room.
func (r *Replica) Full() bool {
	return !r.IsPrimary() || !r.installed() || r.log.head()-r.commit >= pipelineMax
}

// Propose assigns the next op number to p, appends it to the log and sends
// it to the backups. Only the primary of an established view proposes;
// otherwise ok is false and nothing changed.
func (r *Replica) Propose(p Prepare) (uint64, bool) {
	if r.Full() {
		return 0, false
	}
	parent := r.log.headChecksum()
	p.Op = r.log.head() + 1
	p.View = r.view
	raw := Seal(&p)
	r.appendLocal(p, raw)
	for to := range r.count {
		if to != r.id && r.hasCredit(to) {
			r.send(Message{Command: CmdPrepare, To: to, View: r.view, Op: p.Op, Checksum: p.Checksum,
				Parent: parent, Commit: r.commit, Prepares: []Prepare{p}})
		}
	}
	r.invariants()
	return p.Op, true
}

// PrepareCreditBytesMax bounds, per backup, the prepare bytes the primary
// pushes past what that backup acknowledged as written (VSR-17). A backup
// that falls this far behind is sent nothing more until it acknowledges:
// it pulls what it missed through repair (the heartbeat names the head),
// at its own pace, and it never holds back the others, since commits need
// only a quorum.
const PrepareCreditBytesMax = 32 << 20

// hasCredit reports whether the log's newest prepare fits in the credit
// window of backup to.
func (r *Replica) hasCredit(to uint8) bool {
	if !r.IsPrimary() || to == r.id {
		assert.Failf("credit of %d asked by %d", to, r.id)
	}
	if r.log.bytesAfter(r.acks[to].written) <= PrepareCreditBytesMax {
		return true
	}
	r.marks.Hit("vsr.prepare.credit_exhausted")
	return false
}

// appendLocal adds a sealed prepare to the log and queues it for the journal.
func (r *Replica) appendLocal(p Prepare, raw []byte) {
	r.journal.Append(p.Op, raw)
	r.log.append(p)
}

// truncateLocal cuts the log after op; only ops above the commit point go.
func (r *Replica) truncateLocal(op uint64) {
	if op >= r.log.head() {
		return
	}
	if op < r.commit {
		assert.Failf("truncating to %d below commit %d", op, r.commit)
	}
	r.marks.Hit("vsr.log.truncated")
	r.log.truncate(op)
	r.journal.Truncate(op)
}

// Flush hands queued prepares to the disk; the caller calls it once per
// batch of steps, so one write and one sync cover them all.
func (r *Replica) Flush() { r.journal.Flush() }

// Complete passes a disk completion to the journal and reports whether it
// was the journal's.
func (r *Replica) Complete(c storage.Completion) bool {
	ok := r.journal.Complete(c)
	r.observe()
	r.invariants()
	return ok
}

// TakeCommitted returns the ops that became committed since the last call,
// in op order. Between an Install and its Installed it returns nothing: the
// image replaces what the caller applied.
func (r *Replica) TakeCommitted() []Prepare {
	r.observe()
	if r.commit <= r.applied || r.transfer.emitted {
		return nil
	}
	out := r.log.copyRange(r.applied+1, r.commit)
	if len(out) != int(r.commit-r.applied) {
		assert.Failf("committed ops %d..%d not in the log", r.applied+1, r.commit)
	}
	r.applied = r.commit
	r.evict()
	r.invariants()
	return out
}

// Undelivered calls f with every prepare the log holds past those
// TakeCommitted delivered, in op order: the ops a caller has not applied
// (committed or not), which it may count as pending.
func (r *Replica) Undelivered(f func(*Prepare)) {
	for op := r.applied + 1; op <= r.log.head(); op++ {
		if p, ok := r.log.get(op); ok {
			f(p)
		}
	}
}

// evict drops prepares no peer can need: applied, and covered by a
// checkpoint (a standalone replica has no peers, so applied is enough).
func (r *Replica) evict() {
	if r.count == 1 {
		r.log.evict(r.applied, 0, 0)
		return
	}
	r.log.evict(min(r.applied, r.ckptOp), r.windowOps, r.windowBytes)
}

// SetWindowBytesMax changes Config.WindowBytesMax: a node's repair budget
// is shared by its groups, so each one's share follows their number.
func (r *Replica) SetWindowBytesMax(b uint64) {
	r.windowBytes = b
	r.evict()
}

// Checkpointed tells the replica the caller's newest durable checkpoint,
// so prepares it covers may leave memory.
func (r *Replica) Checkpointed(op uint64) {
	if op > r.applied {
		assert.Failf("checkpoint %d above applied %d", op, r.applied)
	}
	r.ckptOp = max(r.ckptOp, op)
	r.evict()
	r.invariants()
}

// TakeReady returns what the caller must do: send messages, write the
// superblock, install a state transfer image.
func (r *Replica) TakeReady() Ready {
	r.observe()
	r.finishAdopt()
	r.sendAck()
	var rd Ready
	if want := r.wantState(); r.sbWrite == nil && want != r.sb {
		r.sbWrite = &want
		rd.Superblock = &want
	}
	rd.Install, r.install = r.install, nil
	rd.Messages, r.out = r.out, nil
	r.invariants()
	return rd
}

// SuperblockWritten reports that the superblock holding vs is durable.
func (r *Replica) SuperblockWritten(vs ViewState) {
	if r.sbWrite == nil || *r.sbWrite != vs {
		assert.Failf("superblock %+v written, %+v asked", vs, r.sbWrite)
	}
	if vs.View < r.sb.View || vs.LogView < r.sb.LogView {
		assert.Failf("superblock regresses: %+v after %+v", vs, r.sb)
	}
	r.sbWrite = nil
	r.sb = vs
	if !r.untrusted || vs.LogHeadOp >= r.claimOp {
		r.journal.ReleaseCut() // the claim, or a log that covers it, is durable
	}
	r.afterDurable()
	r.invariants()
}

// wantState is the view state that must be durable now.
func (r *Replica) wantState() ViewState {
	vs := r.sb
	vs.View = r.view
	if head, ok := r.sync.readyToAdopt(r); ok {
		vs.LogView = r.view
		vs.LogHeadOp, vs.LogHeadChecksum = head, r.log.headChecksum()
	} else if r.untrusted && r.claimOp > vs.LogHeadOp {
		// The claim outlives a restart only in the superblock: a head the
		// log does not hold (checksum 0 is no prepare's) votes untrusted
		// at the next boot, and recovery's cut waits for it (ReleaseCut).
		vs.LogHeadOp, vs.LogHeadChecksum = r.claimOp, 0
	}
	return vs
}

// send queues m from this replica; a full outbox drops it.
func (r *Replica) send(m Message) {
	if m.To >= r.count || m.To == r.id {
		assert.Failf("message to %d from %d", m.To, r.id)
	}
	if len(r.out) >= outboxMax {
		r.marks.Hit("vsr.outbox.full")
		return
	}
	m.From = r.id
	r.out = append(r.out, m)
}

// broadcast sends m to every other replica.
func (r *Replica) broadcast(m Message) {
	for to := range r.count {
		if to != r.id {
			m.To = to
			r.send(m)
		}
	}
}
