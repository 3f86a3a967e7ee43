package e2e

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

func uint64Entry(key string, v uint64) wire.Option {
	return wire.Option{Key: key, Kind: wire.KindUint64, Value: binary.LittleEndian.AppendUint64(nil, v)}
}

// A topic of 1 MiB segments fills several segments; setting message_expiry
// on the live topic makes retention delete the sealed segments whose
// messages expired, never the active one, and polls start past them.
// covers RES-9, RES-30
func TestExpiryRetentionOnUpdatedTopic(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream := wire.NamedID("retention")
	if _, err := c.CreateStream("retention"); err != nil {
		t.Fatalf("create stream: %v", err)
	}
	opts := wire.Options{uint64Entry(wire.OptSegmentSize, 1<<20)}
	if _, err := c.CreateTopic(stream, "events", 1, opts); err != nil {
		t.Fatalf("create topic: %v", err)
	}
	topic := wire.NamedID("events")
	payload := make([]byte, 10_000)
	for range 40 { // 40 × 10 × 10 kB ≈ 4 MB: several sealed segments
		msgs := make([]client.Message, 10)
		for i := range msgs {
			msgs[i] = client.Message{Payload: payload}
		}
		if _, err := c.SendMessages(stream, topic, wire.Partitioning{Kind: wire.PartitioningPartitionID}, msgs); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	time.Sleep(1500 * time.Millisecond) // every batch is now older than the expiry below
	if err := c.UpdateTopic(stream, topic, "", wire.Options{uint64Entry(wire.OptMessageExpiry, uint64(time.Second/time.Microsecond))}); err != nil {
		t.Fatalf("set message_expiry: %v", err)
	}
	partition := uint32(0)
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, got, err := c.PollMessages(client.Consumer(1), stream, topic, &partition, wire.PollFirst, 0, 1, false)
		if err != nil {
			t.Fatalf("poll first: %v", err)
		}
		if len(got) == 1 && got[0].Offset > 0 {
			if got[0].Offset >= 400 {
				t.Fatalf("first offset %d: the active segment must never expire", got[0].Offset)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sealed segment expired: first message %+v", got)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
