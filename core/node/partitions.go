package node

import (
	"fmt"
	"strconv"

	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

// Per-partition bounds the node gives every log.
const (
	partitionReadBytesMax  = 8 << 20
	partitionCacheBytesMin = 1 << 20
)

func partitionDir(k partKey) string {
	return "streams/" + strconv.FormatUint(uint64(k.stream), 10) +
		"/topics/" + strconv.FormatUint(uint64(k.topic), 10) +
		"/partitions/" + strconv.FormatUint(uint64(k.partition), 10)
}

// openPartition makes the log object of a partition the metadata knows, or
// its mirror when another shard hosts it (nil then).
func (n *Node) openPartition(k partKey) *partition.Log {
	if n.remote(k) {
		n.remotes[k] = &remotePart{}
		return nil
	}
	return n.openLog(k, n.partitionConfig(k))
}

// partitionConfig is the log configuration of partition k now.
func (n *Node) partitionConfig(k partKey) partition.Config {
	cfg := partition.Config{
		StreamID: k.stream, TopicID: k.topic, PartitionID: k.partition,
		Dir:               partitionDir(k),
		SegmentSizeBytes:  n.cfg.SegmentSizeBytes,
		CacheBytesMax:     max(n.cfg.PartitionCacheBytes, partitionCacheBytesMin),
		ReadBytesMax:      partitionReadBytesMax,
		SkipReadChecksums: n.cfg.SkipReadChecksums,
		// A replica set's offsets are replicated state: never clamped at
		// boot, as the messages come back from peers.
		KeepOffsetsAhead: n.cfg.clustered(),
		// A replica set cuts a damaged log and refetches the rest from a
		// peer (pgroup_damage.go); a single copy keeps what is left.
		RefetchDamage: n.cfg.clustered(),
	}
	if _, t, code := n.meta.Topic(wire.NumericID(k.stream), wire.NumericID(k.topic)); code == wire.OK {
		cfg.SegmentSizeBytes = topicOptions(t).SegmentSizeBytes
		cfg.MessageExpiryMicros, cfg.MaxSizeBytes = n.retention(t)
	}
	return cfg
}

// openLog makes the log object of partition k.
func (n *Node) openLog(k partKey, cfg partition.Config) *partition.Log {
	n.logGen++
	log := partition.New(cfg, diskFor{n, owner{kind: ownerPartition, part: k, gen: n.logGen}})
	n.partitions[k] = log
	n.partKeys = nil
	n.logGens[k] = n.logGen
	return log
}

// partitionRevision is the incarnation the metadata gives partition k now
// (its created.revision), 0 if it knows no such partition.
func (n *Node) partitionRevision(k partKey) uint64 {
	_, t, code := n.meta.Topic(wire.NumericID(k.stream), wire.NumericID(k.topic))
	if code != wire.OK {
		return 0
	}
	for _, p := range t.Partitions {
		if p.ID == k.partition {
			return p.CreatedRevision
		}
	}
	return 0
}

// retention is a topic's expiry and per-partition size cap: 0 in the options
// means the server default, the maximum means never and unlimited
// (protocol-data.md 1.3); the topic cap is shared by its partitions (10.4).
func (n *Node) retention(t *metadata.Topic) (expiryMicros, maxSizeBytes uint64) {
	opts := topicOptions(t)
	expiryMicros = opts.MessageExpiryMicros
	if expiryMicros == 0 {
		expiryMicros = n.cfg.MessageExpiryMicros
	}
	maxSizeBytes = opts.MaxTopicSizeBytes
	if maxSizeBytes != 0 && maxSizeBytes != wire.Unlimited && len(t.Partitions) > 0 {
		maxSizeBytes /= uint64(len(t.Partitions))
	}
	return expiryMicros, maxSizeBytes
}

// retune applies every topic's current retention to its open logs, after an
// op that may have changed options or partition counts.
func (n *Node) retune() {
	for _, k := range n.sortedPartitionKeys() {
		if _, t, code := n.meta.Topic(wire.NumericID(k.stream), wire.NumericID(k.topic)); code == wire.OK {
			n.partitions[k].SetRetention(n.retention(t))
		}
	}
	if n.boot.phase < bootPartitions {
		return // replaying: hosts get the retention with their open
	}
	for _, k := range sortedPartKeys(n.remotes) {
		if _, t, code := n.meta.Topic(wire.NumericID(k.stream), wire.NumericID(k.topic)); code == wire.OK {
			expiry, size := n.retention(t)
			n.handOff(shardRetention{k: k, expiryMicros: expiry, maxSizeBytes: size})
		}
	}
}

// topicOptions reads a topic's effective options from its two blocks.
func topicOptions(t *metadata.Topic) wire.TopicOptions {
	explicit, _ := wire.DecodeOptions(t.ExplicitOptions)
	derived, _ := wire.DecodeOptions(t.DerivedOptions)
	return wire.TopicOptionsFrom(explicit, derived)
}

// applyEffects makes the partition logs follow a committed metadata op. At
// boot the logs are only opened; recovery reads them once replay is done.
func (n *Node) applyEffects(effects []metadata.Effect, replaying bool) {
	var emptied []topicKey // topics that lost partitions, in effect order
	for _, e := range effects {
		switch e := e.(type) {
		case metadata.PartitionCreated:
			k := partKey{e.Stream, e.Topic, e.Partition}
			if !n.holds(k) {
				continue // another member's (PLACE-15)
			}
			log := n.openPartition(k)
			switch {
			case log == nil:
				if !replaying {
					n.openRemote(k, e.Revision, true)
				}
			case n.cfg.clustered():
				// A replica applies ops after boot that it may have applied
				// before a restart: the directory may exist, so it is
				// recovered, which also creates an absent one.
				log.Recover(e.Revision)
				n.openGroup(k, e.Revision)
			case !replaying:
				log.Create(e.Revision)
			}
		case metadata.PartitionDeleted:
			k := partKey{e.Stream, e.Topic, e.Partition}
			if _, ok := n.remotes[k]; ok {
				delete(n.remotes, k)
				if !replaying {
					n.dropRemote(k)
				}
				continue
			}
			delete(n.partitions, k)
			delete(n.receipts, k)
			n.partKeys = nil
			delete(n.logGens, k)
			n.dropGroup(k)
			if !replaying {
				n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpDeleteTree, File: partitionDir(k)})
				emptied = append(emptied, topicKey{k.stream, k.topic})
			}
		case metadata.PartitionPurged:
			k := partKey{e.Stream, e.Topic, e.Partition}
			if _, ok := n.partitions[k]; ok && !replaying {
				n.purgeLog(k, e.Revision)
			}
			if _, ok := n.remotes[k]; ok && !replaying {
				n.handOff(shardPurge{k: k, revision: e.Revision})
				n.awaitApplied()
			}
			if g := n.pgroups[k]; g != nil {
				// The purged history is a group of its own: its files go,
				// and the new incarnation starts empty.
				n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpDeleteTree, File: g.dir()})
				n.dropGroup(k)
				n.openGroup(k, e.Revision)
			}
		case metadata.PrimaryMoveGranted:
			if !replaying {
				n.startDrain(e)
			}
		case metadata.UserDeleted:
			n.endSessionsOf(e.User, "user_deleted")
		case metadata.UserDeactivated:
			n.endSessionsOf(e.User, "user_deactivated")
		case metadata.PartitionTruncated:
			k := partKey{e.Stream, e.Topic, e.Partition}
			if log, ok := n.partitions[k]; ok && !replaying {
				log.DeleteThrough(e.Watermark)
			}
			if _, ok := n.remotes[k]; ok && !replaying {
				n.handOff(shardTruncate{k: k, watermark: e.Watermark})
				n.awaitApplied()
			}
		}
	}
	n.removeDeletedDirs(emptied)
}

// flushPartitions lets every log with queued appends write them, in key order.
func (n *Node) flushPartitions() {
	for _, k := range n.sortedPartitionKeys() {
		n.partitions[k].Flush()
	}
}

func (n *Node) partitionCompletion(o owner, c storage.Completion) {
	k := o.part
	log, ok := n.partitions[k]
	if !ok || n.logGens[k] != o.gen {
		return // deleted or reopened while the request was in flight
	}
	log.Complete(c)
	n.statsChanged(k)
	for _, ev := range log.TakeEvents() {
		n.partitionEvent(k, ev)
	}
}

func (n *Node) partitionEvent(k partKey, ev partition.Event) {
	switch ev := ev.(type) {
	case partition.Committed:
		if len(n.writeRetries) > 0 {
			n.writeSucceeded(k)
		}
		n.groupWritten(k, ev.Token)
		n.written(k, ev.Token, ev.BaseOffset, wire.OK)
		n.wakeParked(k)
		n.wakeFetches(k)
	case partition.Failed:
		if g := n.groupOf(k); g != nil {
			// A committed op that cannot apply leaves this replica's log
			// behind its group's: it must stop, peers hold the op.
			n.fatal("partition %s: a committed write failed: %s", partitionDir(k), ev.Code.Name())
			return
		}
		n.written(k, ev.Token, 0, ev.Code)
	case partition.OffsetStored:
		n.groupWritten(k, ev.Token)
		n.written(k, ev.Token, 0, wire.OK)
	case partition.PollDone:
		n.pollDone(ev)
	case partition.Damaged:
		n.logDamaged(ev)
	case partition.WriteFailed:
		if n.groupOf(k) == nil { // a replica set stops on it instead (Failed)
			n.writeFailed(k, ev)
		}
	case partition.Recovered:
		if n.retryRecovered(k, ev) && ev.Code != wire.OK {
			return // a reopen after a failed write: tried again later
		}
		if ev.Code != wire.OK {
			n.fatal("partition %s failed to recover: %s%s", partitionDir(k), ev.Code.Name(), newerRevision(ev))
			return
		}
		n.logRevision(k, ev)
		if ev.CutBytes > 0 || ev.DroppedSegments > 0 {
			n.logf("partition %s: cut %d bytes of torn tail, dropped %d segments", partitionDir(k), ev.CutBytes, ev.DroppedSegments)
		}
		for _, d := range ev.Damaged {
			n.cfg.Marks.Hit("node.partition.damaged_segment_kept")
			n.logDamaged(d)
		}
		if g := n.pgroups[k]; g != nil {
			g.logReady = true
			if g.installing != nil {
				n.continueGroupInstall(g)
			}
			n.applyGroup(g)
		}
		if n.isHost() {
			n.reportStats()
			n.toShard(0, shardRecovered{})
			return
		}
		n.boot.partitionRecovered()
	}
}

// logDamaged reports stored bytes that do not hold valid records: the
// file and byte range, and the offsets refused for it.
func (n *Node) logDamaged(d partition.Damaged) {
	if d.EndOffset > d.FirstOffset {
		n.logf("damaged segment %s: bytes %d..%d hold no valid records; offsets %d..%d are lost and polls of them get %s; the file is kept as found",
			d.Path, d.FromByte, d.ToByte, d.FirstOffset, d.EndOffset-1, wire.SegmentNotFound.Name())
		return
	}
	n.logf("damaged segment %s: bytes %d..%d do not check out; the messages stored there cannot be read (%s)",
		d.Path, d.FromByte, d.ToByte, wire.CannotReadMessage.Name())
}

// logRevision reports what recovery found of the partition's incarnation
// marker (STOR-27, STOR-29).
func (n *Node) logRevision(k partKey, ev partition.Recovered) {
	switch {
	case ev.StaleRevision > 0:
		n.logf("partition %s: deleted the files of incarnation %d, older than its created.revision; it starts empty", partitionDir(k), ev.StaleRevision)
	case ev.Adopted:
		n.logf("warning: partition %s: adopting a nonempty partition directory without created.revision", partitionDir(k))
	}
}

func newerRevision(ev partition.Recovered) string {
	if ev.NewerRevision == 0 {
		return ""
	}
	return fmt.Sprintf(" (its created.revision names incarnation %d, newer than the metadata's)", ev.NewerRevision)
}
