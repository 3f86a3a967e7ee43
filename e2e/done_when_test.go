package e2e

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// The Done-when scenario.
const (
	doneWhenMessages   = 10_000
	doneWhenBatch      = 100
	doneWhenPartitions = 3
	doneWhenConsumer   = 7
	doneWhenStored     = 500
	doneWhenOrigin     = 1_700_000_000_000_000 // µs; a fixed producer clock
)

// A stream and a 3-partition topic; 10,000 messages with user headers in
// batches of 100 spread over the partitions; every message read back from
// offset 0 of each partition with its id, payload, headers and origin
// timestamp; a consumer offset stored and read; then the same after a
// SIGTERM restart on the same data directory.
// covers TRAN-1, ROOT-2, MSG-10, MSG-12, MSG-13, MSG-14, CGRP-1, STOR-1, STOR-7, STOR-9
func TestDoneWhenScenario(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "orders", "events", doneWhenPartitions)

	want := sendDoneWhenMessages(t, c, stream, topic)
	verifyDoneWhen(t, c, stream, topic, want, false)

	s.stop()
	s = s.restart()
	verifyDoneWhen(t, s.root(), stream, topic, want, true)
}

// sendDoneWhenMessages sends the messages, batch b to partition b mod 3, and
// returns what each partition must hold, in offset order.
func sendDoneWhenMessages(t *testing.T, c *client.Client, stream, topic wire.Identifier) [doneWhenPartitions][]sentMessage {
	t.Helper()
	var want [doneWhenPartitions][]sentMessage
	for b := 0; b < doneWhenMessages/doneWhenBatch; b++ {
		partition := uint32(b % doneWhenPartitions)
		msgs := make([]client.Message, doneWhenBatch)
		for i := range msgs {
			msgs[i] = doneWhenMessage(uint64(b*doneWhenBatch + i))
		}
		part := wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: partition}
		base, err := c.SendMessages(stream, topic, part, msgs)
		if err != nil {
			t.Fatalf("send batch %d: %v", b, err)
		}
		if base != uint64(len(want[partition])) {
			t.Fatalf("batch %d to partition %d got base offset %d, want %d", b, partition, base, len(want[partition]))
		}
		for i, m := range msgs {
			want[partition] = append(want[partition], sentMessage{offset: base + uint64(i), msg: m})
		}
	}
	return want
}

// doneWhenMessage is message n: a unique id, a payload of varying size and
// user headers of several kinds.
func doneWhenMessage(n uint64) client.Message {
	seq := binary.LittleEndian.AppendUint64(nil, n)
	return client.Message{
		ID:      messageID(0xD0, n),
		Payload: []byte(fmt.Sprintf("message-%05d-%s", n, make([]byte, n%64))),
		Headers: map[string]client.HeaderValue{
			"seq":    {Kind: wire.KindUint64, Value: seq},
			"source": {Kind: wire.KindString, Value: []byte("e2e-done-when")},
			"even":   {Kind: wire.KindBool, Value: []byte{byte(1 - n%2)}},
		},
		OriginTimestamp: doneWhenOrigin + n,
	}
}

// verifyDoneWhen reads every partition back from offset 0 and checks the
// consumer offset (stored now, or read back after the restart).
func verifyDoneWhen(t *testing.T, c *client.Client, stream, topic wire.Identifier, want [doneWhenPartitions][]sentMessage, restarted bool) {
	t.Helper()
	for p := range uint32(doneWhenPartitions) {
		got := pollAll(t, c, stream, topic, p)
		if len(got) != len(want[p]) {
			t.Fatalf("partition %d holds %d messages, want %d (restarted %v)", p, len(got), len(want[p]), restarted)
		}
		checkContiguous(t, p, got)
		for i := range got {
			if err := checkMessage(got[i], want[p][i]); err != nil {
				t.Fatalf("partition %d (restarted %v): %v", p, restarted, err)
			}
		}
	}
	const partition = 1
	consumer := client.Consumer(doneWhenConsumer)
	if !restarted {
		if err := c.StoreOffset(consumer, stream, topic, partition, doneWhenStored); err != nil {
			t.Fatalf("store offset: %v", err)
		}
	}
	o, found, err := c.GetOffset(consumer, stream, topic, partition)
	last := uint64(len(want[partition]) - 1)
	if err != nil || !found || o.StoredOffset != doneWhenStored || o.CurrentOffset != last || o.PartitionID != partition {
		t.Fatalf("get offset (restarted %v): %+v found %v err %v; want stored %d current %d",
			restarted, o, found, err, doneWhenStored, last)
	}
	// Next resumes after the stored offset; a consumer with none starts at 0.
	p := uint32(partition)
	_, next, err := c.PollMessages(consumer, stream, topic, &p, wire.PollNext, 0, 5, false)
	if err != nil || len(next) != 5 || next[0].Offset != doneWhenStored+1 {
		t.Fatalf("poll next after stored offset: %d messages, err %v", len(next), err)
	}
	_, first, err := c.PollMessages(client.Consumer(doneWhenConsumer+1), stream, topic, &p, wire.PollNext, 0, 1, false)
	if err != nil || len(first) != 1 || first[0].Offset != 0 {
		t.Fatalf("poll next without a stored offset: %v err %v", first, err)
	}
}
