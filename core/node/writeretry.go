package node

import (
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/wire"
)

// A standalone partition whose write, create or sync failed (ENOSPC,
// EACCES, EMFILE, EIO) stops taking appends: the state of its files' tails
// is unknown. It is reopened after a backoff: recovery reads the files
// again, cuts what a failed write left past the last acknowledged record
// (acknowledged writes completed, so they are there), and the log takes
// appends again. Sends meanwhile get the failure's code (4006). If the
// condition has not cleared, the next write fails again and the backoff
// doubles, up to writeRetryTicksMax; the retries go on for as long as the
// partition exists, since the disk may come back at any time. The reopen
// also cuts the records of the appends answered with the failure (Reopen):
// a send that got 4006 did not happen, whatever reached the disk. A replica
// set does not retry: a committed write that cannot apply stops the node
// (partitionEvent), as its peers hold the op.
const (
	// writeRetryTicksMin is the first backoff (100 ms at 10 ms ticks).
	writeRetryTicksMin = 10
	// writeRetryTicksMax bounds the backoff (30 s at 10 ms ticks).
	writeRetryTicksMax = 3000
)

// markReopened: a partition broken by a failed write was reopened.
const markReopened = "node.partition.reopened"

// writeRetry is a broken partition's way back.
type writeRetry struct {
	// from is what the broken log held: the reopen cuts what follows its
	// commits (every later append was answered as failed) and must find
	// the rest.
	from      partition.ReopenPoint
	attempt   int    // reopens so far, since the last write that succeeded
	dueTick   uint64 // when the next reopen starts; 0 while one runs
	reopening bool   // a reopen's recovery is running
}

// writeFailed handles a log's WriteFailed: count, log, and schedule a reopen.
func (n *Node) writeFailed(k partKey, ev partition.WriteFailed) {
	n.ready.WriteFailures++
	r := n.writeRetries[k]
	if r == nil {
		r = &writeRetry{}
		n.writeRetries[k] = r
	}
	r.from = n.partitions[k].ReopenPoint()
	r.dueTick = n.now.Ticks + retryBackoffTicks(r.attempt)
	n.logf("partition %s: a write failed (%s): sends get %s; retrying in %d ticks (attempt %d)",
		partitionDir(k), ev.Err, ev.Code.Name(), r.dueTick-n.now.Ticks, r.attempt+1)
}

// retryBackoffTicks doubles from writeRetryTicksMin up to writeRetryTicksMax.
func retryBackoffTicks(attempt int) uint64 {
	b := uint64(writeRetryTicksMin)
	for range min(attempt, 16) {
		b = min(2*b, writeRetryTicksMax)
	}
	return b
}

// retryWrites reopens the broken partitions whose backoff has passed, in
// key order.
func (n *Node) retryWrites() {
	if len(n.writeRetries) == 0 {
		return
	}
	for _, k := range sortedPartKeys(n.writeRetries) {
		r := n.writeRetries[k]
		log, open := n.partitions[k]
		if !open {
			delete(n.writeRetries, k) // deleted meanwhile
			continue
		}
		if r.reopening || r.dueTick == 0 || n.now.Ticks < r.dueTick {
			continue
		}
		if !log.Broken() {
			delete(n.writeRetries, k) // purged meanwhile: it starts anew
			continue
		}
		r.attempt++
		r.dueTick, r.reopening = 0, true
		// The log's own configuration and incarnation: a host shard has
		// no metadata to read them from.
		cfg, rev := log.Config(), log.Revision()
		n.abandonWrites(k)
		n.closeLog(k)
		n.openLog(k, cfg).Reopen(rev, r.from)
		n.statsChanged(k)
	}
}

// retryRecovered settles a reopen: a recovery that failed waits for the
// next attempt; true when the Recovered event was a reopen's.
func (n *Node) retryRecovered(k partKey, ev partition.Recovered) bool {
	r := n.writeRetries[k]
	if r == nil || !r.reopening {
		return false
	}
	r.reopening = false
	if ev.Code != wire.OK {
		r.dueTick = n.now.Ticks + retryBackoffTicks(r.attempt)
		n.logf("partition %s: reopen %d after a failed write could not read it (%s); retrying in %d ticks",
			partitionDir(k), r.attempt, ev.Code.Name(), r.dueTick-n.now.Ticks)
		return true
	}
	n.cfg.Marks.Hit(markReopened)
	n.logf("partition %s: reopened after a failed write (attempt %d); it takes sends again at offset %d",
		partitionDir(k), r.attempt, n.partitions[k].NextOffset())
	return true
}

// purgeLog empties k's log as incarnation revision. A log that does not
// serve (reopening after a failed write, or failed to) is replaced by a
// new one created empty, which deletes the directory first, as a purge
// deletes the files.
func (n *Node) purgeLog(k partKey, revision uint64) {
	log := n.partitions[k]
	if log.Ready() {
		log.Purge(revision)
		return
	}
	delete(n.writeRetries, k)
	cfg := log.Config()
	n.abandonWrites(k)
	n.closeLog(k)
	n.openLog(k, cfg).Create(revision)
}

// writeSucceeded ends the retries of k once a write commits after a reopen.
func (n *Node) writeSucceeded(k partKey) {
	if r := n.writeRetries[k]; r != nil && !r.reopening && r.dueTick == 0 {
		delete(n.writeRetries, k)
		n.logf("partition %s: writes succeed again", partitionDir(k))
	}
}
