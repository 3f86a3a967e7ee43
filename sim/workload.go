package sim

import (
	"encoding/binary"
	"fmt"

	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// Workload bounds.
const (
	// partitionOpsWorkload leaves room in a partition's history for the
	// read-back after heal (oracles.PartitionOpsMax in all).
	partitionOpsWorkload = oracles.PartitionOpsMax * 8 / 10
	// topicPartitionsMax caps partitions per topic, creates included.
	topicPartitionsMax = 8
	// pollCountMax is the largest count a workload poll asks for.
	pollCountMax = 100
	// finalPollCount is what one read-back poll asks for.
	finalPollCount = 1000
)

// storeIntent is the offset store a consumer owes after a poll by next.
type storeIntent struct {
	part  oracles.PartKey
	topic *topicInfo
	value uint64
}

func encode(f func(*wire.Writer)) []byte {
	w := wire.Writer{}
	f(&w)
	return w.Buf
}

// nextOp draws a client's next operation; nil when it has nothing to do.
// During faults every client runs the random workload; after heal only
// client 0 works, reading everything back.
func (w *World) nextOp(c *client) *op {
	if c.follow != nil {
		return w.followOp(c) // follow.go
	}
	if w.healed {
		if c.idx == 0 {
			return w.nextFinal(c)
		}
		c.done = true
		return nil
	}
	if len(c.plan) > 0 {
		return w.nextPlanned(c)
	}
	if s := c.store; s != nil {
		c.store = nil
		return &op{kind: opStore, code: wire.CmdStoreConsumerOffset, part: s.part, topic: s.topic, value: s.value,
			body: encode(wire.StoreConsumerOffsetRequest{ConsumerOffsetRef: offsetRef(c, s.part), Offset: s.value, Ack: wire.AckQuorum}.Encode)}
	}
	topics := w.catalog.topics()
	if c.idx == 0 && len(topics) < w.knobs.Topics {
		return w.setupOp(c)
	}
	if !w.knobs.DataOps || len(topics) == 0 || w.rng.IntN(100) < w.knobs.MetaPercent {
		return w.metaOp(c, topics)
	}
	if w.knobs.Workload >= WorkloadHeavy {
		if t, k, ok := w.quietPartition(topics); ok {
			return w.heavyDataOp(c, t, k)
		}
		return w.metaOp(c, topics)
	}
	t := topics[w.rng.IntN(len(topics))]
	k := oracles.PartKey{Stream: t.stream, Topic: t.name, Partition: w.rng.Uint32N(t.partitions)}
	if w.catalog.part(k).ops >= partitionOpsWorkload {
		return w.metaOp(c, topics)
	}
	return w.plainDataOp(c, t, k, legacyPollOffsetPercent)
}

// The shares of a plain data op (percent, cumulative): sends, then polls
// by offset (up to a workload's own share), polls by next, the rest
// offset reads.
const (
	sendPercent             = 50
	legacyPollOffsetPercent = 75
	pollNextUntilPercent    = 92
)

// plainDataOp draws a send, a poll by offset or by next, or an offset read.
func (w *World) plainDataOp(c *client, t *topicInfo, k oracles.PartKey, pollOffsetUntil int) *op {
	switch r := w.rng.IntN(100); {
	case r < sendPercent && w.producersOn():
		return w.producerSendOp(c, t, k) // producers.go
	case r < sendPercent:
		return w.sendOp(t, k)
	case r < pollOffsetUntil:
		return w.pollOp(c, t, k, false)
	case r < pollNextUntilPercent:
		return w.pollOp(c, t, k, true)
	default:
		return &op{kind: opGetOffset, code: wire.CmdGetConsumerOffset, part: k, topic: t,
			body: encode(offsetRef(c, k).Encode)}
	}
}

func offsetRef(c *client, k oracles.PartKey) wire.ConsumerOffsetRef {
	return wire.ConsumerOffsetRef{
		Consumer: wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: wire.NumericID(uint32(c.idx + 1))},
		StreamID: wire.NamedID(k.Stream), TopicID: wire.NamedID(k.Topic),
		Partition: wire.OptionalPartition{Given: true, ID: k.Partition},
	}
}

func (w *World) sendOp(t *topicInfo, k oracles.PartKey) *op {
	b, count, body := w.newBatch(k)
	return &op{kind: opSend, code: wire.CmdSendMessages, part: k, topic: t, batch: b, count: count, body: body}
}

// newBatch draws the next batch for partition k: its number, its count of
// messages and the SendMessages body.
func (w *World) newBatch(k oracles.PartKey) (uint64, uint32, []byte) {
	count := 1 + w.rng.IntN(w.knobs.BatchMessagesMax)
	size := 1 + w.rng.IntN(w.knobs.PayloadBytesMax)
	return w.batchOf(k, count, size)
}

// batchOf builds the next batch for partition k: count messages of size bytes.
func (w *World) batchOf(k oracles.PartKey, count, size int) (uint64, uint32, []byte) {
	w.batches++
	b := w.batches
	msgs := make([]batch.Message, count)
	now := w.hosts[0].clock.at(w.tick).NowMicros
	for i := range msgs {
		msgs[i] = batch.Message{ID: messageID(b, uint32(i)), OriginTimestamp: now, Payload: payload(b, uint32(i), size)}
	}
	rec, code := batch.Build(msgs)
	if code != wire.OK {
		panic(fmt.Sprintf("sim: cannot build a batch of %d messages of %d bytes: %s", count, size, code.Name()))
	}
	q := wire.SendMessagesRequest{StreamID: wire.NamedID(k.Stream), TopicID: wire.NamedID(k.Topic),
		Partitioning:  wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: k.Partition},
		MessagesCount: uint32(count), Batch: rec}
	return b, uint32(count), encode(q.Encode)
}

// pollOp polls by offset (somewhere around what is known to be there) or
// by the client's consumer's stored offset.
func (w *World) pollOp(c *client, t *topicInfo, k oracles.PartKey, next bool) *op {
	o := &op{kind: opPoll, code: wire.CmdPollMessages, part: k, topic: t, count: 1 + w.rng.Uint32N(pollCountMax)}
	q := wire.PollMessagesRequest{
		Consumer: wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: wire.NumericID(uint32(c.idx + 1))},
		StreamID: wire.NamedID(k.Stream), TopicID: wire.NamedID(k.Topic),
		Partition: wire.OptionalPartition{Given: true, ID: k.Partition}, Count: o.count,
	}
	if next {
		o.kind = opPollNext
		q.Strategy = wire.PollingStrategy{Kind: wire.PollNext}
	} else {
		known := w.catalog.part(k).highest
		o.offset = w.rng.Uint64N(known + 3)
		q.Strategy = wire.PollingStrategy{Kind: wire.PollOffset, Value: o.offset}
		w.maybeDeferred(o, q)
		return o
	}
	o.body = encode(q.Encode)
	return o
}

// metaOp creates a stream, a topic or partitions, reads metadata back,
// or (ChurnPercent of the time) churns: updates, deletes, users, tokens,
// logouts.
func (w *World) metaOp(c *client, topics []*topicInfo) *op {
	if w.knobs.ChurnPercent > 0 && w.rng.IntN(100) < w.knobs.ChurnPercent {
		if o := w.churnOp(c); o != nil {
			return o
		}
	}
	streams := w.catalog.streams
	switch r := w.rng.IntN(100); {
	case len(streams) == 0 || r < 15:
		c.names++
		name := fmt.Sprintf("s%d-%d", c.idx, c.names)
		return &op{kind: opCreateStream, code: wire.CmdCreateStream, stream: name,
			body: encode(wire.CreateStreamRequest{Name: name}.Encode)}
	case len(topics) == 0 || r < 45:
		return w.createTopicOp(c, streams[w.rng.IntN(len(streams))].name)
	case r < 60:
		t := topics[w.rng.IntN(len(topics))]
		if t.partitionsBusy || t.partitions >= topicPartitionsMax {
			return w.listOp()
		}
		t.partitionsBusy = true
		n := uint32(1 + w.rng.IntN(2))
		return &op{kind: opCreatePartitions, code: wire.CmdCreatePartitions, stream: t.stream, name: t.name,
			topic: t, partitions: n,
			body: encode(wire.PartitionsRequest{StreamID: wire.NamedID(t.stream), TopicID: wire.NamedID(t.name), PartitionsCount: n}.Encode)}
	case r < 80:
		t := topics[w.rng.IntN(len(topics))]
		return w.getTopicOp(t.stream, t.name, t)
	}
	return w.listOp()
}

func (w *World) listOp() *op { return &op{kind: opListStreams, code: wire.CmdGetStreams} }

func (w *World) getTopicOp(stream, name string, t *topicInfo) *op {
	return &op{kind: opGetTopic, code: wire.CmdGetTopic, stream: stream, name: name, topic: t,
		body: encode(wire.TopicRef{StreamID: wire.NamedID(stream), TopicID: wire.NamedID(name)}.Encode)}
}

var policies = []oracles.Durability{oracles.DurabilityNone, oracles.DurabilityReplicated, oracles.DurabilityReplicated,
	oracles.DurabilityPersisted, oracles.DurabilityPersisted}

func (w *World) createTopicOp(c *client, stream string) *op {
	c.names++
	name := fmt.Sprintf("t%d-%d", c.idx, c.names)
	o := &op{kind: opCreateTopic, code: wire.CmdCreateTopic, stream: stream, name: name,
		partitions: uint32(1 + w.rng.IntN(w.knobs.PartitionsMax)),
		policy:     policies[w.rng.IntN(len(policies))], offsetPolicy: policies[w.rng.IntN(len(policies))]}
	q := wire.CreateTopicRequest{StreamID: wire.NamedID(stream), Name: name, PartitionsCount: o.partitions,
		Options: []wire.Option{
			{Key: wire.OptDurability, Kind: wire.KindString, Value: []byte(o.policy.String())},
			{Key: wire.OptConsumerOffsetDurability, Kind: wire.KindString, Value: []byte(o.offsetPolicy.String())},
		}}
	if w.knobs.ReplicationFactor > 0 { // partitions on some members only (PLACE-15)
		q.Options = append(q.Options, wire.Option{Key: wire.OptReplicationFactor, Kind: wire.KindUint8,
			Value: []byte{uint8(w.knobs.ReplicationFactor)}})
	}
	if w.knobs.TruncatePerMillion > 0 { // segments to seal, and so to truncate
		q.Options = append(q.Options, wire.Option{Key: wire.OptSegmentSize, Kind: wire.KindUint64,
			Value: binary.LittleEndian.AppendUint64(nil, wire.SegmentSizeBytesMin)})
	}
	o.body = encode(q.Encode)
	return o
}

// setupOp is client 0's start: a stream, then the knob's topics on it.
func (w *World) setupOp(c *client) *op {
	if len(w.catalog.streams) == 0 {
		c.names++
		name := fmt.Sprintf("s%d-%d", c.idx, c.names)
		return &op{kind: opCreateStream, code: wire.CmdCreateStream, stream: name,
			body: encode(wire.CreateStreamRequest{Name: name}.Encode)}
	}
	return w.createTopicOp(c, w.catalog.streams[0].name)
}
