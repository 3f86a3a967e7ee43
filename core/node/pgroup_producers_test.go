package node_test

import (
	"fmt"
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// producerBatch is the n-message batch of producer 77 from sequence seq
// (message ids carry the sequence).
func producerBatch(t *testing.T, seq uint64, n int) []byte {
	msgs := make([]batch.Message, n)
	for i := range msgs {
		msgs[i] = batch.Message{ID: [16]byte{0x1D, byte(seq + uint64(i)), byte((seq + uint64(i)) >> 8)}, Payload: fmt.Appendf(nil, "p%d", seq+uint64(i))}
	}
	rec, code := batch.Build(msgs)
	if code != wire.OK {
		t.Fatalf("batch: %s", code.Name())
	}
	return rec
}

func produceRequest(t *testing.T, epoch uint32, seq uint64, n int) []byte {
	q := wire.SendProducerMessagesRequest{ProducerID: 77, Epoch: epoch, FirstSequence: seq, Send: wire.SendMessagesRequest{
		StreamID: wire.NamedID("s"), TopicID: wire.NamedID("t"),
		Partitioning: wire.Partitioning{Kind: wire.PartitioningPartitionID}, MessagesCount: uint32(n), Batch: producerBatch(t, seq, n),
	}}
	return encode(q.Encode)
}

// produce sends producer 77's batch of n messages from sequence seq to
// partition 0 of s/t and returns the code and the base offset.
func (cl *cclient) produce(epoch uint32, seq uint64, n int) (wire.Code, uint64) {
	code, payload := cl.do(wire.CmdSendProducerMessages, produceRequest(cl.c.t, epoch, seq, n))
	if code != wire.OK {
		return code, 0
	}
	confs, _ := wire.DecodeSendConfirmations(payload)
	return code, confs[0].BaseOffset
}

// produceSettled is produce until the answer is not a retryable 57/58
// (the op's outcome was unknown, or the group was not ready).
func (cl *cclient) produceSettled(epoch uint32, seq uint64, n int) (wire.Code, uint64) {
	var code wire.Code
	var base uint64
	cl.c.until("a settled producer send", func() bool {
		code, base = cl.produce(epoch, seq, n)
		return code != wire.TransientNotCommitted && code != wire.TransientNotAccepted
	})
	return code, base
}

// onPrimary moves cl to the partition's primary, logged in.
func (cl *cclient) onPrimary() {
	cl.connect(cl.c.partitionPrimary())
	cl.c.until("a session on the partition's primary", func() bool { return cl.login() == wire.OK })
}

// wantMessages polls partition 0 until it holds exactly n messages.
func (cl *cclient) wantMessages(n uint32) {
	cl.c.t.Helper()
	code, got, _ := cl.poll("s", "t", 10_000)
	if code != wire.OK || got != n {
		cl.c.t.Fatalf("poll: %s, %d messages, want %d", code.Name(), got, n)
	}
}

// covers IDEM-9, IDEM-5
// Every replica records producer batches when they commit: after the
// primary dies, the new primary answers a resend of any of the last five
// batches with its first write's offset and writes nothing, a gap gets
// 4112, and the next batch follows; after a second failover too.
func TestClusterProducerFailover(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	for i := range uint64(6) {
		if code, base := cl.produce(0, i*2, 2); code != wire.OK || base != i*2 {
			t.Fatalf("batch %d: %s at %d", i, code.Name(), base)
		}
	}
	c.until("every replica applied the batches", func() bool { return c.partitionConverged(6) })
	for round := range 2 {
		c.stop(c.partitionPrimary(), true)
		cl.onPrimary()
		for i := uint64(2); i < 6; i++ {
			if code, base := cl.produceSettled(0, i*2, 2); code != wire.OK || base != i*2 {
				t.Fatalf("round %d: resend of batch %d on the new primary: %s at %d", round, i, code.Name(), base)
			}
		}
		if code, _ := cl.produce(0, 14+uint64(round)*2, 2); code != wire.ProducerSequenceOutOfOrder {
			t.Fatalf("round %d: a gap: %s", round, code.Name())
		}
		if code, base := cl.produce(0, 12+uint64(round)*2, 2); code != wire.OK || base != 12+uint64(round)*2 {
			t.Fatalf("round %d: next batch: %s at %d", round, code.Name(), base)
		}
		for i := range c.hosts {
			if c.hosts[i].n == nil {
				c.start(i)
			}
		}
	}
	if c.marks["node.producer.dedup"] == 0 {
		t.Fatalf("no resend answered from the table: %v", c.marks)
	}
	cl.wantMessages(16)
}

// covers IDEM-8, IDEM-9
// A producer batch that reached the backups' journals but not its commit
// when the primary died is in the new primary's uncommitted view: a resend
// there gets 57 until it commits and then its offset, never a second
// write.
func TestClusterProducerUncommittedAcrossViewChange(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	mustOK(t, sent(cl.produce(0, 0, 3)))
	c.until("every replica applied the first batch", func() bool { return c.partitionConverged(1) })
	c.drop = func(m node.PeerMessage) bool { return m.Group.IsPartition && m.Msg.Command == vsr.CmdPrepareOk }
	cl.submit(wire.CmdSendProducerMessages, produceRequest(t, 0, 3, 3))
	c.until("the batch in every backup's log", func() bool {
		for i := range c.hosts {
			if g, ok := c.partitionGroup(i); !ok || g.Op < 2 {
				return false
			}
		}
		return true
	})
	resend := c.client(5)
	resend.connect(cl.host)
	c.until("a session on the primary", func() bool { return resend.login() == wire.OK })
	if code, _ := resend.produce(0, 3, 3); code != wire.TransientNotCommitted || c.marks["node.producer.uncommitted_duplicate"] == 0 {
		t.Fatalf("resend of the uncommitted batch on its primary: %s, want 57 from the table: %v", code.Name(), c.marks)
	}
	c.stop(cl.host, true)
	c.drop = nil
	resend.onPrimary()
	if code, base := resend.produceSettled(0, 3, 3); code != wire.OK || base != 3 {
		t.Fatalf("resend on the new primary: %s at %d, want offset 3", code.Name(), base)
	}
	resend.wantMessages(6)
}

// covers IDEM-11
// A replica cut off while the group checkpoints past what its peers keep
// installs a checkpoint by state transfer: its producer table comes with
// the image, so once it leads, resends of the last five batches (some
// committed before the checkpoint it installed) get their offsets.
func TestClusterProducerStateTransfer(t *testing.T) {
	c := newTestCluster(t, 3, 4)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	mustOK(t, sent(cl.produce(0, 0, 1)))
	c.until("the first batch everywhere", func() bool { return c.partitionConverged(1) })
	cut := c.backupOf(c.partitionPrimary(), 1)
	c.isolate(cut, true)
	for i := uint64(1); i <= 30; i++ {
		mustOK(t, sent(cl.produce(0, i, 1)))
	}
	c.isolate(cut, false)
	c.until("the cut-off replica catches up", func() bool { return c.partitionConverged(31) })
	if c.marks["vsr.state_transfer.installed"] == 0 {
		t.Fatalf("no state transfer: %v", c.marks)
	}
	for tries := 0; c.partitionPrimary() != cut; tries++ {
		if tries == 6 {
			t.Fatal("the installed replica never leads")
		}
		p := c.partitionPrimary()
		c.stop(p, false)
		c.until("a view without the old primary", func() bool { q := c.partitionPrimary(); return q != p })
		c.start(p)
	}
	cl.onPrimary()
	for i := uint64(26); i <= 30; i++ {
		if code, base := cl.produceSettled(0, i, 1); code != wire.OK || base != i {
			t.Fatalf("resend of batch %d on the installed replica: %s at %d", i, code.Name(), base)
		}
	}
	mustOK(t, sent(cl.produceSettled(0, 31, 1)))
	cl.wantMessages(32)
}

// covers IDEM-14, IDEM-10
// With a persisted topic every replica of the set crashes at once, one
// batch in flight: after the restart the producer sends that batch again
// until it is answered, then resends the last five: each batch is in the
// log exactly once.
func TestClusterProducerQuorumCrash(t *testing.T) {
	c := newTestCluster(t, 3, 4)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient(wire.Option{Key: wire.OptDurability, Kind: wire.KindString, Value: []byte("persisted")})
	for i := range uint64(10) {
		mustOK(t, sent(cl.produce(0, i*2, 2)))
	}
	cl.submit(wire.CmdSendProducerMessages, produceRequest(t, 0, 20, 2))
	for range 3 {
		c.round()
	}
	for i := range c.hosts {
		c.stop(i, true)
	}
	for i := range c.hosts {
		c.start(i)
	}
	cl.onPrimary()
	code, base := cl.produceSettled(0, 20, 2)
	if code != wire.OK || base != 20 {
		t.Fatalf("the batch in flight at the crash: %s at %d", code.Name(), base)
	}
	for i := uint64(6); i <= 10; i++ {
		if code, base := cl.produceSettled(0, i*2, 2); code != wire.OK || base != i*2 {
			t.Fatalf("resend of batch %d after the crash: %s at %d", i, code.Name(), base)
		}
	}
	cl.wantMessages(22)
}
