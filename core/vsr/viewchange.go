package vsr

import (
	"math/bits"

	"github.com/iggygo/iggy/internal/assert"
)

// viewChangePreparesMax bounds the log suffix a do_view_change or a
// start_view carries; a replica that needs more repairs it from the sender.
const viewChangePreparesMax = pipelineMax

// enterViewChange starts voting for view v (v may be the current view when
// a restarted replica resumes a vote). The view is written to the
// superblock first; no message of v leaves before it is durable.
func (r *Replica) enterViewChange(v uint32) {
	if v < r.view {
		assert.Failf("view change to %d from %d", v, r.view)
	}
	r.marks.Hit("vsr.view_change.started")
	r.view = v
	r.status = StatusViewChange
	r.changeSince, r.resendAt = r.now, r.now
	r.voteNext = false
	r.svcFrom = 1<<r.id | r.votersOf(v)
	r.dvcSent = false
	r.votes = [ReplicasMax]*Message{}
	r.sync = syncState{}
	r.kick()
}

// enterRecovering waits, as a backup of the current view, for the primary's
// start_view (a restart, or a message showing a newer view).
func (r *Replica) enterRecovering() {
	// A primary never waits for its own start_view: a restarted one votes
	// for the next view instead (Open).
	assert.That(!r.IsPrimary(), "vsr: the primary of its view entered recovery")
	r.marks.Hit("vsr.recovery.started")
	r.status = StatusRecovering
	r.changeSince, r.resendAt = r.now, r.now
	r.voteNext = false
	r.sync = syncState{}
	r.kick()
}

// jumpView follows a newer view announced by its primary: the replica did
// not take part in the view change, so it asks for the view's log.
func (r *Replica) jumpView(v uint32) {
	if v <= r.view {
		assert.Failf("jump to view %d from %d", v, r.view)
	}
	r.marks.Hit("vsr.view.jump")
	r.view = v
	r.enterRecovering()
}

// kick sends what the status needs, once the view is durable; timers resend.
func (r *Replica) kick() {
	if !r.viewDurable() || r.now < r.resendAt {
		return
	}
	r.resendAt = r.now + r.t.ViewChangeRetransmitTicks
	if r.voteNext {
		r.broadcast(Message{Command: CmdStartViewChange, View: r.view + 1})
	}
	switch r.status {
	case StatusViewChange:
		svc := Message{Command: CmdStartViewChange, View: r.view}
		if r.handOffView == r.view {
			svc.Last = handOffMark
		}
		r.broadcast(svc)
		if r.dvcSent {
			r.sendDoViewChange()
		}
		r.maybeVote()
	case StatusRecovering:
		r.resendAt = r.now + r.t.RequestStartViewTicks
		r.send(Message{Command: CmdRequestStartView, To: r.Primary(), View: r.view, Commit: r.commit})
	}
}

// afterDurable continues once the superblock caught up: a finished install
// or election becomes the view's log, and pending votes go out.
func (r *Replica) afterDurable() {
	r.finishAdopt()
	r.resendAt = r.now
	r.kick()
	r.syncAdvance()
}

// finishAdopt ends an install or election whose log the superblock names
// (a restarted replica may find it named already).
func (r *Replica) finishAdopt() {
	s := &r.sync
	head, ready := s.readyToAdopt(r)
	if ready && r.sb.LogView == r.view && r.sb.LogHeadOp == head && r.sb.LogHeadChecksum == r.log.headChecksum() {
		purpose, commit := s.purpose, s.commit
		*s = syncState{}
		r.untrusted, r.claimOp = false, 0
		if purpose == syncElect {
			r.becomePrimary(commit)
		} else {
			r.marks.Hit("vsr.start_view.installed")
			r.commit = max(r.commit, min(commit, r.log.head()))
			r.primarySeen = r.now
			r.ackDue = true
		}
	}
}

// onStartViewChange counts a vote for view m.View. The replica follows
// only a quorum of votes (VSR-15), or proof that its view is over: a vote
// from its own primary (it stepped down), or a vote two views ahead, whose
// sender is in a view above this one already.
func (r *Replica) onStartViewChange(m *Message) {
	if m.View < r.view {
		return
	}
	r.recordStartViewChange(m.From, m.View)
	switch {
	case m.View == r.view:
		if r.status == StatusViewChange {
			r.svcFrom |= 1 << m.From
			r.maybeVote()
		}
		return
	case m.View > r.view+1 && m.Last == handOffMark && m.From == r.Primary() && r.status == StatusNormal:
		// Its primary handed the group off to a later view's primary
		// (HandOff): the view is over, and the vote names the one to join.
		r.marks.Hit("vsr.view_change.handoff_followed")
		r.enterViewChange(m.View)
	case m.View > r.view+1:
		r.marks.Hit("vsr.view_change.behind")
		r.enterViewChange(m.View - 1)
	case m.From == r.Primary() && r.status == StatusNormal:
		r.marks.Hit("vsr.view_change.primary_abdicated")
		r.startVoting()
		return
	}
	r.tallyVotes()
}

// maybeVote sends do_view_change to the new primary once a quorum voted.
func (r *Replica) maybeVote() {
	if r.status != StatusViewChange || r.dvcSent || !r.viewDurable() || bits.OnesCount32(r.svcFrom) < r.quorum {
		return
	}
	r.dvcSent = true
	r.marks.Hit("vsr.do_view_change.sent")
	r.sendDoViewChange()
}

// sendDoViewChange sends this replica's log claim to the new primary: its
// log view, head and commit, and the last prepares of its log. A log that
// lost ops its log view promised is flagged untrusted and claims the
// promised head without prepares, so an empty vote is never read as a log
// that lacks the latest writes (VSR-14).
func (r *Replica) sendDoViewChange() {
	head := r.log.head()
	m := Message{Command: CmdDoViewChange, From: r.id, To: r.Primary(), View: r.view, LogView: r.sb.LogView,
		Op: head, Checksum: r.log.headChecksum(), Commit: r.commit}
	if r.untrusted {
		m.Untrusted, m.Op, m.Checksum = true, max(head, r.claimOp), 0
	} else {
		first := max(r.commit, head-min(head, viewChangePreparesMax)) + 1
		m.Parent, _ = r.log.checksumAt(first - 1)
		m.Prepares = r.log.copyRange(first, head)
	}
	if m.To == r.id {
		r.recordVote(&m)
		return
	}
	r.send(m)
}

// onDoViewChange records a vote for the view this replica leads.
func (r *Replica) onDoViewChange(m *Message) {
	if m.View < r.view || m.View == r.view && r.status != StatusViewChange {
		return
	}
	if m.View > r.view {
		r.enterViewChange(m.View)
	}
	if r.Primary() != r.id {
		return
	}
	r.svcFrom |= 1 << m.From // its vote shows it saw a quorum leave the view
	r.recordVote(m)
	r.maybeVote()
}

func (r *Replica) recordVote(m *Message) {
	if m.Untrusted {
		r.marks.Hit("vsr.do_view_change.untrusted")
	}
	if !m.Untrusted && !validSuffix(m) {
		r.marks.Hit("vsr.message.corrupt")
		return
	}
	v := *m
	r.votes[m.From] = &v
	r.elect()
}

// validSuffix checks that a message's prepares are whole, consecutive and
// end at its head.
func validSuffix(m *Message) bool {
	for i := range m.Prepares {
		p := &m.Prepares[i]
		if _, ok := Verify(p); !ok || i > 0 && p.Op != m.Prepares[i-1].Op+1 {
			return false
		}
	}
	n := len(m.Prepares)
	return n == 0 || m.Prepares[n-1].Op == m.Op && m.Prepares[n-1].Checksum == m.Checksum
}

// elect chooses the new view's log once a quorum voted, own vote included:
// the log of the highest log view, the longest among those. Only trusted
// logs are chosen, and the choice must reach every head an untrusted vote
// of that log view promised; otherwise the primary waits for more votes.
func (r *Replica) elect() {
	if r.votes[r.id] == nil || r.sync.active {
		return
	}
	n, logView, commit := 0, uint32(0), uint64(0)
	for _, v := range r.votes[:r.count] {
		if v != nil {
			n++
			logView = max(logView, v.LogView)
			commit = max(commit, v.Commit)
		}
	}
	if n < r.quorum {
		return
	}
	var best *Message
	for _, v := range r.votes[:r.count] {
		if v != nil && !v.Untrusted && v.LogView == logView && (best == nil || v.Op > best.Op) {
			best = v
		}
	}
	for _, v := range r.votes[:r.count] {
		if best != nil && v != nil && v.Untrusted && v.LogView == logView && v.Op > best.Op {
			best = nil
		}
	}
	if best == nil || commit > best.Op {
		r.marks.Hit("vsr.view_change.waiting_for_trusted_log")
		return
	}
	if own := r.votes[r.id]; !own.Untrusted && own.LogView == logView && own.Op == best.Op {
		best = own // the same log: nothing to fetch
	}
	r.marks.Hit("vsr.view_change.elected")
	r.beginSync(syncElect, best.From, best.Op, best.Checksum, best.Parent, best.Prepares, commit)
}

// becomePrimary starts the view once its log is durable and named by the
// superblock: acknowledgements start over, and start_view tells the backups.
func (r *Replica) becomePrimary(commit uint64) {
	if !r.IsPrimary() || r.sb.LogView != r.view || r.status != StatusViewChange {
		assert.Failf("vsr: replica %d becomes primary of view %d (log view %d, status %v)", r.id, r.view, r.sb.LogView, r.status)
	}
	r.marks.Hit("vsr.view_change.completed")
	r.status = StatusNormal
	r.commit = max(r.commit, min(commit, r.log.head()))
	r.acks = [ReplicasMax]ackState{}
	for i := range r.heard {
		r.heard[i] = r.now
	}
	r.normalSince = r.now
	r.observe()
	for to := range r.count {
		if to != r.id {
			r.send(r.startView(to))
		}
	}
	r.heartbeatAt = r.now + r.t.HeartbeatTicks
}

// startView is the new view's log for one backup: head, commit, and the
// prepares after the commit point (the last viewChangePreparesMax of them).
func (r *Replica) startView(to uint8) Message {
	head := r.log.head()
	first := max(r.commit, head-min(head, viewChangePreparesMax)) + 1
	parent, _ := r.log.checksumAt(first - 1)
	return Message{Command: CmdStartView, To: to, View: r.view, Op: head, Checksum: r.log.headChecksum(),
		Commit: r.commit, Parent: parent, Prepares: r.log.copyRange(first, head)}
}

// onStartView adopts the new view's log from its primary.
func (r *Replica) onStartView(m *Message) {
	if m.View < r.view || m.From != r.primaryOf(m.View) {
		return
	}
	following := r.installed() || r.sync.active && r.sync.purpose == syncInstall
	if m.View == r.view && r.status == StatusNormal && following {
		r.primarySeen = r.now
		return
	}
	if m.Op < r.commit {
		// The primary's log only grows in its view and holds every
		// committed op: this is an old start_view, delayed.
		r.marks.Hit("vsr.start_view.stale")
		return
	}
	if !validSuffix(m) || r.transfer.emitted {
		return
	}
	r.marks.Hit("vsr.start_view.received")
	r.view = m.View
	r.status = StatusNormal
	r.primarySeen = r.now
	r.beginSync(syncInstall, m.From, m.Op, m.Checksum, m.Parent, m.Prepares, m.Commit)
}

// onRequestStartView answers a recovering backup of this view.
func (r *Replica) onRequestStartView(m *Message) {
	if m.View == r.view && r.IsPrimary() && r.installed() {
		r.heard[m.From] = r.now
		r.send(r.startView(m.From))
	}
}

// HandOff makes this primary leave its view for the first later view that
// to leads (PLACE-12): it votes for that view and enters it at once, as a
// primary that steps down does; its backups follow the vote of their own
// primary, and the new primary takes the longest log of a quorum as in any
// view change. The caller drains its accepted writes first, so nothing is
// left uncommitted. It reports false, changing nothing, unless this
// replica leads in normal status and to is another member.
func (r *Replica) HandOff(to uint8) bool {
	if !r.IsPrimary() || r.status != StatusNormal || to >= r.count || to == r.id {
		return false
	}
	v := r.view + 1
	for r.primaryOf(v) != to {
		v++
	}
	r.marks.Hit("vsr.view_change.handed_off")
	r.handOffView = v
	r.enterViewChange(v)
	return true
}

// handOffMark in a start_view_change's Last says its sender handed its
// view off (HandOff): its own backups join the view it names at once,
// where a vote two views ahead otherwise only shows they are behind.
const handOffMark = 1
