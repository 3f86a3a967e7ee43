package sim

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/oracles"
)

// jobDelayTicksMax is how long a compute job (a password check) may take.
const jobDelayTicksMax = 3

// host is the machine of the one replica: its process (the node, nil while
// down), its clock, and the compute workers. The disk is the world's.
type host struct {
	node        *node.Node
	clock       driftClock
	params      nodeParams
	epoch       int    // node incarnations started
	booted      bool   // the current node started serving
	restartAt   uint64 // tick the process comes back (while down)
	pausedUntil uint64
	jobs        []job
	closed      []bus.ConnID // connections the node closed, to report back
	fatal       string
}

type job struct {
	at  uint64
	res compute.Result
}

func (h *host) up() bool { return h.node != nil }

// accepting: the process is up and listening (it listens once booted).
func (h *host) accepting() bool { return h.node != nil && h.booted && h.fatal == "" }

func (h *host) paused(tick uint64) bool { return tick < h.pausedUntil }

// startNode boots a new incarnation on the disk as it is.
func (w *World) startNode() {
	h := &w.host
	h.epoch++
	h.booted, h.fatal, h.jobs, h.closed = false, "", nil, nil
	h.node = newNode(h.params)
	w.trace.nodeStart(h.params)
	w.step(h.clock.at(w.tick))
	w.trace.line("boot")
	h.node.Boot()
	w.take()
}

// step feeds one input to the node, tracing it first.
func (w *World) step(in any) {
	w.trace.input(in)
	w.host.node.Step(in)
}

// take carries out what the node asked for.
func (w *World) take() {
	h := &w.host
	if h.node == nil {
		return
	}
	r := h.node.TakeReady()
	w.trace.take(&r)
	w.disk.Submit(r.Disk...)
	for _, j := range r.Compute {
		h.jobs = append(h.jobs, job{at: w.tick + 1 + w.rng.Uint64N(jobDelayTicksMax), res: runJob(j)})
	}
	for _, l := range r.Logs {
		w.event("node: %s", l)
		w.logMarks(l)
	}
	for _, rep := range r.Replies {
		w.nodeReply(rep)
	}
	if r.Booted {
		w.booted()
	}
	if r.Fatal != "" {
		w.nodeFatal(r.Fatal)
	}
}

func (w *World) nodeReply(rep bus.Reply) {
	l := w.linkByID(rep.Conn)
	if l == nil || l.nodeGone {
		return
	}
	var frame []byte
	if len(rep.Parts) > 0 {
		frame = bytes.Join(rep.Parts, nil)
	}
	w.reply(l, frame, rep.Close)
}

func (w *World) linkByID(id bus.ConnID) *link {
	i, ok := slices.BinarySearchFunc(w.links, id, func(l *link, id bus.ConnID) int {
		return int(l.id) - int(id)
	})
	if !ok {
		return nil
	}
	return w.links[i]
}

func (w *World) booted() {
	h := &w.host
	h.booted = true
	w.event("node epoch %d booted", h.epoch)
	w.marks.Hit("sim.node.booted")
	if h.epoch > 1 {
		w.marks.Hit(oracles.MarkRestart)
	}
	if w.lostUnsynced {
		w.lostUnsynced = false
		w.marks.Hit(oracles.MarkLostUnsynced)
	}
}

// logMarks turns the node's log lines about rare paths into marks (the
// node reports them as logs; it has no mark sink of its own).
func (w *World) logMarks(l string) {
	for _, m := range logMarkTable {
		if strings.Contains(l, m.substr) {
			w.marks.Hit(m.mark)
		}
	}
}

var logMarkTable = []struct{ substr, mark string }{
	{"initialized fresh storage", "node.boot.fresh"},
	{"replayed metadata ops", "node.boot.replayed"},
	{"torn or corrupt tail", "node.journal.tail_cut"},
	{"bytes of torn tail", "node.partition.tail_cut"},
	{"is durable", "node.checkpoint.durable"},
	{"initializing again", "node.boot.reinitialized"},
}

// nodeFatal: the node cannot go on. With one replica that is legitimate
// only when its data was damaged at rest; otherwise the run fails.
func (w *World) nodeFatal(msg string) {
	h := &w.host
	h.fatal = msg
	w.event("node fatal: %s", msg)
	for _, p := range w.disk.Files() {
		if strings.HasPrefix(p, "metadata/") {
			img, _ := w.disk.File(p)
			w.event("  %s: %d bytes (%d durable)", p, len(img.Volatile), len(img.Durable))
		}
	}
	w.marks.Hit("sim.node.fatal")
	switch {
	case len(w.hist.MetaDamages) > 0:
		w.classify("metadata-damaged", "the node stopped after metadata was damaged at rest on its only copy: "+msg)
		return
	case len(w.hist.Damages) > 0 && strings.Contains(msg, "failed to recover"):
		w.classify("segment-damaged", "the node stopped after a segment was damaged at rest on its only copy: "+msg)
		return
	}
	w.fail("node", "fatal: "+msg)
}

// crash ends the process: a kill keeps the page cache, a power loss
// reverts every file to what was synced (tearing unsynced writes when the
// knob says so). Every request the node held is settled: it happened
// before now or never.
func (w *World) crash(kind oracles.CrashKind) {
	h := &w.host
	if h.node == nil {
		return
	}
	switch kind {
	case oracles.CrashKill:
		w.marks.Hit("sim.crash.kill")
		w.event("kill: dropped %d disk requests in flight", w.disk.Kill())
	case oracles.CrashPowerLoss:
		w.marks.Hit("sim.crash.power_loss")
		rep := w.disk.Crash(w.rng)
		w.event("power loss: %s", rep)
		for _, f := range rep.Files {
			if f.Kept < f.Unsynced {
				w.lostUnsynced = true
			}
			if f.Kept > 0 && f.Kept < f.Unsynced {
				w.marks.Hit("sim.crash.torn_write")
			}
		}
	}
	for _, l := range w.links {
		if l.epoch == h.epoch {
			w.linkDied(l)
		}
	}
	w.hist.Crashes = append(w.hist.Crashes, oracles.Crash{Kind: kind, At: w.next(), Epoch: h.epoch})
	h.node, h.booted, h.jobs, h.closed, h.pausedUntil = nil, false, nil, nil, 0
	h.restartAt = w.tick + 1 + w.rng.Uint64N(w.knobs.DownTicksMax)
}

// linkDied: the node process is gone; its links reset for the clients.
func (w *World) linkDied(l *link) {
	for _, d := range l.toNode {
		if d.att != nil {
			w.undelivered(d.att)
		}
	}
	w.captureInFlight(l)
	if l.att != nil {
		w.bounded(l.att)
	}
	l.toNode, l.toClient, l.nodeGone = nil, nil, true
	if !l.clientGone && l.resetAt == 0 {
		l.resetAt = w.tick + 1 + w.delay()
	}
}

// stepNode runs the node for one tick: the clock, what arrived from the
// network and the workers, then some disk completions.
func (w *World) stepNode() {
	h := &w.host
	if h.node == nil {
		if w.tick >= h.restartAt && h.fatal == "" {
			w.startNode()
		}
		return
	}
	if h.paused(w.tick) || h.fatal != "" {
		return
	}
	w.step(h.clock.at(w.tick))
	w.deliverToNode()
	w.deliverJobs()
	w.take()
	w.runDisk()
	w.reportClosed()
}

func (w *World) deliverToNode() {
	for _, l := range w.links {
		for len(l.toNode) > 0 && l.toNode[0].at <= w.tick && w.host.node != nil {
			d := l.toNode[0]
			l.toNode = l.toNode[1:]
			switch {
			case d.open:
				w.step(bus.ConnOpened{Conn: l.id, Transport: bus.TransportTCP, Addr: fmt.Sprintf("10.0.%d.%d:5000", l.id>>8&255, l.id&255)})
			case d.close:
				l.nodeGone = true
				w.step(bus.ConnClosed{Conn: l.id})
			default:
				d.att.delivered = true
				if d.att.op != nil && d.att.op.create != nil {
					cr := d.att.op.create
					cr.Delivered++
				}
				w.step(bus.ClientFrame{Conn: l.id, Frame: bytes.Clone(d.frame)})
			}
		}
	}
}

func (w *World) deliverJobs() {
	h := &w.host
	n := 0
	for _, j := range h.jobs {
		if j.at > w.tick {
			h.jobs[n] = j
			n++
			continue
		}
		w.step(j.res)
	}
	h.jobs = h.jobs[:n]
}

// runDisk completes up to DiskOpsPerTickMax requests, taking the node's
// output after a random number of them (group commit sees several).
func (w *World) runDisk() {
	n := 1 + w.rng.IntN(w.knobs.DiskOpsPerTickMax)
	for i := 0; i < n && w.host.node != nil && w.host.fatal == ""; i++ {
		c, ok := w.disk.Next()
		if !ok {
			break
		}
		w.step(c)
		if w.rng.IntN(2) == 0 {
			w.take()
		}
	}
	w.take()
}

// reportClosed tells the node about connections it asked to close.
func (w *World) reportClosed() {
	h := &w.host
	for len(h.closed) > 0 && h.node != nil {
		id := h.closed[0]
		h.closed = h.closed[1:]
		w.step(bus.ConnClosed{Conn: id})
		w.take()
	}
}
