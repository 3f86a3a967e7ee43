package vsr

import "github.com/iggygo/iggy/internal/assert"

// Timeouts, in ticks of clock.TickMillis (10 ms); the defaults of the
// [cluster] settings of config.md.
const (
	// HeartbeatTicks: the primary sends commit to every backup this often
	// (commit_broadcast_interval).
	HeartbeatTicks = 50
	// ViewChangeTimeoutTicks: a backup that hears nothing from its primary
	// this long votes for the next view (heartbeat_timeout).
	ViewChangeTimeoutTicks = 500
	// StepDownTicks: a primary that hears from no quorum this long steps
	// down and votes for the next view (VSR-16).
	StepDownTicks = 500
	// ViewChangeRetransmitTicks: votes are sent again this often
	// (view_change_retransmit_interval).
	ViewChangeRetransmitTicks = 50
	// ViewChangeStatusTicks: a view change that did not finish in this long
	// moves on to the next view (view_change_status_timeout).
	ViewChangeStatusTicks = 500
	// RequestStartViewTicks: a recovering backup asks again this often
	// (request_start_view_retransmit_interval).
	RequestStartViewTicks = 100
	// RecoveringTimeoutTicks: a recovering backup that got no start_view in
	// this long votes for the next view.
	RecoveringTimeoutTicks = 500
	// RepairTicks: a repair or state transfer request unanswered this long
	// is sent again (repair_retry_interval).
	RepairTicks = 100
)

// Timeouts are a replica's timing and repair round, in ticks and ops,
// from the [cluster] keys (node.Config.VSR); a zero field takes the
// default constant above.
type Timeouts struct {
	HeartbeatTicks            uint64 // commit_broadcast_interval
	ViewChangeTimeoutTicks    uint64 // heartbeat_timeout
	StepDownTicks             uint64 // heartbeat_timeout
	ViewChangeRetransmitTicks uint64 // view_change_retransmit_interval
	ViewChangeStatusTicks     uint64 // view_change_status_timeout
	RequestStartViewTicks     uint64 // request_start_view_retransmit_interval
	RecoveringTimeoutTicks    uint64 // heartbeat_timeout
	RepairTicks               uint64 // repair_retry_interval
	RepairOps                 uint64 // repair_chunk_max, at most repairOpsMax
}

// withDefaults fills every zero field with its default.
func (t Timeouts) withDefaults() Timeouts {
	def := func(v *uint64, d uint64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&t.HeartbeatTicks, HeartbeatTicks)
	def(&t.ViewChangeTimeoutTicks, ViewChangeTimeoutTicks)
	def(&t.StepDownTicks, StepDownTicks)
	def(&t.ViewChangeRetransmitTicks, ViewChangeRetransmitTicks)
	def(&t.ViewChangeStatusTicks, ViewChangeStatusTicks)
	def(&t.RequestStartViewTicks, RequestStartViewTicks)
	def(&t.RecoveringTimeoutTicks, RecoveringTimeoutTicks)
	def(&t.RepairTicks, RepairTicks)
	def(&t.RepairOps, repairOpsDefault)
	if t.RepairOps > repairOpsMax {
		assert.Failf("repair round of %d ops", t.RepairOps)
	}
	return t
}

// Step handles one message from a peer. Messages for another replica, from
// an unknown one or from itself are dropped: the network may deliver
// anything, and a bad message must not stop the replica.
func (r *Replica) Step(m Message) {
	if m.To != r.id || m.From >= r.count || m.From == r.id || r.count == 1 {
		return
	}
	r.observe()
	if m.View == r.view && r.IsPrimary() {
		r.heard[m.From] = r.now
	}
	switch m.Command {
	case CmdPrepare:
		r.onPrepare(&m)
	case CmdPrepareOk:
		r.onPrepareOk(&m)
	case CmdCommit:
		r.onCommit(&m)
	case CmdStartViewChange:
		r.onStartViewChange(&m)
	case CmdDoViewChange:
		r.onDoViewChange(&m)
	case CmdStartView:
		r.onStartView(&m)
	case CmdRequestStartView:
		r.onRequestStartView(&m)
	case CmdRequestPrepares:
		r.onRequestPrepares(&m)
	case CmdRepairPrepare:
		r.onRepairPrepare(&m)
	case CmdRangeEvicted:
		r.onRangeEvicted(&m)
	case CmdRequestStateTransfer:
		r.onRequestStateTransfer(&m)
	case CmdStateTransferTarget:
		r.onStateTransferTarget(&m)
	case CmdRequestStateChunk:
		r.onRequestStateChunk(&m)
	case CmdStateChunk:
		r.onStateChunk(&m)
	}
	r.invariants()
}

// Tick advances time by one tick and fires what is due.
func (r *Replica) Tick() {
	r.now++
	r.observe()
	if r.count == 1 {
		return
	}
	switch r.status {
	case StatusNormal:
		if r.IsPrimary() {
			r.tickPrimary()
		} else {
			r.tickBackup()
		}
	case StatusViewChange:
		if r.now-r.changeSince >= r.t.ViewChangeStatusTicks && !r.voteNext {
			r.marks.Hit("vsr.view_change.timeout")
			r.startVoting()
		}
		r.kick()
	case StatusRecovering:
		if r.now-r.changeSince >= r.t.RecoveringTimeoutTicks && !r.voteNext {
			r.marks.Hit("vsr.recovery.timeout")
			r.startVoting()
		}
		r.kick()
	}
	r.tickRepair()
	r.invariants()
}

func (r *Replica) tickPrimary() {
	if !r.installed() {
		return
	}
	if r.now >= r.heartbeatAt {
		r.heartbeat()
	}
	heard := 0
	for i := range r.count {
		if i == r.id || r.now-r.heard[i] < r.t.StepDownTicks {
			heard++
		}
	}
	if heard < r.quorum && r.now-r.normalSince >= r.t.StepDownTicks {
		r.marks.Hit("vsr.primary.step_down")
		r.enterViewChange(r.view + 1)
	}
}

func (r *Replica) tickBackup() {
	if r.now-r.primarySeen >= r.t.ViewChangeTimeoutTicks && !r.voteNext {
		r.marks.Hit("vsr.backup.primary_timeout")
		r.startVoting()
	}
	if r.voteNext {
		r.kick()
		r.tallyVotes() // votes heard earlier may have gone stale meanwhile
	}
}

// tickRepair resends a repair or chunk request that got no answer. A
// transfer no repair needs any more (the repair ended, or got past its
// checkpoint another way) is dropped: its source may be down for good.
func (r *Replica) tickRepair() {
	if t := &r.transfer; t.active && !t.emitted {
		switch {
		case !r.sync.active || t.cp.Op <= r.sync.cursor:
			r.marks.Hit("vsr.state_transfer.abandoned")
			*t = transferState{}
		case r.now-t.requestedAt >= r.t.RepairTicks:
			r.requestChunk()
		}
	}
	if s := &r.sync; s.active && s.requested && r.now-s.requestedAt >= r.t.RepairTicks {
		r.requestRepair()
	}
}
