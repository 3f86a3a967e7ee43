package node

import (
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/compute"
)

// jobsInFlightMax bounds the jobs handed out and not yet answered.
const jobsInFlightMax = 64

// startJob hands r out and runs then with its result; false when too many
// jobs are in flight (the caller answers 58).
func (n *Node) startJob(r compute.Request, then func(compute.Result)) bool {
	if n.jobsBusy() >= jobsInFlightMax {
		return false
	}
	n.handOut(r, then)
	return true
}

// jobsBusy counts the jobs that hold a worker: external auth callouts wait
// on the network beside the workers and have their own bound.
func (n *Node) jobsBusy() int { return len(n.jobs) - int(n.callouts) }

// handOut gives r an id and queues it; then runs with its result.
func (n *Node) handOut(r compute.Request, then func(compute.Result)) {
	n.nextJobID++
	r.ID = n.nextJobID
	n.jobs[r.ID] = then
	n.ready.Compute = append(n.ready.Compute, r)
}

func (n *Node) onJobResult(res compute.Result) {
	then, ok := n.jobs[res.ID]
	if !ok {
		assert.Failf("result for unknown job %d", res.ID)
	}
	delete(n.jobs, res.ID)
	then(res)
}
