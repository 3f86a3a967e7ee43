package partition

import (
	"math"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire/batch"
)

// Bounds. Each queue of the log is bounded; the node checks CanAppend and
// CanPoll before handing work in, and the log asserts it did.
const (
	// appendsQueuedMax bounds appends accepted but not yet committed.
	appendsQueuedMax = 8192
	// appendBytesQueuedMax bounds the bytes of those appends.
	appendBytesQueuedMax = 1 << 30
	// pollsPendingMax bounds polls waiting for a disk read.
	pollsPendingMax = 1024
	// offsetsMax bounds the consumer and group offsets of one partition.
	offsetsMax = 1 << 20
	// offsetWritesPendingMax bounds offset writes and deletes in flight.
	offsetWritesPendingMax = 4096
	// segmentsMax bounds the segments of one partition (a 1 MiB segment
	// size gives 4 TiB per partition).
	segmentsMax = 1 << 22
	// recoveryReadBytes is the chunk size of the tail scan at boot.
	recoveryReadBytes = 8 << 20
	// recoveryIndexIntervalBytes: the tail scan adds an index entry after
	// this many unindexed bytes, so a lost index does not leave polls
	// walking a whole segment.
	recoveryIndexIntervalBytes = 4 << 20
	// reopenRereadsMax bounds the reads again of a record a reopen found
	// bad short of what the broken log committed: a transient read fault
	// passes on one of them, damage at rest fails all (a bad read at the
	// simulator's highest rate, 18%, fails 8 in a row once in 800,000).
	reopenRereadsMax = 8
	// recordBytesMin is the smallest possible record: one empty message.
	recordBytesMin = batch.HeaderBytes + batch.FrameHeaderBytes
	// readBytesMin is the smallest allowed read-size bound.
	readBytesMin = 64 << 10
	// damageReportsMax bounds the places a log remembers having reported
	// as damaged (Damaged events of polls): one line per place, not per read.
	damageReportsMax = 256
	// eventsMax catches a node that stopped draining TakeEvents.
	eventsMax = 1 << 20
)

// Config describes one partition. Sizes are in bytes, durations in µs.
type Config struct {
	StreamID    uint32
	TopicID     uint32
	PartitionID uint32
	// Dir is the partition directory relative to the data root, e.g.
	// "streams/0/topics/1/partitions/2".
	Dir string
	// SegmentSizeBytes is the soft segment cap: a segment is sealed once an
	// append makes it at least this large (§10.4).
	SegmentSizeBytes uint64
	// MessageExpiryMicros: a sealed segment expires when its newest batch is
	// this old; 0 or MaxUint64 means never.
	MessageExpiryMicros uint64
	// MaxSizeBytes caps the partition; the oldest sealed segments go first.
	// 0 or MaxUint64 means unlimited.
	MaxSizeBytes uint64
	// CacheBytesMax bounds the tail cache of committed records.
	CacheBytesMax uint64
	// ReadBytesMax bounds one disk read of a poll, and so one poll's reply.
	ReadBytesMax uint64
	// SkipReadChecksums turns off re-hashing records read from disk
	// (system.partition.validate_checksum = false); layouts are still checked.
	SkipReadChecksums bool
	// KeepOffsetsAhead keeps stored offsets beyond a recovered head as they
	// are instead of clamping them: in a replica set they are replicated
	// state, and the messages come back from peers.
	KeepOffsetsAhead bool
	// RefetchDamage cuts the log at the first record recovery finds bad,
	// dropping the segments after it, because a peer sends the rest again
	// (a replica set). Off (standalone), a damaged sealed segment is kept
	// as found, the segments after it too, and the offsets between them
	// are refused (SegmentNotFound): no acknowledged message is dropped
	// and no offset is assigned twice.
	RefetchDamage bool
}

func (c *Config) assertValid() {
	assert.That(c.Dir != "", "partition: empty directory")
	assert.That(c.SegmentSizeBytes > 0, "partition: zero segment size")
	if c.ReadBytesMax < readBytesMin {
		assert.Failf("partition: read bound %d below %d", c.ReadBytesMax, readBytesMin)
	}
}

func (c *Config) expires() bool {
	return c.MessageExpiryMicros != 0 && c.MessageExpiryMicros != math.MaxUint64
}

func (c *Config) capped() bool { return c.MaxSizeBytes != 0 && c.MaxSizeBytes != math.MaxUint64 }

// indexEntriesMax bounds the sparse index of one segment: at most one entry
// per record, and a segment holds at most SegmentSizeBytes plus one record.
func (c *Config) indexEntriesMax() uint64 {
	return (c.SegmentSizeBytes+batch.RecordBytesMax)/recordBytesMin + 1
}
