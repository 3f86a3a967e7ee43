package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// pollOptionsScenario polls with PollOptions on tc's transport: the reply
// carries the continuation, the checkpoint and the incarnation, the
// checkpoint stores, and both are refused once the partition was deleted
// and created again (MSG-3..6).
func pollOptionsScenario(t *testing.T, s *server, tc transportCase) {
	c, root := dialTransport(t, tc), s.root()
	if _, err := c.LoginUser(rootUsername, rootPassword); err != nil {
		t.Fatalf("login: %v", err)
	}
	stream, topic := createStreamTopic(t, root, "options-"+tc.name, "events", 1)
	sendTo(t, root, stream, topic, 0, 5)
	q := wire.PollMessagesRequest{Consumer: client.Consumer(3), StreamID: stream, TopicID: topic,
		Partition: wire.OptionalPartition{Given: true}, Strategy: wire.PollingStrategy{Kind: wire.PollOffset}, Count: 3}
	p, err := c.Poll(nil, q, client.PollOptions{})
	if err != nil || len(p.Messages) != 3 {
		t.Fatalf("poll with options: %d messages, %v", len(p.Messages), err)
	}
	next, inc := p.Continuation()
	offset, ckInc, ok := p.Checkpoint()
	if next != 3 || !ok || offset != 2 || inc == 0 || ckInc != inc {
		t.Fatalf("positions: continuation %d@%d, checkpoint %d@%d %v", next, inc, offset, ckInc, ok)
	}
	q.Strategy.Value = next
	if p, err := c.Poll(nil, q, client.PollOptions{Incarnation: inc}); err != nil || len(p.Messages) != 2 || p.Messages[0].Offset != 3 {
		t.Fatalf("poll from the continuation: %+v, %v", p, err)
	}
	if err := c.StoreCheckpoint(q.Consumer, stream, topic, 0, offset, inc); err != nil {
		t.Fatalf("store the checkpoint: %v", err)
	}
	if err := root.DeleteTopic(stream, topic); err != nil {
		t.Fatalf("delete topic: %v", err)
	}
	if _, err := root.CreateTopic(stream, "events", 1, nil); err != nil {
		t.Fatalf("create topic again: %v", err)
	}
	sendTo(t, root, stream, wire.NamedID("events"), 0, 5)
	q.TopicID = wire.NamedID("events")
	if _, err := c.Poll(nil, q, client.PollOptions{Incarnation: inc}); !client.IsCode(err, wire.PartitionIncarnationMismatch) {
		t.Fatalf("a continuation of the deleted partition: %v", err)
	}
	if err := c.StoreCheckpoint(q.Consumer, stream, q.TopicID, 0, offset, inc); !client.IsCode(err, wire.PartitionIncarnationMismatch) {
		t.Fatalf("a checkpoint of the deleted partition: %v", err)
	}
}

// groupedFetchScenario reads three partitions and a missing one in one
// grouped fetch (109) on tc's transport (DEFP-16, DEFP-18, DEFP-20).
func groupedFetchScenario(t *testing.T, s *server, tc transportCase) {
	c, root := dialTransport(t, tc), s.root()
	if _, err := c.LoginUser(rootUsername, rootPassword); err != nil {
		t.Fatalf("login: %v", err)
	}
	stream, topic := createStreamTopic(t, root, "grouped-"+tc.name, "events", 3)
	sendTo(t, root, stream, topic, 0, 2)
	sendTo(t, root, stream, topic, 2, 3)
	q := wire.GroupedFetchRequest{Consumer: client.Consumer(4), StreamID: stream, TopicID: topic, Count: 100,
		MinCount: 6, WaitMicros: uint64(time.Minute / time.Microsecond)}
	for _, id := range []uint32{0, 1, 2, 7} {
		q.Partitions = append(q.Partitions, wire.FetchPartition{PartitionID: id, Strategy: wire.PollingStrategy{Kind: wire.PollOffset}})
	}
	got := make(chan error, 1)
	var sections []client.FetchedSection
	go func() {
		var err error
		sections, err = c.GroupedFetch(nil, q)
		got <- err
	}()
	time.Sleep(200 * time.Millisecond)
	sendTo(t, root, stream, topic, 1, 1) // the sixth message, on the third partition read
	if err := <-got; err != nil || len(sections) != 4 {
		t.Fatalf("grouped fetch: %d sections, %v", len(sections), err)
	}
	for i, want := range []int{2, 1, 3} {
		if s := sections[i]; s.Status != wire.OK || s.PartitionID != uint32(i) || len(s.Polled.Messages) != want {
			t.Fatalf("section %d: partition %d status %v, %d messages, want %d", i, s.PartitionID, s.Status, len(s.Polled.Messages), want)
		}
	}
	if s := sections[3]; s.PartitionID != 7 || s.Status != wire.PartitionNotFound {
		t.Fatalf("missing partition's section: %+v", s)
	}
}

// sendTo sends n one-byte messages to one partition.
func sendTo(t *testing.T, c *client.Client, stream, topic wire.Identifier, partition uint32, n int) {
	t.Helper()
	msgs := make([]client.Message, n)
	for i := range msgs {
		msgs[i] = client.Message{Payload: []byte("m")}
	}
	if _, err := c.SendMessages(stream, topic, wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: partition}, msgs); err != nil {
		t.Fatalf("send to partition %d: %v", partition, err)
	}
}

// On a server with encryption at rest, a poll with options and a grouped
// fetch return the messages as sent, opened like a plain poll's.
// covers DEFP-16, MSG-3
func TestGroupedFetchOfEncryptedStream(t *testing.T) {
	s, _ := encryptedServer(t, newDataDir(t), nil)
	c := s.root()
	stream, topic := createStreamTopic(t, c, "sealed", "t", 2)
	for p := range uint32(2) {
		msgs := []client.Message{{Payload: []byte(fmt.Sprintf("secret-%d", p))}}
		if _, err := c.SendMessages(stream, topic, wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: p}, msgs); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	q := wire.GroupedFetchRequest{Consumer: client.Consumer(1), StreamID: stream, TopicID: topic, Count: 10, MinCount: 2,
		Partitions: []wire.FetchPartition{{PartitionID: 0, Strategy: wire.PollingStrategy{Kind: wire.PollFirst}},
			{PartitionID: 1, Strategy: wire.PollingStrategy{Kind: wire.PollFirst}}}}
	sections, err := c.GroupedFetch(nil, q)
	if err != nil || len(sections) != 2 {
		t.Fatalf("grouped fetch: %d sections, %v", len(sections), err)
	}
	for p, s := range sections {
		if len(s.Polled.Messages) != 1 || string(s.Polled.Messages[0].Payload) != fmt.Sprintf("secret-%d", p) {
			t.Fatalf("section %d: %+v", p, s.Polled.Messages)
		}
	}
	pq := wire.PollMessagesRequest{Consumer: client.Consumer(1), StreamID: stream, TopicID: topic,
		Partition: wire.OptionalPartition{Given: true, ID: 1}, Strategy: wire.PollingStrategy{Kind: wire.PollFirst}, Count: 10}
	if p, err := c.Poll(nil, pq, client.PollOptions{}); err != nil || len(p.Messages) != 1 || string(p.Messages[0].Payload) != "secret-1" {
		t.Fatalf("poll with options: %+v, %v", p.Messages, err)
	}
}
