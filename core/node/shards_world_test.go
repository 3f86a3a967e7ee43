package node_test

import (
	"strings"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/storage"
)

// The world runs a node's shards (shards=N on boot and restart) as the
// server does: one node per shard over one disk, with a queue per shard
// (no order between shards' requests, as between their executors). Request ids are the
// shards' own, so the world renames each request it submits and routes the
// completion back under the shard's id; hand-offs go to their shard in
// order, after every shard's output is taken.

// shardReq is where a renamed disk request came from.
type shardReq struct {
	shard int
	id    storage.ReqID
}

// shardNodes is every shard's node, the front first.
func (w *world) shardNodes() []*node.Node {
	return append([]*node.Node{w.node}, w.hosts...)
}

// startHosts makes the host shards of a node of w.shards shards.
func (w *world) startHosts(cfg node.Config) {
	w.hosts = nil
	for i := 1; i < w.shards; i++ {
		c := cfg
		c.Shard = uint8(i)
		h := node.New(c, simCrypto{rng: w.rng})
		h.Step(w.now())
		w.hosts = append(w.hosts, h)
	}
}

// submitFrom queues shard i's disk requests, renamed when there are hosts.
func (w *world) submitFrom(i int, reqs []storage.Request) {
	if w.shards <= 1 {
		w.disk.Submit(reqs...)
		return
	}
	for j := range reqs {
		w.lastReq++
		w.shardReqs[w.lastReq] = shardReq{shard: i, id: reqs[j].ID}
		reqs[j].ID = w.lastReq
	}
	w.disk.SubmitIn(i, reqs...) // each shard's own executor: no order across shards
}

// complete steps a completion on the shard whose request it answers.
func (w *world) complete(c storage.Completion) {
	if w.shards <= 1 {
		w.node.Step(node.Completion(c))
		return
	}
	r := w.shardReqs[c.ID]
	delete(w.shardReqs, c.ID)
	c.ID = r.id
	w.shardNodes()[r.shard].Step(node.Completion(c))
}

// handOffs delivers the hand-offs the shards asked for, in order.
func (w *world) handOffs(msgs []node.ShardMessage) {
	nodes := w.shardNodes()
	for _, m := range msgs {
		nodes[m.To].Step(m)
	}
	if len(msgs) > 0 {
		w.stepped = true
	}
}

// tickAll steps the clock on every shard.
func (w *world) tickAll() {
	for _, n := range w.shardNodes() {
		n.Step(w.now())
	}
}

func init() { commands["marks"] = cmdMarks }

// marks NAME...: which of the named coverage marks the nodes have hit so
// far (a scenario states the rare paths it exercised).
func cmdMarks(w *world, a *args) {
	want := a.pos
	a.done(len(want))
	missing := w.marks.Missing(want...)
	if len(missing) == 0 {
		w.printf("all hit")
		return
	}
	w.printf("not hit: %s", strings.Join(missing, " "))
}
