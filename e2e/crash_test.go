package e2e

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/internal/testenv"
	"github.com/iggygo/iggy/wire"
)

// Shape of the crash test: crashCycles kill -9 cycles, each letting the
// producer run for a random time up to crashRunMax before the kill.
const (
	crashCycles      = 20
	crashCyclesShort = 5 // with -short
	crashRunMin      = 20 * time.Millisecond
	crashRunMax      = 250 * time.Millisecond
	crashPartitions  = 2
	crashBatch       = 10
	crashPayloadMax  = 200
	crashBatchesMax  = 100_000 // bounds the producer loop of one cycle
)

// ackedBatch is a batch the server confirmed: it must survive every crash.
type ackedBatch struct {
	partition uint32
	base      uint64
	msgs      []client.Message
}

// One producer sends batches in a loop while the server is killed with
// SIGKILL at random points, 20 times. After every restart each partition
// must hold offsets 0..n-1 with no gap and no duplicate, and every
// acknowledged batch must be at its acknowledged offsets with its contents.
// Batches in flight at the kill may or may not be there.
// covers STOR-45, STOR-7, STOR-9, MSG-13, MSG-14
func TestCrashKeepsAcknowledgedMessages(t *testing.T) {
	seed := testenv.Seed(t, func() uint64 { return uint64(time.Now().UnixNano()) })
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	cycles := crashCycles
	if testing.Short() {
		cycles = crashCyclesShort
	}

	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	stream, topic := createStreamTopic(t, s.root(), "crash", "log", crashPartitions)
	var acked []ackedBatch
	var next uint64 // message numbers, unique over the whole test
	c := s.root()
	for cycle := range cycles {
		result := make(chan []ackedBatch, 1)
		go func() { result <- produce(c, stream, topic, &next, cycle) }()
		time.Sleep(crashRunMin + time.Duration(rng.Int64N(int64(crashRunMax-crashRunMin))))
		s.kill()
		acked = append(acked, <-result...)
		s = s.restart()
		// One login per cycle (logins cost an Argon2 check): the client
		// that verifies is the next cycle's producer.
		c = s.root()
		verifyCrash(t, c, stream, topic, acked, cycle)
	}
	t.Logf("%d batches acknowledged over %d crashes", len(acked), cycles)
}

// produce sends batches, alternating partitions, until a send fails (the
// server died), and returns the acknowledged ones. Only this goroutine
// touches *next while it runs.
func produce(c *client.Client, stream, topic wire.Identifier, next *uint64, cycle int) []ackedBatch {
	var acked []ackedBatch
	for b := range crashBatchesMax {
		partition := uint32((cycle + b) % crashPartitions)
		msgs := make([]client.Message, crashBatch)
		for i := range msgs {
			n := *next
			*next++
			msgs[i] = client.Message{
				ID:      messageID(0xC0, n),
				Payload: []byte(fmt.Sprintf("crash-%d-%s", n, make([]byte, n%crashPayloadMax))),
				Headers: map[string]client.HeaderValue{"cycle": {Kind: wire.KindUint32, Value: []byte{byte(cycle), 0, 0, 0}}},
			}
		}
		part := wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: partition}
		base, err := c.SendMessages(stream, topic, part, msgs)
		if err != nil {
			return acked
		}
		acked = append(acked, ackedBatch{partition: partition, base: base, msgs: msgs})
	}
	return acked
}

// verifyCrash reads every partition and checks contiguity and every
// acknowledged batch.
func verifyCrash(t *testing.T, c *client.Client, stream, topic wire.Identifier, acked []ackedBatch, cycle int) {
	t.Helper()
	var held [crashPartitions][]client.ReceivedMessage
	for p := range uint32(crashPartitions) {
		held[p] = pollAll(t, c, stream, topic, p)
		checkContiguous(t, p, held[p])
	}
	var once sync.Once
	for _, b := range acked {
		got := held[b.partition]
		for i, m := range b.msgs {
			off := b.base + uint64(i)
			if off >= uint64(len(got)) {
				t.Fatalf("cycle %d: acknowledged offset %d of partition %d is gone (partition holds %d)",
					cycle, off, b.partition, len(got))
			}
			if err := checkMessage(got[off], sentMessage{offset: off, msg: m}); err != nil {
				once.Do(func() { t.Errorf("cycle %d, partition %d: %v", cycle, b.partition, err) })
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}
