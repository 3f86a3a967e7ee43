package node

import (
	"encoding/binary"
	"slices"

	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// Offset op bodies: kind u8, consumer u32, then the offset u64 of a store.
const (
	offsetDeleteBodyBytes = 5
	offsetStoreBodyBytes  = 13
)

func encodeOffsetOp(kind partition.OffsetKind, consumer uint32, offset uint64, store bool) []byte {
	b := make([]byte, offsetDeleteBodyBytes, offsetStoreBodyBytes)
	b[0] = byte(kind)
	binary.LittleEndian.PutUint32(b[1:], consumer)
	if store {
		b = binary.LittleEndian.AppendUint64(b, offset)
	}
	return b
}

// applyGroup applies the ops the group committed since the last call, once
// the partition log recovered. A log shorter than the messages the group
// applied (lost at rest and cut at boot, after a checkpoint released the
// journal that held them) stops the applying, and reads with it, until a
// peer's copy of the missing messages is fetched (refetch).
func (n *Node) applyGroup(g *pgroup) {
	if !g.logReady || g.host.Replica() == nil {
		return
	}
	g.held = append(g.held, g.host.Replica().TakeCommitted()...)
	for g.installing == nil {
		if g.nextOffset > n.partitions[g.key].NextOffset() {
			n.refetch(g) // at once: a read must not see the shorter log
			break
		}
		if len(g.held) == 0 {
			break
		}
		p := g.held[0]
		g.held = g.held[1:]
		n.applyGroupOp(g, p)
	}
	n.maybeGroupCheckpoint(g)
	g.host.WriteSuperblock()
}

func (n *Node) applyGroupOp(g *pgroup, p vsr.Prepare) {
	w, waited := g.waiting[p.Op]
	delete(g.waiting, p.Op)
	if waited {
		if _, open := n.conns[w.conn.id]; !open {
			waited = false
		}
	}
	log := n.partitions[g.key]
	switch p.Kind {
	case vsr.KindAppend:
		n.applyAppend(g, log, p, w, waited)
	case vsr.KindSessionAppend:
		n.applySessionAppend(g, log, p, w, waited)
	case vsr.KindRetire:
		n.applyRetire(g, p)
	case vsr.KindProducerAppend:
		n.applyProducerAppend(g, log, p, w, waited)
	case vsr.KindStoreOffset, vsr.KindDeleteOffset:
		n.applyOffsetOp(g, log, p, w, waited)
	case vsr.KindBarrier:
		if waited {
			n.serveRead(g, p.Op, w)
		}
	default:
		n.fatal("partition group %s: op %d of unknown kind %d", g.dir(), p.Op, p.Kind)
		return
	}
	g.applied, g.appliedChecksum = p.Op, p.Checksum
	g.bytesSinceCkpt += uint64(vsr.PrepareHeaderSize + len(p.Body))
	n.appliedLog.push(AppliedOp{Group: g.id(), Op: p.Op, Checksum: p.Checksum})
}

// applyAppend appends a committed batch, unless the log already holds it:
// a restart replays the ops after the checkpoint, and the log may have
// kept the appends of some of them. The record is copied, as the log
// stamps it in place and the prepare's bytes are served to peers.
func (n *Node) applyAppend(g *pgroup, log *partition.Log, p vsr.Prepare, w pgroupWaiter, waited bool) {
	count := uint64(batch.ParseHeader(p.Body).Count)
	base := g.nextOffset
	g.nextOffset += count
	if g.nextOffset <= log.NextOffset() {
		// The log read at boot may hold writes a killed process left in
		// the page cache, never synced: no checkpoint covers this op until
		// a later append's sync (of the same file) made them durable.
		g.unsyncedSkip = true
		if waited {
			n.sendReply(w.conn, w.header, g.key, base)
		}
		return
	}
	if base != log.NextOffset() {
		n.fatal("partition group %s: op %d appends at %d, the log is at %d", g.dir(), p.Op, base, log.NextOffset())
		return
	}
	// Every append syncs: a checkpoint may come at any op and releases the
	// journal that holds it, so the log must be durable through it by then.
	token, _ := log.AppendCommitted(slices.Clone(p.Body), p.Timestamp, true)
	g.unsyncedSkip = false
	g.inflight[token] = p.Op
	if waited {
		n.writes[writeKey{g.key, token}] = pendingWrite{conn: w.conn, header: w.header}
	}
}

// applyOffsetOp stores or deletes a consumer offset. It syncs: a checkpoint
// releases the journal that holds the op, so the offset file must be
// durable by then.
func (n *Node) applyOffsetOp(g *pgroup, log *partition.Log, p vsr.Prepare, w pgroupWaiter, waited bool) {
	if len(p.Body) < offsetDeleteBodyBytes {
		n.fatal("partition group %s: op %d has a short offset body", g.dir(), p.Op)
		return
	}
	kind, consumer := partition.OffsetKind(p.Body[0]), binary.LittleEndian.Uint32(p.Body[1:])
	var token uint64
	switch {
	case p.Kind == vsr.KindStoreOffset && len(p.Body) == offsetStoreBodyBytes:
		token = log.StoreOffset(kind, consumer, binary.LittleEndian.Uint64(p.Body[offsetDeleteBodyBytes:]), true)
	case p.Kind == vsr.KindDeleteOffset:
		var ok bool
		if token, ok = log.DeleteOffset(kind, consumer); !ok {
			if waited {
				n.deny(w.conn, w.header, wire.ConsumerOffsetNotFound)
			}
			return
		}
	default:
		n.fatal("partition group %s: op %d has a malformed offset body", g.dir(), p.Op)
		return
	}
	g.inflight[token] = p.Op
	if waited {
		n.writes[writeKey{g.key, token}] = pendingWrite{conn: w.conn, header: w.header, offset: true}
	}
}

// parkedRead is a read whose barrier applied while log writes of earlier
// ops were still in flight.
type parkedRead struct {
	op uint64
	w  pgroupWaiter
}

// serveRead runs a read once every log write of the ops before its
// barrier completed: the log serves only written records, and an append
// applied just before the barrier may be in flight still (acknowledged
// already by the primary that took it in an earlier view).
func (n *Node) serveRead(g *pgroup, op uint64, w pgroupWaiter) {
	if len(g.parked) == 0 && !g.writesBefore(op) {
		w.read()
		return
	}
	if len(g.parked) >= pgroupWaitersMax {
		assert.Failf("partition group %s: %d reads parked", g.dir(), len(g.parked))
	}
	g.parked = append(g.parked, parkedRead{op: op, w: w})
}

// releaseReads runs the parked reads whose writes completed, in order.
func (n *Node) releaseReads(g *pgroup) {
	for len(g.parked) > 0 && !g.writesBefore(g.parked[0].op) {
		r := g.parked[0]
		g.parked = g.parked[1:]
		r.w.read()
	}
}

// writesBefore reports a log write of an op before op still in flight.
func (g *pgroup) writesBefore(op uint64) bool {
	for _, o := range g.inflight {
		if o < op {
			return true
		}
	}
	return false
}
