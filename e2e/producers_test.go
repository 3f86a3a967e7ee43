package e2e

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/internal/testenv"
	"github.com/iggygo/iggy/wire"
)

// Shape of the idempotent producer crash test.
const (
	idemCycles      = 6
	idemCyclesShort = 3
	idemRunMin      = 20 * time.Millisecond
	idemRunMax      = 200 * time.Millisecond
	idemBatch       = 7
	idemBatchesMax  = 100_000 // bounds the producer loop of one cycle
)

// idemPending is the batch a producer had not seen acknowledged when the
// server died: it is sent again after the restart, with its sequences.
type idemPending struct {
	first uint64
	msgs  []client.Message
}

// A producer sends every batch twice (the second send must get the first
// one's offset and write nothing) to a persisted topic while the server is killed with SIGKILL
// at random points; after each restart it sends the batch it had in flight
// again, twice. In the end the partition holds every message exactly once,
// in sequence order.
// covers IDEM-1, IDEM-3, IDEM-5, IDEM-10
func TestIdempotentProducerResendsAcrossKill(t *testing.T) {
	seed := testenv.Seed(t, func() uint64 { return uint64(time.Now().UnixNano()) })
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	cycles := idemCycles
	if testing.Short() {
		cycles = idemCyclesShort
	}
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	st, err := c.CreateStream("idem")
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.CreateTopic(wire.NumericID(st.ID), "log", 1, wire.Options{strOption(wire.OptDurability, "persisted")})
	if err != nil {
		t.Fatal(err)
	}
	stream, topic := wire.NumericID(st.ID), wire.NumericID(d.Topic.ID)
	p, err := c.NewProducer(stream, topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	var pending *idemPending
	for cycle := range cycles {
		if pending != nil {
			if _, err := sendTwice(c, p, *pending); err != nil {
				t.Fatalf("cycle %d: resend after restart: %v", cycle, err)
			}
			pending = nil
		}
		result := make(chan *idemPending, 1)
		go func() { result <- produceIdempotent(c, p) }()
		time.Sleep(idemRunMin + time.Duration(rng.Int64N(int64(idemRunMax-idemRunMin))))
		s.kill()
		pending = <-result
		s = s.restart()
		c = s.root()
	}
	if pending != nil {
		if _, err := sendTwice(c, p, *pending); err != nil {
			t.Fatalf("final resend: %v", err)
		}
	}
	got := pollAll(t, c, stream, topic, 0)
	checkContiguous(t, 0, got)
	want := p.Next(0) // sequences issued so far: every one must be held once
	if uint64(len(got)) != want {
		t.Fatalf("partition holds %d messages, the producer sent %d", len(got), want)
	}
	for i, m := range got {
		if seq := binary.LittleEndian.Uint64(m.ID[8:]); seq != uint64(i) {
			t.Fatalf("offset %d holds sequence %d (duplicate or reordered)", i, seq)
		}
	}
	t.Logf("%d messages over %d kills, each batch sent at least twice", len(got), cycles)
}

// produceIdempotent sends batches, each twice, until a send fails (the
// server died), and returns the batch whose outcome it does not know.
func produceIdempotent(c *client.Client, p *client.Producer) *idemPending {
	for range idemBatchesMax {
		b := newIdemBatch(p)
		if _, err := sendTwice(c, p, b); err != nil {
			return &b
		}
	}
	return nil
}

// sendTwice sends b twice; both sends must name the same offset.
func sendTwice(c *client.Client, p *client.Producer, b idemPending) (uint64, error) {
	first, err := p.Send(c, b.first, b.msgs)
	if err != nil {
		return 0, err
	}
	again, err := p.Send(c, b.first, b.msgs)
	if err != nil {
		return 0, err
	}
	if again != first {
		return 0, errors.New("a resend got another offset than the first write")
	}
	return first, nil
}

// A gap, a fenced epoch and an unknown producer that does not start at 0
// get their codes, and nothing is written.
// covers IDEM-6, IDEM-7
func TestIdempotentProducerRefusals(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "idem", "refusals", 1)
	part := wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: 0}
	msgs := []client.Message{{Payload: []byte("a")}}
	id, err := c.NextProducerID(stream, topic)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.SendProducerMessages(stream, topic, part, id, 3, msgs)
	wantCode(t, "unknown producer at sequence 3", err, wire.ProducerSequenceOutOfOrder)
	bumped := wire.ProducerID{ID: id.ID, Epoch: 1}
	if _, err := c.SendProducerMessages(stream, topic, part, bumped, 0, msgs); err != nil {
		t.Fatal(err)
	}
	_, err = c.SendProducerMessages(stream, topic, part, bumped, 2, msgs)
	wantCode(t, "gap", err, wire.ProducerSequenceOutOfOrder)
	_, err = c.SendProducerMessages(stream, topic, part, id, 1, msgs)
	wantCode(t, "epoch 0 after 1", err, wire.ProducerEpochFenced)
	if got := pollAll(t, c, stream, topic, 0); len(got) != 1 {
		t.Fatalf("partition holds %d messages, want 1", len(got))
	}
}

// newIdemBatch reserves the producer's next batch.
func newIdemBatch(p *client.Producer) idemPending {
	first := p.Next(idemBatch)
	b := idemPending{first: first, msgs: make([]client.Message, idemBatch)}
	for i := range b.msgs {
		b.msgs[i] = client.Message{ID: messageID(0x1D, first+uint64(i)), Payload: []byte("idempotent")}
	}
	return b
}
