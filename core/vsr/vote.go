package vsr

import (
	"slices"

	"github.com/iggygo/iggy/internal/assert"
)

// voteFreshRetransmits: a peer's start_view_change counts for this many
// retransmit intervals after it was heard; voters resend every interval,
// so a vote not heard again for this long was withdrawn (its voter heard a
// primary).
const voteFreshRetransmits = 4

func (r *Replica) voteFreshTicks() uint64 {
	return voteFreshRetransmits * r.t.ViewChangeRetransmitTicks
}

// A replica never leaves its view on its own (VSR-15). When it stops
// hearing its primary, when its view change stalls, or when its recovery
// gets no answer, it votes for the next view (voteNext) and broadcasts
// start_view_change for it, but it changes view only once a quorum voted,
// its own vote included. A replica cut off from a healthy group thus keeps
// its view, and when it can hear again it simply follows its primary: a
// slow or isolated replica never forces a view change on healthy peers
// (VSR-18). The exceptions are proofs that the view is over anyway: a
// restarted primary, and a primary that steps down (VSR-16).

// ownVote is the highest view this replica votes for.
func (r *Replica) ownVote() uint32 {
	if r.voteNext {
		return r.view + 1
	}
	return r.view
}

// startVoting makes this replica vote for the view after its own.
func (r *Replica) startVoting() {
	if r.voteNext {
		return
	}
	r.voteNext = true
	r.resendAt = r.now
	r.kick()
	r.tallyVotes()
}

// recordVote notes a peer's start_view_change for view v.
func (r *Replica) recordStartViewChange(from uint8, v uint32) {
	if from >= r.count || from == r.id {
		assert.Failf("vote from %d", from)
	}
	if r.now-r.svcAt[from] >= r.voteFreshTicks() || v > r.svcVote[from] {
		r.svcVote[from] = v
	}
	r.svcAt[from] = r.now
}

// tallyVotes enters the highest view a quorum voted for, if above its own:
// the quorum-th highest of the fresh votes, its own included.
func (r *Replica) tallyVotes() {
	var votes [ReplicasMax]uint32
	for i := range r.count {
		votes[i] = r.view
		if i == r.id {
			votes[i] = r.ownVote()
		} else if r.now-r.svcAt[i] < r.voteFreshTicks() && r.svcVote[i] > r.view {
			votes[i] = r.svcVote[i]
		}
	}
	s := votes[:r.count]
	slices.Sort(s)
	if v := s[int(r.count)-r.quorum]; v > r.view {
		r.marks.Hit("vsr.view_change.quorum_voted")
		r.enterViewChange(v)
	}
}

// votersOf is the set of peers whose fresh vote is exactly v.
func (r *Replica) votersOf(v uint32) uint32 {
	var set uint32
	for i := range r.count {
		if i != r.id && r.now-r.svcAt[i] < r.voteFreshTicks() && r.svcVote[i] == v {
			set |= 1 << i
		}
	}
	return set
}
