package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
)

// The heavy workload (Knobs.Workload >= WorkloadHeavy) makes each seed
// check more per CPU-second: concurrency drawn per seed from 1 to 64
// clients, little think time, topics and partitions in proportion to the
// clients (porcupine's search grows with the concurrency of one
// partition), and more moves: polls of every strategy, consumer groups,
// and connections dropped so the session is resumed. Each move has its
// mark, which a sweep must hit (Required).

// Marks of the heavy workload's moves.
const (
	markPollFirst     = "sim.workload.poll_first"
	markPollLast      = "sim.workload.poll_last"
	markPollTimestamp = "sim.workload.poll_timestamp"
	markGroupCreated  = "sim.workload.group_created"
	markGroupJoined   = "sim.workload.group_joined"
	markGroupPolled   = "sim.workload.group_polled" // a member's poll answered with messages
	markGroupLeft     = "sim.workload.group_left"
	markGroupRead     = "sim.workload.group_read"
	markReconnect     = "sim.workload.reconnect"
)

// heavyMarks are the marks a sweep of the heavy workload must hit. A
// replica set's sweep is spared a member's poll with messages and a leave
// that succeeds: neither was seen in its runs so far (see the closing note
// of issue 20), and a sweep that must hit them would fail on that alone.
func heavyMarks(p Profile) []string {
	marks := []string{markPollFirst, markPollLast, markPollTimestamp, markGroupCreated, markGroupJoined,
		markGroupRead, markReconnect}
	if p != ProfileCluster {
		marks = append(marks, markGroupPolled, markGroupLeft)
	}
	return marks
}

// pollTimestampBackMicros bounds how far back of now a poll by timestamp asks.
const pollTimestampBackMicros = 20_000_000

// heavier turns a legacy draw into the heavy workload's.
func heavier(r *rand.Rand, k *Knobs) {
	k.Workload = WorkloadHeavy
	k.Clients = []int{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}[r.IntN(12)]
	k.ThinkTicksMax = uint64(between(r, 0, 4))
	// Smaller messages: a seed's cost is mostly its bytes (copied into the
	// fake disk, read back, verified), its worth mostly its ops.
	payload := []int{16, 128, 1024, 4096}[r.IntN(4)]
	if k.TruncatePerMillion == 0 {
		// A seed that truncates sealed segments keeps its large messages:
		// without them no 1 MiB segment ever seals, and the fault is vacuous.
		k.PayloadBytesMax = payload
	}
	// A disk of one request a tick is the throughput of the whole run
	// once a few dozen clients queue on it.
	k.DiskOpsPerTickMax = []int{2, 4, 8, 16}[r.IntN(4)]
	k.Topics = between(r, 1, 3) + k.Clients/12
	k.PartitionsMax = min(topicPartitionsMax, between(r, 1, 3)+k.Clients/16)
	switch k.Profile {
	case ProfileLiveness:
		// Its storm is short and its crashes many: a longer one does as
		// many ops as the other profiles.
		k.FaultTicks += k.FaultTicks * 3 / 4
	case ProfileLite, ProfileSwarm:
		// A thousand ops a seed or two, not more: the CI sweep's bulk.
		k.DiskOpsPerTickMax = min(k.DiskOpsPerTickMax, 8)
	}
	if k.Replicas > 1 {
		// Every partition is a consensus group on every replica, which
		// ticks and flushes each of them: as few as the legacy workload's.
		k.ThinkTicksMax = uint64(between(r, 0, 20))
		k.PartitionsMax, k.Topics = 2, between(r, 1, 3)
	}
	k.PollOtherPercent, k.GroupPercent, k.ReconnectPercent = between(r, 3, 10), between(r, 2, 10), between(r, 0, 2)
}

// Bounds of a partition's history under the heavy workload.
const (
	// partitionClientsMax: clients with an op on one partition at once.
	// Porcupine's search grows exponentially with the operations of one
	// partition that overlap (and with those a crash leaves indefinite).
	partitionClientsMax = 3
	// partitionDrawsMax: partitions drawn before a client settles for a
	// metadata op.
	partitionDrawsMax = 3
)

// quietPartition draws a partition with room in its history and fewer
// than partitionClientsMax clients at work on it.
func (w *World) quietPartition(topics []*topicInfo) (*topicInfo, oracles.PartKey, bool) {
	for range partitionDrawsMax {
		t := topics[w.rng.IntN(len(topics))]
		k := oracles.PartKey{Stream: t.stream, Topic: t.name, Partition: w.rng.Uint32N(t.partitions)}
		if w.catalog.part(k).ops < partitionOpsWorkload && w.partitionClients(k) < partitionClientsMax {
			return t, k, true
		}
	}
	w.marks.Hit("sim.workload.partitions_busy")
	return nil, oracles.PartKey{}, false
}

// partitionClients counts the clients whose op (or whose attempt still
// unsettled on a link they gave up) is about partition k.
func (w *World) partitionClients(k oracles.PartKey) int {
	n := 0
	for _, c := range w.clients {
		if c.op != nil && c.op.part == k && c.op.partitionPlane() {
			n++
		}
	}
	return n
}

// heavyDataOp draws a data op of the heavy workload on partition k of t.
func (w *World) heavyDataOp(c *client, t *topicInfo, k oracles.PartKey) *op {
	kn := &w.knobs
	r := w.rng.IntN(100)
	switch {
	case r < kn.ReconnectPercent && c.link != nil:
		w.marks.Hit(markReconnect)
		l := c.link
		w.lost(c)
		w.hangUp(l)
		return nil
	case r < kn.ReconnectPercent+kn.GroupPercent:
		return w.groupOp(c, t, k)
	case r < kn.ReconnectPercent+kn.GroupPercent+kn.PollOtherPercent:
		return w.pollOtherOp(c, t, k)
	}
	return w.plainDataOp(c, t, k, heavyPollOffsetPercent)
}

// heavyPollOffsetPercent: polls by offset give the heavy workload's other
// polls some of their share.
const heavyPollOffsetPercent = 72

// pollOtherOp polls by the first offset, the last, or a timestamp: reads
// porcupine checks like a poll by next (wherever they start, the messages
// must be the log's from there).
func (w *World) pollOtherOp(c *client, t *topicInfo, k oracles.PartKey) *op {
	o := &op{kind: opPollOther, code: wire.CmdPollMessages, part: k, topic: t, count: 1 + w.rng.Uint32N(pollCountMax)}
	s := wire.PollingStrategy{Kind: []wire.PollingKind{wire.PollFirst, wire.PollLast, wire.PollTimestamp}[w.rng.IntN(3)]}
	if s.Kind == wire.PollTimestamp {
		now := w.hosts[c.target].clock.at(w.tick).NowMicros
		s.Value = now - min(now, w.rng.Uint64N(pollTimestampBackMicros))
	}
	o.strategy = s.Kind
	o.body = encode(wire.PollMessagesRequest{
		Consumer: wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: wire.NumericID(uint32(c.idx + 1))},
		StreamID: wire.NamedID(k.Stream), TopicID: wire.NamedID(k.Topic),
		Partition: wire.OptionalPartition{Given: true, ID: k.Partition}, Strategy: s, Count: o.count,
	}.Encode)
	return o
}

// groupMove is what a consumer group op does.
type groupMove uint8

const (
	groupCreate groupMove = iota + 1
	groupJoin
	groupPoll
	groupLeave
	groupGet
)

var groupMoveNames = [...]string{groupCreate: "create", groupJoin: "join", groupPoll: "poll", groupLeave: "leave", groupGet: "get"}

// groupOp is a move of the one consumer group of topic t that every client
// shares: create it, join, poll by next as a member (auto-committing
// half the time), leave, read it. Any of them may find the group missing
// or the client not a member; none may fail otherwise.
func (w *World) groupOp(c *client, t *topicInfo, k oracles.PartKey) *op {
	move := groupMove(1 + w.rng.IntN(len(groupMoveNames)-1))
	name := "g-" + t.name
	ref := wire.GroupRef{StreamID: wire.NamedID(t.stream), TopicID: wire.NamedID(t.name), GroupID: wire.NamedID(name)}
	o := &op{kind: opGroup, group: move, part: k, topic: t, stream: t.stream, name: name}
	switch move {
	case groupCreate:
		o.code, o.body = wire.CmdCreateConsumerGroup, encode(wire.CreateConsumerGroupRequest{
			StreamID: ref.StreamID, TopicID: ref.TopicID, Name: name}.Encode)
	case groupJoin:
		o.code, o.body = wire.CmdJoinConsumerGroup, encode(ref.Encode)
	case groupLeave:
		o.code, o.body = wire.CmdLeaveConsumerGroup, encode(ref.Encode)
	case groupGet:
		o.code, o.body = wire.CmdGetConsumerGroup, encode(ref.Encode)
	case groupPoll:
		o.kind, o.code, o.count = opGroupPoll, wire.CmdPollMessages, 1+w.rng.Uint32N(pollCountMax)
		o.body = encode(wire.PollMessagesRequest{
			Consumer: wire.Consumer{Kind: wire.ConsumerKindGroup, ID: wire.NamedID(name)},
			StreamID: ref.StreamID, TopicID: ref.TopicID,
			Partition: wire.OptionalPartition{Given: true, ID: k.Partition},
			Strategy:  wire.PollingStrategy{Kind: wire.PollNext}, Count: o.count, AutoCommit: w.rng.IntN(2) == 0,
		}.Encode)
	}
	return o
}

// groupRefusal: an answer a group op may get in a correct run, as clients
// race to create, join and leave the group.
func groupRefusal(status wire.Code) bool {
	switch status {
	case wire.ConsumerGroupIdNotFound, wire.ConsumerGroupNameNotFound, wire.ConsumerGroupNameAlreadyExists,
		wire.ConsumerGroupMemberNotFound, wire.ConsumerGroupPartitionNotOwned:
		return true
	}
	return false
}

// settleGroup judges a group op's answer: an acknowledged topic is never
// missing (but for a read a lagging backup served), and a refusal is one
// of the group's own.
func (w *World) settleGroup(o *op, status wire.Code) {
	switch {
	case status == wire.OK:
		w.marks.Hit([...]string{groupCreate: markGroupCreated, groupJoin: markGroupJoined,
			groupLeave: markGroupLeft, groupGet: markGroupRead}[o.group])
	case groupRefusal(status):
		w.marks.Hit(fmt.Sprintf("sim.workload.group_%s_refused_%d", groupMoveNames[o.group], uint32(status)))
	case o.group == groupGet && notFound(status) && w.staleRead(o):
		// A read on a backup that has not applied the topic's create yet
		// (corpus seed 318696002 cluster, once the change log follower
		// moved its schedule).
	default:
		w.unexpected(o, status)
	}
}

// groupPolled: a member's poll answered for its partition, or for none
// (the member does not own it: the reply tells it to fetch its assignment
// again, with no messages).
func groupPolled(o *op, pid uint32, count uint32) error {
	switch {
	case pid == o.part.Partition:
		return nil
	case pid == groupResyncPartition && count == 0:
		return nil
	}
	return fmt.Errorf("answered for partition %d with %d messages", pid, count)
}

// groupResyncPartition is the partition id of a group poll's reply that
// tells the member to fetch its assignment again (protocol-data.md 5.6).
const groupResyncPartition = 0xFFFFFFFF
