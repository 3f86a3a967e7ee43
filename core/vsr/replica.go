package vsr

import "github.com/iggygo/iggy/internal/assert"

// pipelineMax bounds the ops prepared but not yet committed.
const pipelineMax = 1024

// Replica orders the ops of one group and decides when each commits. With a
// replica set of one, an op commits as soon as its prepare is durable locally;
// the multi-replica protocol (prepare_ok quorums, view changes) extends this
// same object.
type Replica struct {
	journal *Journal
	view    uint32
	op      uint64
	commit  uint64
	pending []Prepare // ops commit+1..op, in order
}

// NewReplica continues a group whose journal holds ops 1..op, all committed.
func NewReplica(journal *Journal, view uint32, op uint64) *Replica {
	assert.That(journal.DurableOp() == op, "journal durable %d, replica op %d", journal.DurableOp(), op)
	return &Replica{journal: journal, view: view, op: op, commit: op}
}

// Full reports whether the pipeline has no room for another op.
func (r *Replica) Full() bool { return len(r.pending) >= pipelineMax }

// Propose assigns the next op number to p and starts making it durable.
func (r *Replica) Propose(p Prepare) uint64 {
	assert.That(!r.Full(), "pipeline full")
	r.op++
	p.Op = r.op
	p.View = r.view
	r.journal.Append(&p)
	r.pending = append(r.pending, p)
	return p.Op
}

// Flush hands queued prepares to the disk; the node calls it once per step.
func (r *Replica) Flush() { r.journal.Flush() }

// TakeCommitted returns the ops that became committed since the last call, in op order.
func (r *Replica) TakeCommitted() []Prepare {
	durable := r.journal.DurableOp()
	n := 0
	for n < len(r.pending) && r.pending[n].Op <= durable {
		n++
	}
	if n == 0 {
		return nil
	}
	out := r.pending[:n:n]
	r.pending = r.pending[n:]
	r.commit = out[n-1].Op
	return out
}

// Op is the highest op assigned; Commit the highest committed.
func (r *Replica) Op() uint64     { return r.op }
func (r *Replica) Commit() uint64 { return r.commit }
func (r *Replica) View() uint32   { return r.view }
