package server

import (
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/compute"
)

// jobsQueued bounds jobs waiting for a worker and results waiting for the
// loop; the node keeps far fewer in flight, so neither side ever blocks.
const jobsQueued = 256

// Jobs runs the node's compute requests on worker goroutines, off the loop.
type Jobs struct {
	run      func(compute.Request) compute.Result
	requests chan compute.Request
	results  chan compute.Result
}

// NewJobs starts workers goroutines running run.
func NewJobs(workers int, run func(compute.Request) compute.Result) *Jobs {
	j := &Jobs{run: run, requests: make(chan compute.Request, jobsQueued), results: make(chan compute.Result, jobsQueued)}
	for range max(workers, 1) {
		go func() {
			for r := range j.requests {
				j.results <- j.run(r)
			}
		}()
	}
	return j
}

// Submit queues jobs for the workers. An external auth callout waits on
// the network for up to external_auth.timeout, so it runs on a goroutine of
// its own beside the workers: argon2 checks never queue behind a slow
// service. The node bounds the callouts in flight (max_concurrent_callouts).
func (j *Jobs) Submit(reqs ...compute.Request) {
	for _, r := range reqs {
		if r.Kind == compute.KindExternalAuth {
			go func() { j.results <- j.run(r) }()
			continue
		}
		j.requests <- r
	}
}

// Results delivers finished jobs to the loop.
func (j *Jobs) Results() <-chan compute.Result { return j.results }

// Close stops the workers once the queued jobs are done.
func (j *Jobs) Close() { close(j.requests) }

// submit queues a Ready's jobs; a host loop has no workers and its node asks
// for none.
func (j *Jobs) submit(reqs []compute.Request) {
	if j == nil {
		if len(reqs) != 0 {
			assert.Failf("a host shard asked for %d compute jobs", len(reqs))
		}
		return
	}
	j.Submit(reqs...)
}

// finished is Results, or nil (never ready) on a host loop.
func (j *Jobs) finished() <-chan compute.Result {
	if j == nil {
		return nil
	}
	return j.results
}
