package server

import (
	"fmt"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/internal/assert"
)

// Hand-offs between shard loops (core/node/shards.go). Each loop has an
// inbox of sharding.inbox_capacity. A loop never blocks sending to another:
// two loops each waiting on the other's full inbox would stop for good. It
// queues what its node hands off, per destination and in order, and sends
// it from its select while it also takes its own inbox, so every loop keeps
// draining and every queue empties.

// shardPendingMax bounds the hand-offs a loop holds for other shards. The
// core keeps the real number far lower: the front hands off at most one
// request per connection (a connection stays busy until the owner's done),
// plus a few per partition for opens, drops and retention, and a host sends
// per request one done and at most one stats report per partition. A loop
// that holds more has a peer that stopped taking its inbox, which is fatal.
const shardPendingMax = 1 << 20

// pendingCompactMin is the sent hand-offs below which a queue is not
// compacted (copying a few entries often is not worth it).
const pendingCompactMin = 64

// ShardsMax is the most shards a node runs (node.Config numbers them in a byte).
const ShardsMax = 255

// shardPendingThrottle: while a loop holds this many hand-offs it stops
// taking client input (the hub inbox), so a slow host pushes back on the
// clients rather than filling the queue.
const shardPendingThrottle = 1 << 12

// shardLinks is one loop's end of the inter-shard channels.
type shardLinks = links[node.ShardMessage]

// shardRoute says which shards a hand-off goes between.
func shardRoute(m node.ShardMessage) (from, to int) { return int(m.From), int(m.To) }

// links is one loop's end of the channels between loops, for messages of
// type M (generic so that its tests can tell messages apart).
type links[M any] struct {
	self  int
	route func(M) (from, to int)
	inbox chan M
	peers []chan M // every loop's inbox, by index
	// pending holds each destination's hand-offs not yet sent, in order;
	// sent[d] of them are already gone (a head index, so a queue that
	// empties reuses its array).
	pending [][]M
	sent    []int
	count   int
	// turn is the destination the select waits to send to; it moves on
	// after each wait so no destination waits behind another for long.
	turn int
}

// newLinks makes the links of every loop, routing messages by route.
func newLinks[M any](loops, inboxCapacity int, route func(M) (from, to int)) []*links[M] {
	if loops < 1 || loops > ShardsMax {
		assert.Failf("%d shards", loops)
	}
	if inboxCapacity < 1 {
		assert.Failf("inbox capacity %d", inboxCapacity)
	}
	peers := make([]chan M, loops)
	for i := range peers {
		peers[i] = make(chan M, inboxCapacity)
	}
	all := make([]*links[M], loops)
	for i := range all {
		all[i] = &links[M]{self: i, route: route, inbox: peers[i], peers: peers,
			pending: make([][]M, loops), sent: make([]int, loops)}
	}
	return all
}

// queue takes the node's hand-offs and sends what fits without waiting.
func (s *links[M]) queue(msgs []M) error {
	if s == nil {
		if len(msgs) != 0 {
			assert.Failf("a node of one shard handed off %d messages", len(msgs))
		}
		return nil
	}
	for _, m := range msgs {
		from, to := s.route(m)
		if !(from == s.self && to >= 0 && to < len(s.peers) && to != s.self) {
			assert.Failf("hand-off from %d to %d stepped out of shard %d of %d", from, to, s.self, len(s.peers))
		}
		s.pending[to] = append(s.pending[to], m)
		s.count++
	}
	if s.count > shardPendingMax {
		return &FatalError{Reason: fmt.Sprintf("shard %d holds %d hand-offs for other shards (bound %d): a shard stopped taking its inbox",
			s.self, s.count, shardPendingMax)}
	}
	s.flush()
	return nil
}

// flush sends, to every destination, what its inbox has room for.
func (s *links[M]) flush() {
	for to := range s.pending {
		s.flushTo(to)
	}
}

func (s *links[M]) flushTo(to int) {
	for s.sent[to] < len(s.pending[to]) {
		select {
		case s.peers[to] <- s.pending[to][s.sent[to]]:
			s.advance(to)
		default:
			return
		}
	}
}

// advance drops destination to's head, which has been sent.
func (s *links[M]) advance(to int) {
	q := s.pending[to]
	var zero M
	q[s.sent[to]] = zero // the batch a hand-off carries is not ours to keep
	s.sent[to]++
	s.count--
	if s.sent[to] == len(q) {
		s.pending[to] = q[:0]
		s.sent[to] = 0
		return
	}
	// A queue that never quite empties would grow for good: once half of it
	// is sent, move the rest down (each hand-off moves at most once on average).
	if s.sent[to] >= pendingCompactMin && 2*s.sent[to] >= len(q) {
		n := copy(q, q[s.sent[to]:])
		clear(q[n:])
		s.pending[to] = q[:n]
		s.sent[to] = 0
	}
}

// waiting is the send the select waits on: the head of the next destination
// with hand-offs, or a nil channel (never ready) when none waits.
func (s *links[M]) waiting() (chan M, M) {
	var zero M
	if s == nil || s.count == 0 {
		return nil, zero
	}
	for range s.pending {
		s.turn = (s.turn + 1) % len(s.pending)
		if to := s.turn; s.sent[to] < len(s.pending[to]) {
			return s.peers[to], s.pending[to][s.sent[to]]
		}
	}
	assert.Failf("shard %d counts %d hand-offs but holds none", s.self, s.count)
	return nil, zero
}

// sentWaiting records that the send waiting offered went, and sends
// what else fits.
func (s *links[M]) sentWaiting() {
	s.advance(s.turn)
	s.flush()
}

// throttled says whether the loop should stop taking client input.
func (s *links[M]) throttled() bool { return s != nil && s.count >= shardPendingThrottle }

// incoming is the loop's inbox, or nil (never ready) with one shard.
func (s *links[M]) incoming() <-chan M {
	if s == nil {
		return nil
	}
	return s.inbox
}

// name prefixes a host shard's fatal reason with the shard.
func (s *links[M]) name() string {
	if s == nil || s.self == 0 {
		return ""
	}
	return fmt.Sprintf("shard %d: ", s.self)
}
