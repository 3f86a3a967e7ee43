package sim

import (
	"fmt"
	"slices"

	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
)

// Idempotent producers in the workload (IDEM-3..8) and their
// exactly-once oracle. On lite, swarm and cluster runs whose seed is odd,
// every send is a producer batch: each partition has one producer id, and a client
// that sends to it takes the producer over with the next epoch (fencing
// the client that had it, as a restarted producer fences its zombie), so
// two clients sending to one partition exercise fencing, resends after
// lost replies exercise deduplication, and a resend while the first write
// is in flight gets 57.

// producerRequired are the marks a lite or swarm sweep must hit: a resend
// answered from the table, a fenced epoch, a 57 on an uncommitted
// duplicate, and the oracle having producer batches to check.
var producerRequired = []string{"node.producer.dedup", "node.producer.fenced",
	"node.producer.uncommitted_duplicate", "oracle.exactly_once.checked"}

// producerSeq is one client's hold of a partition's producer.
type producerSeq struct {
	epoch uint32
	next  uint64
}

// producerBatch is what the oracle needs of one producer batch.
type producerBatch struct {
	part  oracles.PartKey
	epoch uint32
	seq   uint64
	topic *topicInfo
}

// producers is the World's producer state.
type producers struct {
	epochs  map[oracles.PartKey]uint32   // the newest epoch handed out per partition
	holds   map[producerHold]producerSeq // per client and partition
	batches map[uint64]producerBatch     // by batch number
	order   []uint64                     // batch numbers in the order sent first
	// acked are the batches a resend was acknowledged for (its first
	// attempt's outcome unknown): present at the end (checkAcknowledged).
	acked []uint64
}

type producerHold struct {
	client int
	part   oracles.PartKey
}

// producerID is the partition's producer id: any fixed nonzero value per
// partition works, ids are the client's to choose on the wire.
func producerID(k oracles.PartKey) uint64 {
	h := uint64(14695981039346656037)
	for _, s := range []string{k.Stream, "/", k.Topic} {
		for i := range len(s) {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
	}
	return h ^ uint64(k.Partition)<<1 | 1
}

// producersOn says whether this run's sends are producer batches: odd
// seeds of the lite, swarm and cluster profiles (the liveness profile
// checks progress, not data).
func (w *World) producersOn() bool {
	return w.knobs.Profile != ProfileLiveness && w.seed%2 == 1
}

// producerSendOp draws a send of client c as its producer batch.
func (w *World) producerSendOp(c *client, t *topicInfo, k oracles.PartKey) *op {
	if w.prod.epochs == nil {
		w.prod = producers{epochs: map[oracles.PartKey]uint32{}, holds: map[producerHold]producerSeq{},
			batches: map[uint64]producerBatch{}}
	}
	hk := producerHold{c.idx, k}
	hold, ok := w.prod.holds[hk]
	if !ok {
		hold = w.takeOver(k)
	}
	b, count, body := w.newBatch(k)
	prefix := wire.Writer{}
	prefix.U64(producerID(k))
	prefix.U32(hold.epoch)
	prefix.U64(hold.next)
	w.prod.batches[b] = producerBatch{part: k, epoch: hold.epoch, seq: hold.next, topic: t}
	w.prod.order = append(w.prod.order, b)
	hold.next += uint64(count)
	w.prod.holds[hk] = hold
	return &op{kind: opSend, code: wire.CmdSendProducerMessages, part: k, topic: t, batch: b, count: count,
		body: append(prefix.Buf, body...)}
}

// takeOver gives a client the partition's producer in a new epoch.
func (w *World) takeOver(k oracles.PartKey) producerSeq {
	w.prod.epochs[k]++
	return producerSeq{epoch: w.prod.epochs[k]}
}

// producerSettled follows a producer batch's answer: a fenced epoch or a
// gap (a batch before it was lost and not sent again) makes the client
// take the producer over afresh. A resend answered OK may have written
// nothing (the first attempt did): the partition oracle models an OK
// append as a write at that point, so the resend's entry stays
// indefinite (its presence is then not checked: see DESIGN.md).
// It reports whether it settled the attempt.
func (w *World) producerSettled(a *attempt, status wire.Code, payload []byte) bool {
	o := a.op
	if o.code != wire.CmdSendProducerMessages {
		return false
	}
	switch status {
	case wire.OK:
		if !a.app.Resend {
			return false
		}
		if confs, code := wire.DecodeSendConfirmations(payload); code == wire.OK && len(confs) == 1 {
			w.marks.Hit("sim.producer.resend_acknowledged")
			w.prod.acked = append(w.prod.acked, o.batch)
		}
		return true
	case wire.ProducerEpochFenced:
		w.marks.Hit("sim.producer.fenced")
	case wire.ProducerSequenceOutOfOrder:
		w.marks.Hit("sim.producer.gap")
	case wire.TransientNotCommitted:
		if w.knobs.Replicas > 1 {
			// In a replica set 57 also answers an op whose primary lost
			// its primacy, which may still commit: indefinite, as any send's.
			return false
		}
		// On a standalone node only the producer check answers a send
		// 57: this attempt wrote nothing (its first attempt holds it).
		w.marks.Hit("sim.producer.uncommitted_duplicate")
		a.app.Return, a.app.Outcome = w.next(), oracles.OutcomeFailed
		return true
	default:
		return false
	}
	w.prod.holds[producerHold{a.app.Client, o.part}] = w.takeOver(o.part)
	return false
}

// checkExactlyOnce: in the read-back, no producer batch appears twice, and
// a producer's batches of one epoch appear in sequence order. Only
// persisted topics are held to it across power losses (the documented
// guarantee); without a power loss, every topic is.
func (w *World) checkExactlyOnce(h *oracles.History) error {
	powerLoss := slices.ContainsFunc(h.Crashes, func(c oracles.Crash) bool { return c.Kind == oracles.CrashPowerLoss })
	type pos struct {
		batch uint64
		at    int
	}
	seen := map[oracles.PartKey]map[uint64]int{}
	for k, msgs := range h.Final {
		m := map[uint64]int{}
		for i, msg := range msgs {
			if _, ok := w.prod.batches[msg.Batch]; !ok || msg.Index != 0 {
				continue
			}
			if _, dup := m[msg.Batch]; dup {
				b := w.prod.batches[msg.Batch]
				if powerLoss && b.topic.policy != oracles.DurabilityPersisted {
					continue
				}
				return fmt.Errorf("producer batch %d (epoch %d, sequence %d) appears twice in %s/%s/%d",
					msg.Batch, b.epoch, b.seq, k.Stream, k.Topic, k.Partition)
			}
			m[msg.Batch] = i
		}
		seen[k] = m
	}
	for _, k := range sortedParts(seen) {
		byEpoch := map[uint32][]pos{}
		for b, at := range seen[k] {
			pb := w.prod.batches[b]
			byEpoch[pb.epoch] = append(byEpoch[pb.epoch], pos{b, at})
		}
		for epoch, ps := range byEpoch {
			slices.SortFunc(ps, func(a, b pos) int { return a.at - b.at })
			for i := 1; i < len(ps); i++ {
				if w.prod.batches[ps[i].batch].seq <= w.prod.batches[ps[i-1].batch].seq {
					return fmt.Errorf("producer batches %d and %d of epoch %d are out of sequence order in %s/%s/%d",
						ps[i-1].batch, ps[i].batch, epoch, k.Stream, k.Topic, k.Partition)
				}
			}
		}
	}
	if len(w.prod.batches) > 0 {
		w.marks.Hit("oracle.exactly_once.checked")
	}
	return w.checkAcknowledged(h, seen)
}

// checkAcknowledged: a batch acknowledged only to a resend is in the
// read-back, on lite runs (no deletes, truncations or damage there), unless
// a crash may have taken it: a power loss takes what a topic that is not
// persisted acknowledged, any crash what a topic of durability none did.
func (w *World) checkAcknowledged(h *oracles.History, seen map[oracles.PartKey]map[uint64]int) error {
	if w.knobs.Profile != ProfileLite {
		return nil
	}
	powerLoss := slices.ContainsFunc(h.Crashes, func(c oracles.Crash) bool { return c.Kind == oracles.CrashPowerLoss })
	for _, b := range w.prod.acked {
		pb := w.prod.batches[b]
		switch {
		case pb.topic.policy == oracles.DurabilityNone && len(h.Crashes) > 0:
			continue
		case powerLoss && pb.topic.policy != oracles.DurabilityPersisted:
			continue
		}
		if _, ok := seen[pb.part][b]; !ok {
			return fmt.Errorf("producer batch %d (epoch %d, sequence %d), acknowledged to a resend, is not in %s/%s/%d",
				b, pb.epoch, pb.seq, pb.part.Stream, pb.part.Topic, pb.part.Partition)
		}
		w.marks.Hit("oracle.exactly_once.resend_present")
	}
	return nil
}

func sortedParts[V any](m map[oracles.PartKey]V) []oracles.PartKey {
	out := make([]oracles.PartKey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b oracles.PartKey) int {
		if a.Stream != b.Stream {
			return cmpStr(a.Stream, b.Stream)
		}
		if a.Topic != b.Topic {
			return cmpStr(a.Topic, b.Topic)
		}
		return int(a.Partition) - int(b.Partition)
	})
	return out
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
