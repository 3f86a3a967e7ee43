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
	simdisk "github.com/iggygo/iggy/sim/disk"
)

// jobDelayTicksMax is how long a compute job (a password check) may take.
const jobDelayTicksMax = 3

// host is the machine of one replica: its process (the node's shards, nil
// while down), its disk, its clock, and the compute workers.
type host struct {
	idx         int        // the replica index
	node        *node.Node // the front shard (shards.go)
	shards      shardSet
	disk        *simdisk.Disk
	clock       driftClock
	params      nodeParams
	epoch       int    // node incarnations started
	booted      bool   // the current node started serving
	restartAt   uint64 // tick the process comes back (while down)
	pausedUntil uint64
	jobs        []job
	closed      []bus.ConnID // connections the node closed, to report back
	fatal       string
	// lostUnsynced: a power loss dropped unsynced bytes since the last boot.
	lostUnsynced bool
	// metaDamaged: metadata of this replica was damaged at rest (the fault
	// atlas allows it on at most a minority of replicas).
	metaDamaged bool
	// dataDamaged: a partition segment of this replica rotted at rest
	// (within the same atlas as metadata).
	dataDamaged bool
	// retired: the replica stopped for good on its damaged metadata; the
	// others hold good copies and go on without it.
	retired bool
	// applied is the metadata group's applied op last sampled.
	applied uint64
}

type job struct {
	at    uint64
	shard int // the shard that asked
	res   compute.Result
}

func (h *host) up() bool { return h.node != nil }

// running: the process is up and none of its shards failed.
func (h *host) running() bool { return h.node != nil && h.fatal == "" }

// accepting: the process is up and listening (it listens once booted).
func (h *host) accepting() bool { return h.node != nil && h.booted && h.fatal == "" }

func (h *host) paused(tick uint64) bool { return tick < h.pausedUntil }

// startNode boots a new incarnation of h's node on its disk as it is.
func (w *World) startNode(h *host) {
	h.epoch++
	h.booted, h.fatal, h.jobs, h.closed = false, "", nil, nil
	w.startShards(h)
	w.trace.subject(h.idx, 0)
	w.trace.line("boot")
	h.node.Boot()
	h.shards.dirty[0] = true
	w.take(h)
}

// step feeds one input to h's front shard, tracing it first.
func (w *World) step(h *host, in node.Input) { w.stepShard(h, 0, in) }

// take carries out what h's shards asked for since they were last taken,
// shard by shard, until one fails (the process is gone then).
func (w *World) take(h *host) {
	for s := range h.shards.nodes {
		if !h.running() {
			return
		}
		if !h.shards.dirty[s] {
			continue
		}
		h.shards.dirty[s] = false
		w.trace.subject(h.idx, s)
		r := h.shards.nodes[s].TakeReady()
		w.trace.take(&r)
		w.carryOut(h, s, &r)
	}
}

// carryOut performs the Ready of shard s of h.
func (w *World) carryOut(h *host, s int, r *node.Ready) {
	w.submit(h, s, r.Disk)
	for _, j := range r.Compute {
		h.jobs = append(h.jobs, job{at: w.tick + 1 + w.rng.Uint64N(jobDelayTicksMax), shard: s, res: runJob(j)})
	}
	for _, l := range r.Logs {
		w.event("node %s: %s", shardName(h.idx, s), l)
		w.logMarks(l)
	}
	if s > 0 && len(r.Replies) > 0 {
		w.marks.Hit(markShardHostReply)
	}
	for _, rep := range r.Replies {
		w.nodeReply(h, rep)
	}
	for _, m := range r.Peers {
		w.net.send(w.tick, m)
	}
	h.queueHandOffs(r.Shards)
	if r.Booted {
		w.booted(h)
	}
	if r.Fatal != "" {
		w.nodeFatal(h, fmt.Sprintf("%s%s", shardPrefix(s), r.Fatal))
	}
}

func (w *World) nodeReply(h *host, rep bus.Reply) {
	l := w.linkByID(rep.Conn)
	if l == nil || l.nodeGone || l.host != h {
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

func (w *World) booted(h *host) {
	h.booted = true
	w.event("node %d epoch %d booted", h.idx, h.epoch)
	w.marks.Hit("sim.node.booted")
	if h.epoch > 1 {
		w.marks.Hit(oracles.MarkRestart)
	}
	if h.lostUnsynced {
		h.lostUnsynced = false
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
	{"installed state transfer of checkpoint", "node.partition_transfer.installed"},
	{"refusing fetched messages", "node.partition_transfer.refused"},
	{"a read found a bad record", "node.partition.read_repair"},
	{"fetching the messages from replica", "node.partition.refetch"},
}

// nodeFatal: the node cannot go on. That is legitimate only when its data
// was damaged at rest: a standalone node classifies the run, a replica of
// a set is retired (the others hold good copies); otherwise the run fails.
func (w *World) nodeFatal(h *host, msg string) {
	h.fatal = msg
	w.event("node %d fatal: %s", h.idx, msg)
	for _, p := range h.disk.Files() {
		if strings.HasPrefix(p, "metadata/") {
			img, _ := h.disk.File(p)
			w.event("  %s: %d bytes (%d durable)", p, len(img.Volatile), len(img.Durable))
		}
	}
	w.marks.Hit("sim.node.fatal")
	switch {
	case w.cluster() && h.metaDamaged:
		h.retired = true
		w.marks.Hit("sim.replica.retired_damaged")
		w.crash(h, oracles.CrashKill)
		return
	case len(w.hist.MetaDamages) > 0:
		w.classify("metadata-damaged", "the node stopped after metadata was damaged at rest on its only copy: "+msg)
		return
	case len(w.hist.Damages) > 0 && strings.Contains(msg, "failed to recover"):
		w.classify("segment-damaged", "the node stopped after a segment was damaged at rest on its only copy: "+msg)
		return
	}
	w.fail("node", fmt.Sprintf("replica %d fatal: %s", h.idx, msg))
}

// crash ends h's process: a kill keeps the page cache, a power loss
// reverts every file to what was synced (tearing unsynced writes when the
// knob says so). Every request the node held is settled: it happened
// before now or never.
func (w *World) crash(h *host, kind oracles.CrashKind) {
	if h.node == nil {
		return
	}
	switch kind {
	case oracles.CrashKill:
		w.marks.Hit("sim.crash.kill")
		w.event("kill %d: dropped %d disk requests in flight", h.idx, h.disk.Kill())
	case oracles.CrashPowerLoss:
		w.marks.Hit("sim.crash.power_loss")
		rep := h.disk.Crash(w.rng)
		w.event("power loss %d: %s", h.idx, rep)
		for _, f := range rep.Files {
			if f.Kept < f.Unsynced {
				h.lostUnsynced = true
			}
			if f.Kept > 0 && f.Kept < f.Unsynced {
				w.marks.Hit("sim.crash.torn_write")
			}
		}
	}
	if w.cluster() {
		w.marks.Hit(fmt.Sprintf("sim.crash.primary_%t", w.isPrimary(h)))
	}
	for _, l := range w.links {
		if l.host == h && l.epoch == h.epoch {
			w.linkDied(l)
		}
	}
	w.net.drop(h.idx)
	if !w.cluster() {
		// A replica set loses no committed op when replicas crash (a
		// quorum has it in its journal), and replies follow commits: the
		// partition models have no crash there.
		w.hist.Crashes = append(w.hist.Crashes, oracles.Crash{Kind: kind, At: w.next(), Epoch: h.epoch})
	}
	h.shardsDown()
	h.booted, h.jobs, h.closed, h.pausedUntil = false, nil, nil, 0
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

// stepNode runs h's node for one tick: the clock, what arrived from the
// clients, the peers and the workers, then some disk completions, with the
// hand-offs between its shards among them (shards.go).
func (w *World) stepNode(h *host) {
	if h.node == nil {
		if w.tick >= h.restartAt && h.fatal == "" && !h.retired {
			w.startNode(h)
		}
		return
	}
	if h.paused(w.tick) || h.fatal != "" {
		return
	}
	w.tickShards(h)
	w.deliverToNode(h)
	w.deliverPeers(h)
	w.deliverJobs(h)
	w.take(h)
	w.runDisk(h)
	w.reportClosed(h)
	w.flushHandOffs(h)
	w.sample(h)
}

func (w *World) deliverToNode(h *host) {
	for _, l := range w.links {
		if l.host != h {
			continue
		}
		for len(l.toNode) > 0 && l.toNode[0].at <= w.tick && h.running() {
			w.maybeHandOffs(h)
			if !h.running() {
				return
			}
			d := l.toNode[0]
			l.toNode = l.toNode[1:]
			switch {
			case d.open:
				w.step(h, node.ConnOpened{Conn: l.id, Transport: bus.TransportTCP, Addr: fmt.Sprintf("10.0.%d.%d:5000", l.id>>8&255, l.id&255)})
			case d.close:
				l.nodeGone = true
				w.step(h, node.ConnClosed{Conn: l.id})
			default:
				d.att.delivered = true
				if d.att.op != nil && d.att.op.create != nil {
					cr := d.att.op.create
					cr.Delivered++
				}
				w.step(h, node.ClientFrame{Conn: l.id, Frame: bytes.Clone(d.frame)})
			}
			w.maybeTake(h)
		}
	}
}

// deliverPeers steps every replica message due for h.
func (w *World) deliverPeers(h *host) {
	if !w.cluster() {
		return
	}
	for _, m := range w.net.receive(w.tick, h.idx) {
		if h.node == nil {
			return
		}
		w.step(h, m)
	}
}

func (w *World) deliverJobs(h *host) {
	n := 0
	for _, j := range h.jobs {
		if j.at > w.tick {
			h.jobs[n] = j
			n++
			continue
		}
		w.stepShard(h, j.shard, node.JobResult(j.res))
	}
	h.jobs = h.jobs[:n]
}

// runDisk completes up to DiskOpsPerTickMax requests, taking the node's
// output after a random number of them (group commit sees several).
func (w *World) runDisk(h *host) {
	n := 1 + w.rng.IntN(w.knobs.DiskOpsPerTickMax)
	for i := 0; i < n && h.running(); i++ {
		w.maybeHandOffs(h)
		if !h.running() {
			return
		}
		c, ok := h.disk.Next()
		if !ok {
			break
		}
		w.complete(h, c)
		if w.rng.IntN(2) == 0 {
			w.take(h)
		}
		if w.midBatchPowerLoss(h) {
			return
		}
	}
	w.take(h)
}

// reportClosed tells the node about connections it asked to close.
func (w *World) reportClosed(h *host) {
	for len(h.closed) > 0 && h.node != nil {
		id := h.closed[0]
		h.closed = h.closed[1:]
		w.step(h, node.ConnClosed{Conn: id})
		w.take(h)
	}
}
