package group

import (
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// Recover opens a replica of a set from what boot read: the newest valid
// superblock cfg.Superblock and the journal segments segs. The journal is
// cut where torn or damaged (peers repair what it lost) and only its ops
// after the checkpoint are kept: none is applied here, as they may never
// have committed; the replica learns the commit point from its peers.
// written is the newest superblock on disk, when boot wrote one the replica
// must not see (a new group's first). cfg carries the replica's identity
// and bounds; the host fills in the journal, the prepares and its images.
func (h *Host) Recover(cfg vsr.Config, segs []vsr.RecoveredSegment, written vsr.Superblock) vsr.Recovery {
	sb := cfg.Superblock
	if sb.Sequence > written.Sequence {
		assert.Failf("group: %s opens at superblock %d, the newest written is %d", h.cfg.Name, sb.Sequence, written.Sequence)
	}
	rec := vsr.RecoverJournal(h.cfg.Journal, h.cfg.JournalDir, segs, sb.CheckpointOp, sb.CheckpointChecksum, sb.LogView, cfg.Marks)
	if rec.CutBytes > 0 {
		h.cfg.Logf("%s: cut %d bytes of torn or corrupt tail; peers repair it", h.cfg.JournalDir, rec.CutBytes)
	}
	cfg.Journal, cfg.Prepares, cfg.ClaimOp, cfg.Images = rec.Journal, rec.Prepares, rec.ClaimOp, h
	h.open(written, rec.Journal, vsr.Open(cfg))
	return rec
}

// Create opens the replica of a new group on empty storage, once boot made
// its first superblock (written) durable: the replica opens with cfg's
// superblock (zero, or the group's first view).
func (h *Host) Create(cfg vsr.Config, written vsr.Superblock) {
	assert.That(cfg.Superblock.CheckpointOp == 0 && written.CheckpointOp == 0, "group: a new group opened at a checkpoint")
	j := vsr.OpenJournal(h.cfg.Journal, h.cfg.JournalDir, nil, 0, 0)
	cfg.Journal, cfg.Images = j, h
	h.open(written, j, vsr.Open(cfg))
}

// OpenStandalone opens the replica of a group of one whose journal holds
// the committed ops through op, the last of segments (tail bytes long):
// boot replayed them.
func (h *Host) OpenStandalone(sb vsr.Superblock, segments []vsr.Segment, tail, op uint64) {
	if op < sb.CheckpointOp {
		assert.Failf("group: %s replayed to op %d, below its checkpoint %d", h.cfg.Name, op, sb.CheckpointOp)
	}
	j := vsr.OpenJournal(h.cfg.Journal, h.cfg.JournalDir, segments, tail, op)
	h.open(sb, j, vsr.NewReplica(j, 0, op))
}

// Flush carries out what the replica asked for after a batch of steps: its
// journal writes, and the view state it wants durable. The messages for
// peers and a state transfer that arrived whole go back to the caller, to
// send and to install.
func (h *Host) Flush() ([]vsr.Message, *vsr.Install) {
	assert.That(h.replica != nil, "group: flushed before it opened")
	h.replica.Flush()
	rd := h.replica.TakeReady()
	if rd.Superblock != nil {
		h.WantViewState(rd.Superblock)
	}
	assert.That(rd.Superblock == nil || h.writing != nil, "group: a view state asked for and no slot write in flight")
	return rd.Messages, rd.Install
}

// CompleteJournal passes a completion of the journal's requests to the
// replica; false is a failed one: the group cannot go on.
func (h *Host) CompleteJournal(c storage.Completion) bool {
	assert.That(h.replica != nil && h.boot == nil, "group: a journal completion before the group opened")
	return h.replica.Complete(c) || c.Result == storage.ResultOK
}

// Name names the group in log lines and refusals.
func (h *Host) Name() string { return h.cfg.Name }
