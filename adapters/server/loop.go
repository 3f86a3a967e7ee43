// Package server runs a node in production: one goroutine owns the node and
// steps it with inputs from the transports, the disk and the clock, then
// carries out what it asked for. This is the only place the real world meets
// the core.
package server

import (
	"log/slog"
	"time"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/clock"
	"github.com/iggygo/iggy/io/storage"
)

// stepBatchMax bounds the inputs stepped before the node's output is carried
// out: batching lets one fdatasync cover many requests, the bound keeps
// latency low under load.
const stepBatchMax = 256

// DiskExecutor runs the node's disk requests.
type DiskExecutor interface {
	Submit(reqs ...storage.Request)
	Completions() <-chan storage.Completion
}

// Loop owns one node.
type Loop struct {
	node   *node.Node
	disk   DiskExecutor
	jobs   *Jobs
	hub    *transport.Hub
	log    *slog.Logger
	booted func()
	ticks  uint64
	reads  *readBuffers
}

// NewLoop wires a node to its disk, job workers and transports; booted runs
// once, when recovery is done and the node serves.
func NewLoop(n *node.Node, d DiskExecutor, jobs *Jobs, hub *transport.Hub, log *slog.Logger, booted func()) *Loop {
	return &Loop{node: n, disk: d, jobs: jobs, hub: hub, log: log, booted: booted, reads: newReadBuffers()}
}

// Run steps the node until stop is closed or it reports a fatal error.
func (l *Loop) Run(stop <-chan struct{}) error {
	ticker := time.NewTicker(clock.TickMillis * time.Millisecond)
	defer ticker.Stop()
	l.node.Step(l.tick())
	if err := l.carryOut(); err != nil {
		return err
	}
	for {
		select {
		case <-stop:
			return nil
		case <-ticker.C:
			l.node.Step(l.tick())
		case c := <-l.disk.Completions():
			l.node.Step(c)
			l.drainDisk()
		case r := <-l.jobs.Results():
			l.node.Step(r)
		case in := <-l.hub.Inbox():
			l.node.Step(in)
			l.drainInbox()
		}
		if err := l.carryOut(); err != nil {
			return err
		}
	}
}

func (l *Loop) drainDisk() {
	for i := 1; i < stepBatchMax; i++ {
		select {
		case c := <-l.disk.Completions():
			l.node.Step(c)
		default:
			return
		}
	}
}

func (l *Loop) drainInbox() {
	for i := 1; i < stepBatchMax; i++ {
		select {
		case in := <-l.hub.Inbox():
			l.node.Step(in)
		default:
			return
		}
	}
}

func (l *Loop) tick() clock.Tick {
	l.ticks++
	return clock.Tick{Ticks: l.ticks, NowMicros: uint64(time.Now().UnixMicro())}
}

// carryOut performs one Ready: disk first, so a reply never overtakes the
// write it depends on (the node only replies after completions anyway).
func (l *Loop) carryOut() error {
	r := l.node.TakeReady()
	if len(r.Disk) > 0 {
		l.lendReadBuffers(r.Disk)
		l.disk.Submit(r.Disk...)
	}
	l.jobs.Submit(r.Compute...)
	for _, rep := range r.Replies {
		if owned := l.reads.match(rep.Parts); owned != nil {
			l.hub.DeliverThen(rep, func() { l.reads.giveBack(owned) })
			continue
		}
		l.hub.Deliver(rep)
	}
	for _, line := range r.Logs {
		l.log.Info(line)
	}
	if r.Fatal != "" {
		return &FatalError{Reason: r.Fatal}
	}
	if r.Booted && l.booted != nil {
		l.booted()
	}
	return nil
}

// lendReadBuffers gives each ReplyOnly read a pooled buffer to read into.
func (l *Loop) lendReadBuffers(reqs []storage.Request) {
	for i := range reqs {
		if q := &reqs[i]; q.Op == storage.OpRead && q.ReplyOnly {
			q.Into = l.reads.lend(q.Len)
		}
	}
}

// FatalError is the node's own refusal to go on.
type FatalError struct{ Reason string }

func (e *FatalError) Error() string { return e.Reason }
