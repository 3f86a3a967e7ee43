package sim

import (
	"encoding/binary"
	"fmt"

	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
)

// A recreate is churn of a sharded standalone node (Knobs.Shards > 1):
// client A creates a stream and a topic with partitions in it, sends to
// the topic and deletes it (or the stream); as A sends the delete, another
// client B (an idle one if there is) creates a topic of the same name in
// the same stream (the stream first, if A deletes it) without waiting for
// A's answer; ids are reused, so are the directories. B sends to it and
// polls it from offset 0, then (half the time after a send of just over a
// segment, which seals one) deletes segments twice, reading the topic
// before and right after each. The drops of the old partitions are often
// still pending when B's create commits, so the front holds the new
// partitions' opens and what follows for the stream
// (node.shard.open_held); the truncation handed to a host parks the views
// that read its counters (node.shard.view_parked).
//
// The durability and porcupine oracles do not follow churned names, so
// the recreate judges the new topic itself, once B's create succeeded at
// its first attempt and every send of A was answered before the delete
// went out (so none lands later): only B sends to the topic then, so a
// poll from offset 0 starts at offset 0 and holds only B's batches (none
// of the old topic's), and, with no crash since the create, every message
// an acknowledged send of B put at an offset polled, and the partition's
// current offset covers them all.

// recreateStep is what an op of a recreate does.
type recreateStep uint8

const (
	rcSetup recreateStep = iota + 1 // A's create of the stream and the old topic
	rcSendOld
	rcDeleteOld
	rcCreateNew
	rcSendNew
	rcPollNew
	rcTail // B's segment delete and topic read: not judged
)

// Recreate bounds.
const (
	recreateSendsMax      = 4 // sends to each incarnation
	recreatePartitionsMax = 3
	// recreateTruncations: segment deletes of the new topic, each read
	// back at once by a GetTopic.
	recreateTruncations = 2
	// recreateSegmentBytes seals segments early, so DeleteSegments has some.
	recreateSegmentBytes = 1 << 20
	recreateBulkMessages = 16
)

// Marks of recreates. Those of the node a swarm sweep must hit (Required).
const (
	markOpenHeld          = "node.shard.open_held"
	markViewParked        = "node.shard.view_parked"
	markRecreateJudged    = "sim.recreate.judged"      // B's create succeeded, and what follows is judged
	markRecreateFresh     = "sim.recreate.fresh_first" // B's first send was answered at offset 0
	markRecreatePolled    = "sim.recreate.polled"      // a judged poll of the new topic returned messages
	markRecreateSealed    = "sim.recreate.sealed"      // a read of the new topic counted several segments in a partition
	markRecreateTruncated = "sim.recreate.truncated"   // and a later read fewer
)

// recreate is one delete and create of a topic under one stream.
type recreate struct {
	stream, topic string
	oldSends      []*attempt // A's sends to the old topic
	judged        bool       // every old send was answered before the delete went out
	created       bool       // B's create succeeded at its first attempt
	createRetried bool
	wholeStream   bool // A deletes the stream, B creates it again first
	streamRetried bool
	epoch         int               // the node's incarnation when B's create answered
	first         *op               // B's first send transmitted
	batches       map[uint64]uint32 // B's batches and their partitions
	acked         map[uint32][]ackedSend
	segments      map[uint32]uint32 // by partition, as the last read of the topic counted them
}

// ackedSend is a send of B the node acknowledged.
type ackedSend struct {
	base, batch uint64
	count       uint32
}

// recreateOp starts a recreate by c (A): its first op, the rest planned.
func (w *World) recreateOp(c *client) *op {
	c.names++
	s := fmt.Sprintf("x%d-%d", c.idx, c.names)
	c.names++
	rc := &recreate{stream: s, topic: fmt.Sprintf("y%d-%d", c.idx, c.names),
		batches: map[uint64]uint32{}, acked: map[uint32][]ackedSend{}, segments: map[uint32]uint32{}}
	// One partition may sit on the front alone: then no host drops one.
	parts := uint32(1 + w.rng.IntN(recreatePartitionsMax))
	c.plan = append(c.plan, w.recreateCreate(rc, rcSetup, parts))
	for range 1 + w.rng.IntN(recreateSendsMax) {
		c.plan = append(c.plan, w.recreateSend(rc, rcSendOld, w.rng.Uint32N(parts)))
	}
	if rc.wholeStream = w.rng.IntN(2) == 0; rc.wholeStream {
		c.plan = append(c.plan, w.rcOp(rc, rcDeleteOld, wire.CmdDeleteStream, "recreate-delete-stream "+s,
			wire.StreamRef{StreamID: wire.NamedID(s)}.Encode))
	} else {
		c.plan = append(c.plan, w.rcOp(rc, rcDeleteOld, wire.CmdDeleteTopic, "recreate-delete "+s+"/"+rc.topic,
			wire.TopicRef{StreamID: wire.NamedID(s), TopicID: wire.NamedID(rc.topic)}.Encode))
	}
	return w.recreateStream(rc, rcSetup)
}

func (w *World) recreateStream(rc *recreate, step recreateStep) *op {
	return w.rcOp(rc, step, wire.CmdCreateStream, "recreate-stream "+rc.stream, wire.CreateStreamRequest{Name: rc.stream}.Encode)
}

func (w *World) recreatePartitions() uint32 { return uint32(2 + w.rng.IntN(recreatePartitionsMax-1)) }

func (w *World) rcOp(rc *recreate, step recreateStep, code wire.Command, what string, body func(*wire.Writer)) *op {
	o := churnOpOf(code, what, body)
	o.rc, o.step = rc, step
	return o
}

func (w *World) recreateCreate(rc *recreate, step recreateStep, parts uint32) *op {
	size := binary.LittleEndian.AppendUint64(nil, recreateSegmentBytes)
	o := w.rcOp(rc, step, wire.CmdCreateTopic, fmt.Sprintf("recreate-topic %s/%s %d", rc.stream, rc.topic, parts),
		wire.CreateTopicRequest{StreamID: wire.NamedID(rc.stream), Name: rc.topic, PartitionsCount: parts,
			Options: []wire.Option{{Key: wire.OptSegmentSize, Kind: wire.KindUint64, Value: size}}}.Encode)
	o.partitions = parts
	return o
}

func (w *World) recreateSend(rc *recreate, step recreateStep, p uint32) *op {
	k := oracles.PartKey{Stream: rc.stream, Topic: rc.topic, Partition: p}
	b, count, body := w.newBatch(k)
	o := &op{kind: opChurn, code: wire.CmdSendMessages, stream: fmt.Sprintf("recreate-send %s/%s/%d", k.Stream, k.Topic, k.Partition),
		part: k, batch: b, count: count, body: body, rc: rc, step: step}
	if step == rcSendNew {
		rc.batches[b] = k.Partition
	}
	return o
}

// nextPlanned pops c's next planned op. A's delete hands the new topic's
// ops to another client at once; B's last op gives it the names to churn.
func (w *World) nextPlanned(c *client) *op {
	o := c.plan[0]
	c.plan = c.plan[1:]
	switch o.step {
	case rcDeleteOld:
		rc := o.rc
		rc.judged = true
		for _, a := range rc.oldSends {
			rc.judged = rc.judged && a.resolved
		}
		w.handRecreate(c, rc)
	case rcTail:
		if len(c.plan) == 0 {
			c.churn.streams = remember(c.churn.streams, o.rc.stream)
			c.churn.topics = append(c.churn.topics[max(0, len(c.churn.topics)-churnNamesMax+1):], [2]string{o.rc.stream, o.rc.topic})
		}
	}
	return o
}

// handRecreate plans the new topic's ops on a client other than a: an idle
// one, acting this tick, else any without a plan, else a itself.
func (w *World) handRecreate(a *client, rc *recreate) {
	b := w.recreator(a)
	if rc.wholeStream {
		b.plan = append(b.plan, w.recreateStream(rc, rcCreateNew))
	}
	parts := w.recreatePartitions()
	b.plan = append(b.plan, w.recreateCreate(rc, rcCreateNew, parts))
	for range 1 + w.rng.IntN(recreateSendsMax) {
		b.plan = append(b.plan, w.recreateSend(rc, rcSendNew, w.rng.Uint32N(parts)))
	}
	cut := w.rng.Uint32N(parts)
	if w.rng.IntN(2) == 0 {
		// A segment's worth in one batch seals it; the next send goes to
		// a new one, so the segment delete has one to take.
		b.plan = append(b.plan, w.recreateBulk(rc, cut), w.recreateSend(rc, rcSendNew, cut))
	}
	for p := range parts {
		b.plan = append(b.plan, w.recreatePoll(rc, b, p))
	}
	b.plan = append(b.plan, w.recreateGetTopic(rc))
	w.planTruncations(b, rc, cut, parts)
}

// recreator picks the client that creates the topic again: an idle one
// if any (it acts this tick), else any other without a plan, else a.
func (w *World) recreator(a *client) *client {
	var idle, free []*client
	for _, c := range w.clients {
		if c == a || len(c.plan) > 0 || c.done || c.follow != nil {
			continue
		}
		free = append(free, c)
		if c.op == nil && c.att == nil {
			idle = append(idle, c)
		}
	}
	switch {
	case len(idle) > 0:
		b := idle[w.rng.IntN(len(idle))]
		b.nextAt = min(b.nextAt, w.tick)
		w.marks.Hit("sim.recreate.concurrent")
		return b
	case len(free) > 0:
		return free[w.rng.IntN(len(free))]
	}
	return a
}

// recreatePoll reads partition p of the new topic from offset 0.
func (w *World) recreatePoll(rc *recreate, b *client, p uint32) *op {
	return &op{kind: opChurn, code: wire.CmdPollMessages, rc: rc, step: rcPollNew,
		stream: fmt.Sprintf("recreate-poll %s/%s/%d", rc.stream, rc.topic, p),
		part:   oracles.PartKey{Stream: rc.stream, Topic: rc.topic, Partition: p}, count: finalPollCount,
		body: encode(wire.PollMessagesRequest{
			Consumer: wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: wire.NumericID(uint32(b.idx + 1))},
			StreamID: wire.NamedID(rc.stream), TopicID: wire.NamedID(rc.topic),
			Partition: wire.OptionalPartition{Given: true, ID: p}, Count: finalPollCount,
			Strategy: wire.PollingStrategy{Kind: wire.PollOffset, Value: 0},
		}.Encode)}
}

// planTruncations deletes segments (of the sealed partition first) and
// reads the topic after each delete.
func (w *World) planTruncations(b *client, rc *recreate, cut, parts uint32) {
	for i := range recreateTruncations {
		p := cut
		if i > 0 {
			p = w.rng.Uint32N(parts)
		}
		b.plan = append(b.plan, w.rcOp(rc, rcTail, wire.CmdDeleteSegments, fmt.Sprintf("recreate-delete-segments %s/%s/%d", rc.stream, rc.topic, p),
			wire.DeleteSegmentsRequest{StreamID: wire.NamedID(rc.stream), TopicID: wire.NamedID(rc.topic),
				PartitionID: p, SegmentsCount: uint32(1 + w.rng.IntN(2))}.Encode))
		b.plan = append(b.plan, w.recreateGetTopic(rc))
	}
}

func (w *World) recreateGetTopic(rc *recreate) *op {
	return w.rcOp(rc, rcTail, wire.CmdGetTopic, "recreate-get-topic "+rc.stream+"/"+rc.topic,
		wire.TopicRef{StreamID: wire.NamedID(rc.stream), TopicID: wire.NamedID(rc.topic)}.Encode)
}

// recreateBulk is a send of B of just over a segment to partition p.
func (w *World) recreateBulk(rc *recreate, p uint32) *op {
	k := oracles.PartKey{Stream: rc.stream, Topic: rc.topic, Partition: p}
	b, count, body := w.batchOf(k, recreateBulkMessages, recreateSegmentBytes/recreateBulkMessages+1)
	rc.batches[b] = p
	return &op{kind: opChurn, code: wire.CmdSendMessages, stream: fmt.Sprintf("recreate-bulk %s/%s/%d", k.Stream, k.Topic, p),
		part: k, batch: b, count: count, body: body, rc: rc, step: rcSendNew}
}

// recreateSent notes a send attempt of a recreate.
func (w *World) recreateSent(o *op, a *attempt) {
	rc := o.rc
	switch {
	case o.step == rcSendOld:
		rc.oldSends = append(rc.oldSends, a)
	case o.step == rcSendNew && rc.first == nil:
		rc.first = o
	}
}

// settleRecreate judges an answer about the new topic.
func (w *World) settleRecreate(a *attempt, o *op, status wire.Code, payload []byte) {
	rc := o.rc
	switch o.step {
	case rcCreateNew:
		w.recreateCreated(a, o, status)
	case rcSendNew:
		if status == wire.CannotSaveMessagesToSegment && w.knobs.WriteErrorPerMille == 0 {
			w.unexpected(o, status) // no write error is injected: its files went
		}
		if status == wire.OK && rc.judged && rc.created {
			w.recreateAcked(o, payload)
		}
	case rcPollNew:
		if status == wire.OK && rc.judged && rc.created {
			w.recreatePolled(o, payload)
		}
	case rcTail:
		if o.code == wire.CmdGetTopic && status == wire.OK {
			w.recreateRead(o, payload)
		}
	}
}

// recreateRead checks a read of the new topic around its segment deletes
// is well formed, and notes sealed segments and segments deleted.
func (w *World) recreateRead(o *op, payload []byte) {
	rc := o.rc
	d, _, code := wire.DecodeTopicDetails(payload)
	if code != wire.OK {
		w.fail("protocol", fmt.Sprintf("%s: malformed reply", o))
		return
	}
	for _, p := range d.Partitions {
		if p.SegmentsCount > 1 {
			w.marks.Hit(markRecreateSealed)
		}
		if n, ok := rc.segments[p.ID]; ok && p.SegmentsCount < n {
			w.marks.Hit(markRecreateTruncated)
		}
		rc.segments[p.ID] = p.SegmentsCount
	}
}

func (w *World) recreateCreated(a *attempt, o *op, status wire.Code) {
	rc := o.rc
	c := a.link.client
	if o.code == wire.CmdCreateStream {
		if status == wire.StreamNameAlreadyExists && !rc.streamRetried {
			rc.streamRetried = true // A's delete came after, as below
			c.plan = append([]*op{w.recreateStream(rc, rcCreateNew)}, c.plan...)
		}
		return
	}
	switch {
	case status == wire.OK && o.tries == 1:
		rc.created, rc.epoch = true, w.hosts[0].epoch
		if rc.judged {
			w.marks.Hit(markRecreateJudged)
		}
	case status == wire.TopicNameAlreadyExists && !rc.createRetried:
		// A's delete came after: try once more, it is likely through now.
		rc.createRetried = true
		c.plan = append([]*op{w.recreateCreate(rc, rcCreateNew, o.partitions)}, c.plan...)
	}
}

func (w *World) recreateAcked(o *op, payload []byte) {
	rc := o.rc
	confs, code := wire.DecodeSendConfirmations(payload)
	if code != wire.OK || len(confs) != 1 || confs[0].PartitionID != o.part.Partition {
		w.fail("protocol", fmt.Sprintf("malformed send confirmation for %s", o))
		return
	}
	base := confs[0].BaseOffset
	if rc.first == o && o.tries == 1 {
		if base != 0 {
			w.fail("recreate", fmt.Sprintf("%s: the first send to a recreated topic was stored at offset %d", o, base))
			return
		}
		w.marks.Hit(markRecreateFresh)
	}
	p := o.part.Partition
	rc.acked[p] = append(rc.acked[p], ackedSend{base: base, batch: o.batch, count: o.count})
}

// recreatePolled: a poll from offset 0 of the new topic holds B's batches
// only, from offset 0, and (no crash since the create) what B's
// acknowledged sends stored.
func (w *World) recreatePolled(o *op, payload []byte) {
	rc := o.rc
	q := *o
	q.kind = opPoll
	r, err := decodePoll(&q, payload)
	if err != nil {
		w.fail("wrong-data", fmt.Sprintf("%s: %v", o, err))
		return
	}
	p := o.part.Partition
	if len(r.Msgs) > 0 {
		w.marks.Hit(markRecreatePolled)
		if r.First != 0 {
			w.fail("recreate", fmt.Sprintf("%s: a recreated topic's partition starts at offset %d", o, r.First))
			return
		}
	}
	for i, m := range r.Msgs {
		if q, ok := rc.batches[m.Batch]; !ok || q != p {
			w.fail("recreate", fmt.Sprintf("%s: offset %d holds message %d#%d, which was not sent to this incarnation",
				o, r.First+uint64(i), m.Batch, m.Index))
			return
		}
	}
	if rc.epoch != w.hosts[0].epoch {
		return // a crash since may have lost unsynced sends
	}
	for _, s := range rc.acked[p] {
		if r.Current+1 < s.base+uint64(s.count) {
			w.fail("recreate", fmt.Sprintf("%s: current offset %d, below batch %d acknowledged at %d..%d",
				o, r.Current, s.batch, s.base, s.base+uint64(s.count)-1))
			return
		}
		for j := range s.count {
			off := s.base + uint64(j)
			if off < r.First || off >= r.First+uint64(len(r.Msgs)) {
				continue
			}
			if got := r.Msgs[off-r.First]; got != (oracles.Msg{Batch: s.batch, Index: j}) {
				w.fail("recreate", fmt.Sprintf("%s: offset %d holds %d#%d, acknowledged as %d#%d",
					o, off, got.Batch, got.Index, s.batch, j))
				return
			}
		}
	}
}
