package sim

import (
	"fmt"
	"strconv"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// A standalone node's process may run several shards (Knobs.Shards), each
// a node.Node over the one disk of its host, as the server runs one loop
// per shard: the front (shard 0) holds the metadata, the connections and
// some partitions, the other shards the rest of the partitions. The
// process lives and dies as one: a crash, a pause or a fatal of any shard
// is the host's.
//
// What the seed decides, as the shards' loops would race in a server: when
// a hand-off one shard emitted is stepped into the other, against client
// frames and disk completions (maybeHandOffs, before each of them), which
// pair of shards goes first, and whether hand-offs still pending at the
// end of a tick wait for the next one. Hand-offs of one pair keep their
// order.

// Marks a sweep of the standalone profiles must hit (Required): the
// simulator exercised sharding.
const (
	markShardHandOff   = "sim.shard.handoff"    // a hand-off stepped into a host shard
	markShardHostReply = "sim.shard.host_reply" // a host shard answered a connection
)

// handOffsPendingMax bounds the hand-offs taken and not yet stepped in one
// process (a host's backlog is bounded by the node's own queues).
const handOffsPendingMax = 1 << 14

// handOffRoundsMax bounds the rounds of hand-offs (and what answering them
// emits) stepped at the end of a tick; the rest waits for the next tick.
const handOffRoundsMax = 16

// shardSet is the shards of a host's process and the plumbing between them.
type shardSet struct {
	nodes []*node.Node // the front first; nil while the process is down
	// dirty: stepped since its output was last taken.
	dirty []bool
	// handOffs were taken from a shard and are not stepped yet, in the
	// order they were taken.
	handOffs []node.ShardMessage
	// reqs: every shard numbers its disk requests from 1, so each one is
	// renamed on the shared disk and its completion goes back to the
	// shard under the shard's own id.
	reqs    map[storage.ReqID]shardReq
	lastReq storage.ReqID
}

// shardReq is where a renamed disk request came from.
type shardReq struct {
	shard int
	id    storage.ReqID
}

// startShards makes every shard of h's new incarnation and gives each the
// time; h.node is the front.
func (w *World) startShards(h *host) {
	h.shards = shardSet{nodes: newShards(h.params, w.marks), reqs: map[storage.ReqID]shardReq{}}
	h.shards.dirty = make([]bool, len(h.shards.nodes))
	h.node = h.shards.nodes[0]
	w.trace.nodeStart(h.params)
	w.tickShards(h)
}

// shardsDown forgets the shards of a process that died.
func (h *host) shardsDown() {
	h.node, h.shards = nil, shardSet{}
}

// tickShards gives every shard the host's time.
func (w *World) tickShards(h *host) {
	t := h.clock.at(w.tick)
	for s := range h.shards.nodes {
		w.stepShard(h, s, node.Tick(t))
	}
}

// stepShard feeds one input to shard s of h, tracing it first.
func (w *World) stepShard(h *host, s int, in node.Input) {
	w.trace.inputTo(h.idx, s, in)
	h.shards.nodes[s].Step(in)
	h.shards.dirty[s] = true
}

// submit queues shard s's disk requests on the host's disk under ids of
// the disk's own, in the shard's own queue: as each shard of a server runs
// its own disk executor, nothing orders one shard's requests against
// another's (a host's create below a directory the front deletes).
func (w *World) submit(h *host, s int, reqs []storage.Request) {
	set := &h.shards
	for i := range reqs {
		set.lastReq++
		set.reqs[set.lastReq] = shardReq{shard: s, id: reqs[i].ID}
		reqs[i].ID = set.lastReq
	}
	h.disk.SubmitIn(s, reqs...)
}

// complete steps a completion into the shard whose request it answers.
func (w *World) complete(h *host, c storage.Completion) {
	r, ok := h.shards.reqs[c.ID]
	if !ok {
		assert.Failf("sim: completion of unknown disk request %d", c.ID)
	}
	delete(h.shards.reqs, c.ID)
	c.ID = r.id
	w.stepShard(h, r.shard, node.Completion(c))
}

// queueHandOffs keeps what a shard's output handed to other shards.
func (h *host) queueHandOffs(msgs []node.ShardMessage) {
	h.shards.handOffs = append(h.shards.handOffs, msgs...)
	if len(h.shards.handOffs) > handOffsPendingMax {
		assert.Failf("sim: %d hand-offs pending", len(h.shards.handOffs))
	}
}

// maybeHandOffs steps some pending hand-offs, or none, as the seed says.
// It draws nothing when none is pending, so a one-shard run is what it was.
func (w *World) maybeHandOffs(h *host) {
	if len(h.shards.handOffs) == 0 || w.rng.IntN(2) == 0 {
		return
	}
	for n := 1 + w.rng.IntN(len(h.shards.handOffs)); n > 0 && h.running(); n-- {
		w.handOff(h)
	}
}

// flushHandOffs steps pending hand-offs and takes what they emit, round
// after round, unless the seed leaves them for the next tick.
func (w *World) flushHandOffs(h *host) {
	if len(h.shards.handOffs) == 0 {
		return
	}
	if w.rng.IntN(8) == 0 {
		w.marks.Hit("sim.shard.handoff_deferred")
		return
	}
	for range handOffRoundsMax {
		if len(h.shards.handOffs) == 0 || !h.running() {
			return
		}
		for len(h.shards.handOffs) > 0 && h.running() {
			w.handOff(h)
		}
		w.take(h)
	}
}

// handOff steps the oldest pending hand-off of a pair of shards drawn from
// the seed into its receiver.
func (w *World) handOff(h *host) {
	heads := pairHeads(h.shards.handOffs)
	i := heads[w.rng.IntN(len(heads))]
	m := h.shards.handOffs[i]
	h.shards.handOffs = append(h.shards.handOffs[:i], h.shards.handOffs[i+1:]...)
	if m.To > 0 {
		w.marks.Hit(markShardHandOff)
	}
	w.stepShard(h, int(m.To), m)
}

// pairHeads lists the positions of the oldest message of each (from, to)
// pair: only those may be stepped next.
func pairHeads(q []node.ShardMessage) []int {
	var out []int
	seen := map[[2]uint8]bool{}
	for i, m := range q {
		p := [2]uint8{m.From, m.To}
		if !seen[p] {
			seen[p] = true
			out = append(out, i)
		}
	}
	return out
}

// popHandOff removes and returns the oldest pending message from shard
// from to shard to.
func popHandOff(q []node.ShardMessage, from, to uint8) (node.ShardMessage, []node.ShardMessage, bool) {
	for i, m := range q {
		if m.From == from && m.To == to {
			return m, append(q[:i], q[i+1:]...), true
		}
	}
	return node.ShardMessage{}, q, false
}

// maybeTake takes a sharded process's output between two client inputs,
// or not, as the seed says, so what the front hands off may meet the next
// input. It draws nothing for one shard.
func (w *World) maybeTake(h *host) {
	if len(h.shards.nodes) > 1 && w.rng.IntN(2) == 0 {
		w.take(h)
	}
}

// shardName names shard s of replica i in events: "2" for a front, "2/1"
// for a host shard.
func shardName(i, s int) string {
	if s == 0 {
		return strconv.Itoa(i)
	}
	return fmt.Sprintf("%d/%d", i, s)
}

// shardPrefix says which host shard failed.
func shardPrefix(s int) string {
	if s == 0 {
		return ""
	}
	return fmt.Sprintf("shard %d: ", s)
}
