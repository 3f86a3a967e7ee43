package e2e

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// A node of two shards: shard 0 (the front) owns metadata, connections and
// the partitions whose (stream + topic + partition) is even, shard 1 (a host)
// the odd ones. A topic of two partitions therefore has one on each shard,
// and every check below runs against both.

const (
	shardTestPartitions = 2
	shardTestBatches    = 3
	shardTestBatchSize  = 10
)

// shardServer starts a server running two shards.
func shardServer(t *testing.T) *server {
	t.Helper()
	if runtime.NumCPU() < 2 {
		t.Skip("two shards need two CPUs (sharding.cpu_allocation is bounded by them)")
	}
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_SHARDING_CPU_ALLOCATION": "2"}})
	if !strings.Contains(s.stderr.String(), "shards: 2") {
		t.Fatalf("the server does not run two shards:\n%s", s.stderr)
	}
	return s
}

// shardTopic is a topic the test fills and what it sent to each partition.
type shardTopic struct {
	stream, topic wire.Identifier
	name          string
	sent          [shardTestPartitions][]sentMessage
}

// messages is the number of messages sent to the topic.
func (st *shardTopic) messages() uint64 {
	var n uint64
	for _, p := range st.sent {
		n += uint64(len(p))
	}
	return n
}

// fill sends batches to each partition, checking after every send that
// GetTopic and GetStats already count it (a host's counters reach the
// front before its reply ends the request).
// covers MSG-13, MSG-14
func (st *shardTopic) fill(t *testing.T, c *client.Client, tag byte, othersSent uint64) {
	t.Helper()
	for b := range shardTestBatches {
		for p := range uint32(shardTestPartitions) {
			msgs := make([]client.Message, shardTestBatchSize)
			for i := range msgs {
				n := uint64(len(st.sent[p]) + i)
				msgs[i] = client.Message{ID: messageID(tag, n), Payload: fmt.Appendf(nil, "%s/%d/%d", st.name, p, n),
					Headers: map[string]client.HeaderValue{"batch": {Kind: wire.KindUint32, Value: []byte{byte(b), 0, 0, 0}}}}
			}
			base, err := c.SendMessages(st.stream, st.topic, wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: p}, msgs)
			if err != nil {
				t.Fatalf("%s: send to partition %d: %v", st.name, p, err)
			}
			for i, m := range msgs {
				st.sent[p] = append(st.sent[p], sentMessage{offset: base + uint64(i), msg: m})
			}
			st.checkCounts(t, c, othersSent)
		}
	}
}

// checkCounts compares the topic's and the system's message counts with
// what was sent.
func (st *shardTopic) checkCounts(t *testing.T, c *client.Client, othersSent uint64) {
	t.Helper()
	d, found, err := c.GetTopic(st.stream, st.topic)
	if err != nil || !found || d.Topic.MessagesCount != st.messages() {
		t.Fatalf("%s: GetTopic counts %d messages (found %v, err %v), want %d", st.name, d.Topic.MessagesCount, found, err, st.messages())
	}
	for _, p := range d.Partitions {
		if want := uint64(len(st.sent[p.ID])); p.MessagesCount != want || (want > 0 && p.CurrentOffset != want-1) {
			t.Fatalf("%s: partition %d counts %d messages at offset %d, want %d", st.name, p.ID, p.MessagesCount, p.CurrentOffset, want)
		}
	}
	stats, err := c.GetStats()
	if err != nil || stats.MessagesCount != othersSent+st.messages() {
		t.Fatalf("%s: GetStats counts %d messages (err %v), want %d", st.name, stats.MessagesCount, err, othersSent+st.messages())
	}
}

// checkPolls reads every partition back whole.
// covers MSG-1, MSG-13, MSG-14
func (st *shardTopic) checkPolls(t *testing.T, c *client.Client) {
	t.Helper()
	for p := range uint32(shardTestPartitions) {
		got := pollAll(t, c, st.stream, st.topic, p)
		if len(got) != len(st.sent[p]) {
			t.Fatalf("%s: partition %d reads %d messages, want %d", st.name, p, len(got), len(st.sent[p]))
		}
		checkContiguous(t, p, got)
		for i, m := range got {
			if err := checkMessage(m, st.sent[p][i]); err != nil {
				t.Fatalf("%s: partition %d: %v", st.name, p, err)
			}
		}
	}
}

// storeOffsets stores, for consumer 7, offset p+1 on each partition p, and
// checks it reads back; consumer 8's offset on partition 1 is stored and
// deleted again.
// covers MSG-10, MSG-12
func (st *shardTopic) storeOffsets(t *testing.T, c *client.Client) {
	t.Helper()
	for p := range uint32(shardTestPartitions) {
		if err := c.StoreOffset(client.Consumer(7), st.stream, st.topic, p, uint64(p)+1); err != nil {
			t.Fatalf("%s: store offset on partition %d: %v", st.name, p, err)
		}
	}
	st.checkOffsets(t, c)
	if err := c.StoreOffset(client.Consumer(8), st.stream, st.topic, 1, 2); err != nil {
		t.Fatalf("%s: store consumer 8's offset: %v", st.name, err)
	}
	if err := c.DeleteOffset(client.Consumer(8), st.stream, st.topic, 1); err != nil {
		t.Fatalf("%s: delete consumer 8's offset: %v", st.name, err)
	}
	if _, found, err := c.GetOffset(client.Consumer(8), st.stream, st.topic, 1); err != nil || found {
		t.Fatalf("%s: consumer 8's deleted offset: found %v err %v", st.name, found, err)
	}
}

// checkOffsets checks consumer 7's offsets, and that a next poll starts
// after them.
func (st *shardTopic) checkOffsets(t *testing.T, c *client.Client) {
	t.Helper()
	for p := range uint32(shardTestPartitions) {
		o, found, err := c.GetOffset(client.Consumer(7), st.stream, st.topic, p)
		if err != nil || !found || o.StoredOffset != uint64(p)+1 || o.CurrentOffset != uint64(len(st.sent[p]))-1 {
			t.Fatalf("%s: partition %d offset %+v found %v err %v", st.name, p, o, found, err)
		}
		_, got, err := c.PollMessages(client.Consumer(7), st.stream, st.topic, &p, wire.PollNext, 0, 1, false)
		if err != nil || len(got) != 1 || got[0].Offset != uint64(p)+2 {
			t.Fatalf("%s: next poll on partition %d: %+v err %v", st.name, p, got, err)
		}
	}
}

// newShardTopic creates a stream with one topic of two partitions.
func newShardTopic(t *testing.T, c *client.Client, name string) *shardTopic {
	t.Helper()
	stream, topic := createStreamTopic(t, c, name, name+"-topic", shardTestPartitions)
	return &shardTopic{stream: stream, topic: topic, name: name}
}

// Sends, polls, counts and consumer offsets on partitions of both shards,
// a topic deleted and created again at once under the same name, and a
// restart that recovers the host shard's partitions.
// covers MSG-1, MSG-10, MSG-12, MSG-13, MSG-14, STOR-31, STOR-7, RES-44
func TestShardsDataPath(t *testing.T) {
	t.Parallel()
	s := shardServer(t)
	c := s.root()
	topics := []*shardTopic{newShardTopic(t, c, "shard-a"), newShardTopic(t, c, "shard-b")}
	var sent uint64
	for i, st := range topics {
		st.fill(t, c, byte(0xB0+i), sent)
		sent += st.messages()
	}
	for _, st := range topics {
		st.checkPolls(t, c)
		st.storeOffsets(t, c)
	}
	recreated := recreateTopic(t, c, topics[1], sent-topics[1].messages())
	topics[1] = recreated

	s.stop()
	s = s.restart()
	c = s.root()
	for _, st := range topics {
		st.checkCounts(t, c, otherMessages(topics, st))
		st.checkPolls(t, c)
		st.checkOffsets(t, c)
	}
}

// otherMessages counts the messages of every topic but st.
func otherMessages(topics []*shardTopic, st *shardTopic) uint64 {
	var n uint64
	for _, o := range topics {
		if o != st {
			n += o.messages()
		}
	}
	return n
}

// recreateTopic deletes st's topic and creates it again with the same name
// at once (the host's delete of its partition's directory and the new
// partition's create race unless the node orders them), then fills it.
// covers STOR-31
func recreateTopic(t *testing.T, c *client.Client, st *shardTopic, othersSent uint64) *shardTopic {
	t.Helper()
	if err := c.DeleteTopic(st.stream, st.topic); err != nil {
		t.Fatalf("%s: delete topic: %v", st.name, err)
	}
	d, err := c.CreateTopic(st.stream, st.name+"-topic", shardTestPartitions, nil)
	if err != nil {
		t.Fatalf("%s: create the topic again: %v", st.name, err)
	}
	fresh := &shardTopic{stream: st.stream, topic: wire.NumericID(d.Topic.ID), name: st.name}
	fresh.checkCounts(t, c, othersSent)
	for p := range uint32(shardTestPartitions) {
		if got := pollAll(t, c, fresh.stream, fresh.topic, p); len(got) != 0 {
			t.Fatalf("%s: recreated partition %d holds %d old messages", st.name, p, len(got))
		}
	}
	fresh.fill(t, c, 0xC0, othersSent)
	fresh.checkPolls(t, c)
	fresh.storeOffsets(t, c)
	return fresh
}

// Several clients send to partitions of both shards at once: replies leave
// from both shards' loops, and every client reads its own writes.
// covers MSG-13
func TestShardsConcurrentClients(t *testing.T) {
	t.Parallel()
	const clients, sends = 4, 50
	s := shardServer(t)
	st := newShardTopic(t, s.root(), "shard-busy")
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		c := s.root()
		p := uint32(i % shardTestPartitions)
		wg.Go(func() { errs <- sendAndCount(c, st, p, sends) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	c := s.root()
	for p := range uint32(shardTestPartitions) {
		got := pollAll(t, c, st.stream, st.topic, p)
		if want := clients / shardTestPartitions * sends; len(got) != want {
			t.Fatalf("partition %d holds %d messages, want %d", p, len(got), want)
		}
		checkContiguous(t, p, got)
	}
}

// sendAndCount sends one message at a time to partition p and checks that
// the partition counts it at once.
func sendAndCount(c *client.Client, st *shardTopic, p uint32, sends int) error {
	for range sends {
		base, err := c.SendMessages(st.stream, st.topic, wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: p},
			[]client.Message{{Payload: []byte("busy")}})
		if err != nil {
			return fmt.Errorf("send to partition %d: %w", p, err)
		}
		d, _, err := c.GetTopic(st.stream, st.topic)
		if err != nil {
			return fmt.Errorf("GetTopic: %w", err)
		}
		if cur := d.Partitions[p].CurrentOffset; cur < base {
			return fmt.Errorf("partition %d is at offset %d after a send at %d", p, cur, base)
		}
	}
	return nil
}

// Sealed segments of partitions on both shards are deleted by the
// delete-segments command, and polls start after them at once.
// covers RES-44
func TestShardsDeleteSegments(t *testing.T) {
	t.Parallel()
	s := shardServer(t)
	c := s.root()
	if _, err := c.CreateStream("shard-segments"); err != nil {
		t.Fatalf("create stream: %v", err)
	}
	stream := wire.NamedID("shard-segments")
	opts := wire.Options{uint64Entry(wire.OptSegmentSize, 1<<20)}
	if _, err := c.CreateTopic(stream, "events", shardTestPartitions, opts); err != nil {
		t.Fatalf("create topic: %v", err)
	}
	topic := wire.NamedID("events")
	payload := make([]byte, 10_000)
	for p := range uint32(shardTestPartitions) {
		for range 30 { // 30 × 10 × 10 kB ≈ 3 MB: two sealed 1 MiB segments
			msgs := make([]client.Message, 10)
			for i := range msgs {
				msgs[i] = client.Message{Payload: payload}
			}
			if _, err := c.SendMessages(stream, topic, wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: p}, msgs); err != nil {
				t.Fatalf("send to partition %d: %v", p, err)
			}
		}
	}
	before, _, err := c.GetTopic(stream, topic)
	if err != nil {
		t.Fatalf("GetTopic: %v", err)
	}
	for p := range uint32(shardTestPartitions) {
		if before.Partitions[p].SegmentsCount < 2 {
			t.Fatalf("partition %d has %d segments, want some sealed", p, before.Partitions[p].SegmentsCount)
		}
		if err := c.DeleteSegments(stream, topic, p, 1); err != nil {
			t.Fatalf("delete a segment of partition %d: %v", p, err)
		}
		_, got, err := c.PollMessages(client.Consumer(1), stream, topic, &p, wire.PollFirst, 0, 1, false)
		if err != nil || len(got) != 1 || got[0].Offset == 0 {
			t.Fatalf("partition %d: first message after the delete: %+v err %v", p, got, err)
		}
	}
	after, _, err := c.GetTopic(stream, topic)
	if err != nil {
		t.Fatalf("GetTopic: %v", err)
	}
	for p := range uint32(shardTestPartitions) {
		if got, want := after.Partitions[p].SegmentsCount, before.Partitions[p].SegmentsCount-1; got != want {
			t.Errorf("partition %d has %d segments after the delete, want %d", p, got, want)
		}
	}
}
