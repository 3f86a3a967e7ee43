package node

import (
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/storage"
)

// The host side of sharding (shards.go): a host shard serves the partition
// requests the front hands it, with the same code the front runs for its own
// partitions, and reports back what the front must know.

// onHostRequest serves a front-to-host hand-off.
func (n *Node) onHostRequest(b shardBody) {
	switch b := b.(type) {
	case shardOpen:
		if b.cipher != nil {
			n.hostCiphers[b.k] = b.cipher
		}
		log := n.openLog(b.k, b.cfg)
		if b.create {
			log.Create(b.revision)
		} else {
			log.Recover(b.revision)
		}
		n.statsChanged(b.k)
	case shardDrop:
		delete(n.hostCiphers, b.k)
		n.closeLog(b.k)
		n.submit(owner{kind: ownerDropped, part: b.k}, storage.Request{Op: storage.OpDeleteTree, File: partitionDir(b.k)})
	case shardPurge:
		n.applyToLog(b.k, func(*partition.Log) { n.purgeLog(b.k, b.revision) })
	case shardTruncate:
		n.applyToLog(b.k, func(log *partition.Log) { log.DeleteThrough(b.watermark) })
	case shardRetention:
		if log, ok := n.partitions[b.k]; ok {
			log.SetRetention(b.expiryMicros, b.maxSizeBytes)
		}
	case shardSend:
		n.appendBatch(n.handedConn(b.conn), b.h, b.k, b.batch, b.count, b.policy, b.producer)
	case shardPoll:
		if b.deferred {
			n.startDeferred(n.handedConn(b.conn), b.h, b.q, b.d)
		} else {
			n.startPoll(n.handedConn(b.conn), b.h, b.q)
		}
	case shardCancel:
		n.cancelParked(b.conn, b.request)
	case shardRetire:
		n.retireLogReceipts(b.ended)
	case shardFetchRead:
		n.readForFetch(b.ref, b.bytesMax)
	case shardFetchCommit:
		n.storeReadOffset(b.k, b.kind, b.consumer, b.offset)
	case shardOffsetGet:
		n.answerOffset(n.handedConn(b.conn), b.h, b.k, b.kind, b.consumer)
	case shardOffsetWrite:
		c := n.handedConn(b.conn)
		if b.delete {
			n.deleteOffsetLocal(c, b.h, b.k, b.kind, b.consumer, b.policy)
		} else {
			n.storeOffsetLocal(c, b.h, b.k, b.kind, b.consumer, b.offset, b.policy)
		}
	}
}

// applyToLog applies a purge or truncation the front committed to k's log
// (gone already, when deleted meanwhile) and confirms it, counters first:
// the front's views wait for it (shard_views.go).
func (n *Node) applyToLog(k partKey, apply func(*partition.Log)) {
	if log, ok := n.partitions[k]; ok {
		apply(log)
		n.statsChanged(k)
	}
	n.reportStats()
	n.toShard(0, shardApplied{})
}

// handedConn stands for a connection of the front while its request is
// served here: replies go to the connection, the end of the request goes to
// the front (done).
func (n *Node) handedConn(id bus.ConnID) *conn {
	return &conn{id: id, handed: true, busy: true}
}

// closeLog forgets a partition's log; completions still in flight are
// dropped by generation.
func (n *Node) closeLog(k partKey) {
	delete(n.partitions, k)
	delete(n.receipts, k)
	n.partKeys = nil
	delete(n.logGens, k)
	delete(n.sentStats, k)
}

// hostReport is what the front last heard of a hosted partition.
type hostReport struct {
	stats     partition.Stats
	sealedGen uint64
}

// statsChanged marks k's counters for the next report to the front.
func (n *Node) statsChanged(k partKey) {
	if !n.isHost() || n.statsDirtySet[k] {
		return
	}
	n.statsDirtySet[k] = true
	n.statsDirty = append(n.statsDirty, k)
}

// reportStats sends the front the counters that changed, before any reply
// that depends on them ends its request there.
func (n *Node) reportStats() {
	for _, k := range n.statsDirty {
		log, ok := n.partitions[k]
		if !ok {
			continue
		}
		now := hostReport{stats: log.Stats(), sealedGen: log.SealedGen()}
		last, sent := n.sentStats[k]
		if sent && last == now {
			continue
		}
		m := shardStats{k: k, stats: now.stats}
		if !sent || last.sealedGen != now.sealedGen {
			m.sealed = log.SealedEnds(sealedMirrorMax) // rare: a seal or a delete
		}
		n.sentStats[k] = now
		n.toShard(0, m)
	}
	clear(n.statsDirtySet)
	n.statsDirty = n.statsDirty[:0]
}

// hostTick runs a host's time-driven work: retention of its logs.
func (n *Node) hostTick() {
	n.tickParked()
	n.retryWrites()
	if n.now.Ticks%retentionEveryTicks != 0 {
		return
	}
	for _, k := range n.sortedPartitionKeys() {
		n.partitions[k].Tick(n.now.NowMicros)
		n.drainEvents(k)
		n.statsChanged(k)
	}
}

// hostDone ends a handed request: the counters it changed, then the end.
func (n *Node) hostDone(c *conn) {
	n.reportStats()
	n.toShard(0, shardDone{conn: c.id})
}

func (n *Node) droppedCompletion(o owner, c storage.Completion) {
	if c.Result != storage.ResultOK && c.Result != storage.ResultNotFound {
		n.logf("deleting partition %s failed: %s", partitionDir(o.part), c.Err)
	}
	n.toShard(0, shardDropped{k: o.part})
}
