// Package server runs a node in production: one goroutine per shard owns
// that shard's node and steps it with inputs from the transports, the disk,
// the clock and the other shards, then carries out what it asked for. This
// is the only place the real world meets the core.
package server

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/flight"
	"github.com/iggygo/iggy/io/bus"
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

// Loop owns one shard's node. The front (shard 0, or the only shard) takes
// client input from the hub and runs compute jobs; a host shard has neither.
type Loop struct {
	node   *node.Node
	disk   DiskExecutor
	jobs   *Jobs             // nil on a host
	inbox  <-chan node.Input // the hub's inbox; nil on a host
	hub    *transport.Hub
	log    *slog.Logger
	booted func()
	ticks  uint64
	reads  *readBuffers // per loop: lent and matched by this loop only
	links  *shardLinks  // nil when the node runs one shard
	// peerIn and peerBus are the replica plane (peers.go); nil outside a
	// replica set.
	peerIn  <-chan node.PeerMessage
	peerBus PeerBus
	// counters, when set, sum what the node reports for /metrics.
	counters *Counters
	// rec, when set, records every input and Ready (flight recorder);
	// crashed then dumps it when the loop panics on an assertion.
	rec     *flight.Shard
	crashed func(reason string)
}

// NewLoop wires the front node to its disk, job workers and transports;
// booted runs once, when recovery is done and the node serves.
func NewLoop(n *node.Node, d DiskExecutor, jobs *Jobs, hub *transport.Hub, log *slog.Logger, booted func()) *Loop {
	return &Loop{node: n, disk: d, jobs: jobs, inbox: hub.Inbox(), hub: hub, log: log, booted: booted, reads: newReadBuffers()}
}

// NewHostLoop wires a host shard's node to its own disk; it replies to
// connections through the hub but takes no client input.
func NewHostLoop(n *node.Node, d DiskExecutor, hub *transport.Hub, log *slog.Logger) *Loop {
	return &Loop{node: n, disk: d, hub: hub, log: log, reads: newReadBuffers()}
}

// Run steps the node until stop is closed or it reports a fatal error.
func (l *Loop) Run(stop <-chan struct{}) error {
	ticker := time.NewTicker(clock.TickMillis * time.Millisecond)
	defer ticker.Stop()
	defer l.dumpOnPanic()
	l.step(l.tick())
	if err := l.carryOut(); err != nil {
		return err
	}
	for {
		stepped, stopped := l.await(stop, ticker.C)
		if stopped {
			return nil
		}
		if !stepped {
			continue
		}
		if err := l.carryOut(); err != nil {
			return err
		}
	}
}

// await waits for the next input and steps it (and what else is queued
// behind it, up to stepBatchMax), or sends a waiting hand-off.
func (l *Loop) await(stop <-chan struct{}, tick <-chan time.Time) (stepped, stopped bool) {
	out, head := l.links.waiting()
	select {
	case <-stop:
		return false, true
	case <-tick:
		l.step(l.tick())
	case c := <-l.disk.Completions():
		l.step(node.Completion(c))
		drain(l.disk.Completions(), l.step, asCompletion)
	case r := <-l.jobs.finished():
		l.step(node.JobResult(r))
	case in := <-l.clientInbox():
		l.step(in)
		drain(l.clientInbox(), l.step, asIs)
	case m := <-l.links.incoming():
		l.step(m)
		drain(l.links.incoming(), l.step, asIs)
	case m := <-l.peerIn:
		l.step(m)
		drain(l.peerIn, l.step, asIs)
	case out <- head:
		l.links.sentWaiting()
		return false, false
	}
	return true, false
}

// clientInbox is the hub's inbox, or nil (never ready) on a host and while
// hand-offs back up.
func (l *Loop) clientInbox() <-chan node.Input {
	if l.links.throttled() {
		return nil
	}
	return l.inbox
}

// drain steps what ch holds, up to stepBatchMax inputs in all, each made
// an input by as.
func drain[T any, I node.Input](ch <-chan T, step func(node.Input), as func(T) I) {
	for i := 1; i < stepBatchMax; i++ {
		select {
		case in := <-ch:
			step(as(in))
		default:
			return
		}
	}
}

// step steps one input, through the flight recorder when there is one.
func (l *Loop) step(in node.Input) {
	if l.rec != nil {
		l.rec.Step(l.node, in)
		return
	}
	l.node.Step(in)
}

// takeReady takes the node's Ready, through the flight recorder when
// there is one.
func (l *Loop) takeReady() node.Ready {
	if l.rec != nil {
		return l.rec.Take(l.node)
	}
	return l.node.TakeReady()
}

// Record has the loop record through rec; crashed is called with the
// panic's text when the loop panics (an assertion), before it goes on.
func (l *Loop) Record(rec *flight.Shard, crashed func(reason string)) {
	l.rec, l.crashed = rec, crashed
}

func (l *Loop) dumpOnPanic() {
	if l.crashed == nil {
		return
	}
	if p := recover(); p != nil {
		l.crashed(fmt.Sprintf("%spanic: %v", l.links.name(), p))
		panic(p)
	}
}

func asCompletion(c storage.Completion) node.Completion { return node.Completion(c) }

func asIs[I node.Input](in I) I { return in }

func (l *Loop) tick() node.Tick {
	l.ticks++
	return node.Tick{Ticks: l.ticks, NowMicros: uint64(time.Now().UnixMicro())}
}

// carryOut performs one Ready: disk first, so a reply never overtakes the
// write it depends on (the node only replies after completions anyway);
// replies before hand-offs, so a host's reply is queued on its connection
// before the front hears the request is done and lets the next one run.
func (l *Loop) carryOut() error {
	r := l.takeReady()
	if len(r.Disk) > 0 {
		l.lendReadBuffers(r.Disk)
		l.disk.Submit(r.Disk...)
	}
	l.jobs.submit(r.Compute)
	l.deliver(r.Replies)
	l.sendPeers(r.Peers)
	for _, line := range r.Logs {
		l.log.Info(line)
	}
	if r.WriteFailures > 0 && l.counters != nil {
		l.counters.diskWriteFailures.Add(uint64(r.WriteFailures))
	}
	if r.Fatal != "" {
		if l.crashed != nil {
			l.crashed(l.links.name() + r.Fatal)
		}
		return &FatalError{Reason: l.links.name() + r.Fatal}
	}
	if err := l.links.queue(r.Shards); err != nil {
		return err
	}
	if r.Booted && l.booted != nil {
		l.booted()
	}
	return nil
}

// deliver hands replies to the hub; a reply carrying a lent read buffer
// gives it back once written.
func (l *Loop) deliver(replies []bus.Reply) {
	for _, rep := range replies {
		if owned := l.reads.match(rep.Parts); owned != nil {
			l.hub.DeliverThen(rep, func() { l.reads.giveBack(owned) })
			continue
		}
		l.hub.Deliver(rep)
	}
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
