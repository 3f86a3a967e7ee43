package node

import (
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// Idempotent producers in a replica set (IDEM-9, IDEM-11, IDEM-14): a
// producer batch is a prepare of its own kind naming the batch (producer
// id, epoch, first sequence, count) before the record, so every replica
// records it in the group's producer table when the op applies, in op
// order, and the table is the same everywhere. The table goes into the
// group's checkpoint image, so a restart (image plus the journal's ops
// after it) and a state transfer rebuild it. Only the primary checks a
// batch: against the table and the producer batches of the ops it holds
// past those applied, its uncommitted view; a new primary's log holds
// every op the old one may have had acknowledged, so the view it rebuilds
// from its log after a view change is complete.

// proposeProducer checks an idempotent producer's batch on the partition
// group's primary before it proposes it (IDEM-4): a resend of an applied
// batch is answered with its first write's offset, one an op not applied
// yet holds gets 57, a gap or a fenced epoch its code.
func (n *Node) proposeProducer(c *conn, h wire.RequestHeader, k partKey, b []byte, pb partition.ProducerBatch) {
	if g := n.groupOf(k); g != nil && g.leads() {
		if g.installing != nil {
			n.deny(c, h, wire.TransientNotAccepted) // the table is not the applied state's yet
			return
		}
		now := max(n.now.NowMicros, n.partitions[k].LastTimestamp())
		if !n.producerVerdict(c, h, k, g.producers.CheckAhead(pb, now, g.producersAhead())) {
			return
		}
	}
	body := partition.AppendProducerBatch(make([]byte, 0, partition.ProducerBatchBytes+len(b)), pb)
	n.proposeToGroup(c, h, k, vsr.Prepare{Kind: vsr.KindProducerAppend, Body: append(body, b...)}, nil)
}

// producersAhead lists the producer batches of the ops this replica holds
// and has not applied, in op order.
func (g *pgroup) producersAhead() []partition.ProducerBatch {
	var out []partition.ProducerBatch
	add := func(p *vsr.Prepare) {
		if p.Kind != vsr.KindProducerAppend {
			return
		}
		if b, _, ok := partition.DecodeProducerBatch(p.Body); ok {
			out = append(out, b)
		}
	}
	for i := range g.held {
		add(&g.held[i])
	}
	g.host.Replica().Undelivered(add)
	return out
}

// applyProducerAppend appends a committed producer batch as applyAppend
// does and records it in the group's producer table at its base offset,
// dated by the prepare (the same on every replica).
func (n *Node) applyProducerAppend(g *pgroup, log *partition.Log, p vsr.Prepare, w pgroupWaiter, waited bool) {
	b, rec, ok := partition.DecodeProducerBatch(p.Body)
	if !ok {
		n.fatal("partition group %s: op %d has a short producer batch", g.dir(), p.Op)
		return
	}
	base := g.nextOffset
	p.Body = rec
	n.applyAppend(g, log, p, w, waited)
	g.producers.Record(b, base, p.Timestamp)
}
