package sim

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/oracles"
	simdisk "github.com/iggygo/iggy/sim/disk"
)

// ticksMax bounds a run whatever the knobs say.
const ticksMax = 200_000

// Result is the outcome of one run.
type Result struct {
	Seed  uint64
	Knobs Knobs
	Ticks uint64
	Ops   int
	Trace uint64 // hash of every output of every node incarnation
	// Failure is "<oracle>: <reason>" when the run failed, else "".
	Failure string
	// Classified is set when the run ended in a state the fault atlas calls
	// legitimately unrecoverable (data damaged at rest on its only copy).
	Classified string
	Marks      mark.Counts
	Porcupine  oracles.LinearizabilityStats
	Wall       time.Duration
	// Details explains a failure at length (the history of the partition
	// that is not linearizable).
	Details string
}

// OK reports a passing run.
func (r *Result) OK() bool { return r.Failure == "" }

// Line is the last line iggy-sim prints for a run.
func (r *Result) Line() string {
	if r.Failure != "" {
		return "FAIL: " + r.Failure
	}
	return fmt.Sprintf("seed=%d ticks=%d ops=%d trace=%016x ok", r.Seed, r.Ticks, r.Ops, r.Trace)
}

// World is one run's universe.
type World struct {
	seed    uint64
	knobs   Knobs
	rng     *rand.Rand
	tick    uint64
	seq     oracles.Time
	hosts   []*host // one per replica, by replica index
	net     *peerNet
	conv    *oracles.Convergence
	links   []*link
	clients []*client
	catalog *catalog
	hist    oracles.History
	marks   mark.Counts
	trace   *tracer

	lastConn uint64
	batches  uint64
	prod     producers // idempotent producers (producers.go)
	ops      int
	healed   bool
	healTick uint64
	// answeredTick: the last tick a client's op was answered.
	answeredTick uint64
	// A long run's storm and calm (long.go).
	stormUntil, calmUntil uint64
	finished              bool
	readFaults            map[string]int // injected read faults per partition directory
	// writeFaults: injected write faults per partition directory.
	writeFaults map[string]int
	// clusterDamaged: partitions with a segment rotted on some replica of a
	// set; a read of it may fail until that replica repaired its log.
	clusterDamaged map[oracles.PartKey]bool
	failure        string
	classified     string
	events         []string
}

// Run simulates seed under profile with the current workload. rec, when
// set, receives the trace (uncompressed; wrap it with NewGzipRecorder for
// iggy-sim -record).
func Run(seed uint64, p Profile, rec io.Writer) Result {
	return RunKnobs(seed, Draw(seed, p), rec)
}

// RunKnobs simulates seed with knobs k (DrawWorkload's).
func RunKnobs(seed uint64, k Knobs, rec io.Writer) Result {
	start := time.Now()
	w := newWorld(seed, k, rec)
	panicked := w.runGuarded()
	res := w.result()
	if panicked != "" {
		res.Failure, res.Details = "panic: "+firstLine(panicked), panicked+res.Details
	}
	res.Wall = time.Since(start)
	return res
}

// runGuarded runs the world and turns a panic (a failed assertion in the
// core or the simulator) into a failure of this seed with its stack.
func (w *World) runGuarded() (panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprintf("%v\n%s", r, debug.Stack())
			w.fail("panic", fmt.Sprint(r))
		}
	}()
	w.run()
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func newWorld(seed uint64, k Knobs, rec io.Writer) *World {
	w := &World{
		seed: seed, knobs: k, rng: rand.New(rand.NewPCG(seed, 0x73696d)),
		catalog: newCatalog(), marks: mark.Counts{}, trace: newTracer(rec), readFaults: map[string]int{},
		writeFaults:    map[string]int{},
		clusterDamaged: map[oracles.PartKey]bool{},
	}
	w.hist.Final = map[oracles.PartKey][]oracles.Msg{}
	w.conv = oracles.NewConvergence()
	for i := range k.Replicas {
		h := &host{idx: i}
		h.disk = simdisk.New(simdisk.Options{Seed: w.rng.Uint64(), TornWrites: k.TornWrites,
			Faults: func(req *storage.Request, rng *rand.Rand) simdisk.Fault { return w.injector(h, req, rng) }})
		h.clock = driftClock{ppm: k.DriftPPM[i]}
		h.params = nodeParams{Replica: uint8(i), Replicas: uint8(k.Replicas), Shards: uint8(k.Shards),
			CheckpointEveryOps: k.CheckpointEveryOps, PartitionCacheBytes: k.PartitionCacheBytes, HeartbeatTicks: k.HeartbeatTicks,
			Racks: k.rackList()}
		w.hosts = append(w.hosts, h)
	}
	w.net = newPeerNet(w.rng, k.Replicas, k.Peer, w.marks, w.event)
	for i := range k.Clients {
		w.clients = append(w.clients, w.newClient(i))
	}
	f := w.newClient(k.Clients) // the change log follower (follow.go)
	f.follow = &follower{}
	w.clients = append(w.clients, f)
	w.trace.header(seed, k)
	return w
}

// next is the next history time.
func (w *World) next() oracles.Time {
	w.seq++
	return w.seq
}

func (w *World) fail(oracle, reason string) {
	if w.failure == "" {
		w.failure = oracle + ": " + reason
	}
}

func (w *World) classify(rule, reason string) {
	if w.classified == "" {
		w.classified = rule + ": " + reason
	}
}

func (w *World) stopped() bool { return w.failure != "" || w.classified != "" }

func (w *World) run() {
	for _, h := range w.hosts {
		w.startNode(h)
	}
	for w.tick = 1; w.tick <= ticksMax && !w.stopped(); w.tick++ {
		if !w.healed && w.knobs.Long {
			w.longPhases()
		}
		if !w.healed && (w.tick > w.knobs.FaultTicks || w.longDone()) {
			w.heal()
		}
		if w.faulty() {
			w.faults()
			w.net.faults(w.tick)
		}
		for _, h := range w.hosts {
			w.stepNode(h)
		}
		w.deliverToClients()
		for _, c := range w.clients {
			w.act(c)
		}
		w.pruneLinks()
		if w.finished {
			break
		}
		if w.healed && w.tick > w.budgetFrom()+w.knobs.HealBudgetTicks {
			w.budgetSpent()
		}
	}
	if w.tick > ticksMax {
		w.fail("liveness", fmt.Sprintf("no end after %d ticks", ticksMax))
	}
}

// heal stops every fault: the network heals, every node that is down
// comes back at once, every pause ends.
func (w *World) heal() {
	w.healed, w.healTick = true, w.tick
	w.marks.Hit("sim.healed")
	w.net.heal()
	for _, h := range w.hosts {
		h.pausedUntil = 0
		if h.node == nil {
			h.restartAt = w.tick
		}
	}
}

// budgetFrom is the tick the heal budget counts from: the heal, or under
// the heavy workload the last answer after it, since the read-back is a
// sequence of requests (one per partition and more), each of which must
// finish within the budget, and dozens of clients create hundreds of
// partitions.
func (w *World) budgetFrom() uint64 {
	if w.knobs.Workload >= WorkloadHeavy {
		return max(w.healTick, w.answeredTick)
	}
	return w.healTick
}

// budgetSpent: the heal budget ran out. A cluster whose live replicas
// never agreed fails convergence; otherwise what is pending fails liveness.
func (w *World) budgetSpent() {
	if w.cluster() {
		w.event("replica states:\n%s", w.replicaStates())
		if err := w.convergedErr(); err != nil {
			w.fail("convergence", fmt.Sprintf("%d ticks after heal: %v", w.knobs.HealBudgetTicks, err))
			return
		}
	}
	w.fail("liveness", oracles.CheckLiveness(w.pending(), w.knobs.HealBudgetTicks).Error())
}

// pending lists what clients still wait for.
func (w *World) pending() []oracles.Pending {
	var out []oracles.Pending
	for _, c := range w.clients {
		switch {
		case c.op != nil:
			out = append(out, oracles.Pending{Client: c.idx, What: c.op.String(), Since: c.op.since})
		case !c.done:
			out = append(out, oracles.Pending{Client: c.idx, What: w.clientState(c), Since: w.healTick})
		}
	}
	return out
}

func (w *World) clientState(c *client) string {
	switch h := w.hosts[c.target]; {
	case h.fatal != "":
		return fmt.Sprintf("node %d is stopped: %s", h.idx, h.fatal)
	case c.link == nil:
		return "not connected"
	case !c.bound:
		return "not logged in"
	}
	return "idle, not done"
}

// deliverToClients hands due replies and resets to the clients; replies
// on links their client gave up are captured for the oracles.
func (w *World) deliverToClients() {
	for _, l := range w.links {
		for len(l.toClient) > 0 && l.toClient[0].at <= w.tick {
			d := l.toClient[0]
			l.toClient = l.toClient[1:]
			c := l.client
			live := c.link == l && !l.clientGone
			switch {
			case d.close && live:
				w.lost(c)
			case d.close:
			case live:
				w.onFrame(c, d.frame)
			default:
				w.capture(l, d.frame)
			}
		}
		if l.resetAt != 0 && l.resetAt <= w.tick && l.client.link == l {
			w.lost(l.client)
		}
	}
}

// pruneLinks forgets links both ends are done with.
func (w *World) pruneLinks() {
	w.links = slices.DeleteFunc(w.links, func(l *link) bool {
		return l.client.link != l && l.nodeGone && len(l.toNode) == 0 && len(l.toClient) == 0
	})
}

// result runs the oracles over the history.
func (w *World) result() Result {
	res := Result{Seed: w.seed, Knobs: w.knobs, Ticks: w.tick, Ops: w.ops, Marks: w.marks}
	if err := w.trace.finish(); err != nil {
		w.fail("trace", err.Error())
	}
	res.Trace = w.trace.sum()
	if w.failure == "" {
		w.check(&res)
	}
	res.Failure, res.Classified = w.failure, w.classified
	if res.Failure != "" {
		res.Details += w.eventReport()
	}
	return res
}

func (w *World) check(res *Result) {
	st, err := oracles.CheckLinearizable(&w.hist)
	res.Porcupine = st
	w.oracleMarks(st)
	if err != nil {
		w.fail("linearizability", err.Error())
		if st.Failed != nil {
			res.Details = oracles.DescribePartition(&w.hist, *st.Failed)
		}
		return
	}
	for _, c := range []struct {
		name  string
		check func(*oracles.History) error
	}{{"offsets", oracles.CheckOffsets}, {"consumer-offsets", func(h *oracles.History) error { return oracles.CheckConsumerOffsets(h, w.marks) }}, {"metadata", oracles.CheckMetadata}, {"exactly-once", w.checkExactlyOnce}, {"changes", w.checkChanges}} {
		if err := c.check(&w.hist); err != nil {
			if u, ok := err.(*oracles.Unrecoverable); ok {
				w.classify(u.Rule, u.Reason)
				continue
			}
			w.fail(c.name, err.Error())
			return
		}
	}
}

// oracleMarks records what the oracles had to check, so a sweep shows
// they were not vacuous.
func (w *World) oracleMarks(st oracles.LinearizabilityStats) {
	h := &w.hist
	if st.Reads > 0 {
		w.marks.Hit(oracles.MarkPorcupineRead)
	}
	if len(st.Unknown) > 0 {
		w.marks.Hit("oracle.porcupine.timed_out")
	}
	if len(h.Gets) > 0 {
		w.marks.Hit("oracle.consumer_offsets.read_checked")
	}
	if len(h.Lists) > 0 && len(h.Topics) > 0 {
		w.marks.Hit("oracle.metadata.reads_checked")
	}
	for _, a := range h.Appends {
		if _, read := h.Final[a.Part]; read && a.Outcome == oracles.OutcomeOK && len(h.Crashes) > 0 &&
			a.Policy == oracles.DurabilityPersisted && a.Return < h.Crashes[len(h.Crashes)-1].At {
			w.marks.Hit("oracle.final.persisted_ack_across_crash_checked")
			return
		}
	}
}
