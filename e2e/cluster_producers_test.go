package e2e

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// clusterIdemKills is how many times the partition's primary is killed.
const clusterIdemKills = 2

// clusterIdemEnv runs the three-process producer test (about 25 s, past
// what make test can spend on it): IGGY_E2E_CLUSTER_PRODUCERS=1.
const clusterIdemEnv = "IGGY_E2E_CLUSTER_PRODUCERS"

// An idempotent producer writes to a persisted topic of a three-process
// replica set, every batch sent twice; the partition's primary is killed
// with SIGKILL while a batch is in flight, and the producer sends that
// batch again (through the new primary) until it is answered, then once
// more. Every resend gets the first write's offset, and in the end the
// partition holds every message exactly once, in sequence order.
// covers IDEM-9, IDEM-14
func TestClusterIdempotentProducerAcrossKills(t *testing.T) {
	if os.Getenv(clusterIdemEnv) != "1" {
		t.Skipf("set %s=1 to run it", clusterIdemEnv)
	}
	tc := startCluster(t, 3)
	admin := tc.node(0)
	s, err := admin.CreateStream("idem")
	if err != nil {
		t.Fatalf("create stream: %v", err)
	}
	d, err := admin.CreateTopic(wire.NumericID(s.ID), "t", 1, wire.Options{strOption(wire.OptDurability, "persisted")})
	if err != nil {
		t.Fatalf("create topic: %v", err)
	}
	stream, topic := wire.NumericID(s.ID), wire.NumericID(d.Topic.ID)
	p, err := admin.NewProducer(stream, topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	k := tc.client()
	send := func(b idemPending) (uint64, error) {
		var at uint64
		err := k.OnPartition(stream, topic, 0, func(c *client.Client) error {
			var err error
			at, err = p.Send(c, b.first, b.msgs)
			return err
		})
		return at, err
	}
	settled := func(b idemPending) uint64 {
		var at uint64
		tc.eventually(fmt.Sprintf("batch at sequence %d", b.first), func() error {
			var err error
			at, err = send(b)
			return err
		})
		if again, err := send(b); err != nil || again != at {
			t.Fatalf("resend of the batch at sequence %d: offset %d, error %v; the first answer was %d", b.first, again, err, at)
		}
		return at
	}
	for kill := 0; kill <= clusterIdemKills; kill++ {
		for range 4 {
			settled(newIdemBatch(p))
		}
		if kill == clusterIdemKills {
			break
		}
		inFlight := newIdemBatch(p)
		done := make(chan struct{})
		go func() { _, _ = send(inFlight); close(done) }()
		primary := tc.partitionPrimary(stream, topic)
		tc.nodes[primary].kill()
		<-done
		settled(inFlight)
		tc.nodes[primary] = tc.nodes[primary].restart()
	}
	var got []client.ReceivedMessage
	tc.eventually("poll the partition", func() error {
		got = got[:0]
		for {
			_, msgs, err := k.PollMessages(client.Consumer(1), stream, topic, 0, wire.PollOffset, uint64(len(got)), pollChunk, false)
			if err != nil || len(msgs) == 0 {
				return err
			}
			got = append(got, msgs...)
		}
	})
	checkContiguous(t, 0, got)
	if want := p.Next(0); uint64(len(got)) != want {
		t.Fatalf("partition holds %d messages, the producer sent %d", len(got), want)
	}
	for i, m := range got {
		if seq := binary.LittleEndian.Uint64(m.ID[8:]); seq != uint64(i) {
			t.Fatalf("offset %d holds sequence %d (duplicate or reordered)", i, seq)
		}
	}
}
