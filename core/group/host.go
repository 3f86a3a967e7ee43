// Package group is the host of one replicated group: the metadata group and
// every partition group of a replica set are instances of it. A Host owns
// the group's vsr.Replica and journal, its superblock writes, its
// checkpoints (image, then the superblock naming it, then the release of
// the journal before it) and the checkpoint it serves to peers' state
// transfers. What the group replicates stays with its state machine: the
// host asks it only whether its own writes through an op are durable and
// tells it when a checkpoint or an installed state transfer is.
//
// Like the rest of core, it is single-threaded and does no I/O itself: its
// disk requests go through the Disk it is given, and the caller routes
// their completions back (Complete).
package group

import (
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// Disk queues a disk request of the host and returns its id; the caller
// hands the completion back to Complete.
type Disk interface {
	Submit(r storage.Request) storage.ReqID
}

// StateMachine is what a group replicates, as far as the host must know.
type StateMachine interface {
	// Durable reports that the state machine's own writes for every op up
	// to op are durable: a checkpoint at op may be named by a superblock
	// only then (a partition log's appends; the metadata has none).
	Durable(op uint64) bool
	// Checkpointed runs once the superblock naming ck is durable and the
	// journal before it released.
	Checkpointed(ck *Checkpoint)
	// Installed runs once the superblock naming an installed state
	// transfer is durable and the replica resumed from it.
	Installed(ck *Checkpoint)
}

// Files names a group's superblock slots and checkpoint images.
type Files struct {
	// Slots are the two superblock slots, written in turn.
	Slots [2]string
	// Image names the image file of the checkpoint at op. Each checkpoint
	// writes a new file, so the image the durable superblock names is never
	// overwritten before a newer superblock is durable.
	Image func(op uint64) string
	// CreateSlots: the first write of each slot creates it (the metadata
	// group creates both slots at boot instead).
	CreateSlots bool
}

// Config makes a Host.
type Config struct {
	// Name names the group in log lines and refusals.
	Name  string
	Files Files
	// JournalDir holds the journal's segments, written through Journal.
	JournalDir string
	Journal    Disk
	// Images and Superblocks carry the image and slot writes; Misc the
	// deletes of released images, whose completions need no handling
	// beyond a log line. Images and Superblocks may be the same Disk.
	Images, Superblocks, Misc Disk
	// ServeImages keeps the durable image in memory to serve peers' state
	// transfers (replica sets); a standalone node drops it once written.
	ServeImages bool
	// Logf receives the host's log lines, Fatalf its refusals: the group
	// cannot go on.
	Logf, Fatalf func(format string, args ...any)
}

// Host is this replica's member of one group. Not safe for concurrent use.
type Host struct {
	cfg     Config
	sm      StateMachine
	boot    *booting // a boot under way
	replica *vsr.Replica
	journal *vsr.Journal

	sb      vsr.Superblock // the newest slot written
	writing *slotWrite     // the slot write in flight
	wantVS  *vsr.ViewState // a view state the replica asked to make durable
	pending *Checkpoint    // a checkpoint under way: its image, then the superblock
	durable uint64         // the op of the durable checkpoint
	serving *Checkpoint    // the durable checkpoint, served to peers
}

// New makes the host of a group that has not opened yet: boot reads its
// superblock and journal, then calls Open.
func New(cfg Config, sm StateMachine) *Host {
	assert.That(cfg.Journal != nil && cfg.Images != nil && cfg.Superblocks != nil && cfg.Misc != nil, "group: a host needs its disks")
	assert.That(cfg.Files.Image != nil && cfg.JournalDir != "" && cfg.Logf != nil && cfg.Fatalf != nil, "group: a host needs its file names and a log")
	return &Host{cfg: cfg, sm: sm}
}

// open starts the group from what boot read: sb is the newest durable
// superblock (its checkpoint is the durable one), j the recovered journal
// and r the replica opened on them.
func (h *Host) open(sb vsr.Superblock, j *vsr.Journal, r *vsr.Replica) {
	assert.That(h.replica == nil && h.writing == nil && h.pending == nil, "group: opened twice")
	assert.That(j != nil && r != nil, "group: opened without a journal or replica")
	h.sb, h.durable = sb, sb.CheckpointOp
	h.journal, h.replica = j, r
	assert.That(h.durable == h.sb.CheckpointOp, "group: opened at another checkpoint than its superblock's")
}

// Replica is the group's replica; nil until Open.
func (h *Host) Replica() *vsr.Replica { return h.replica }

// Journal is the group's journal; nil until Open.
func (h *Host) Journal() *vsr.Journal { return h.journal }

// Superblock is the newest superblock written (durable or on its way).
func (h *Host) Superblock() vsr.Superblock { return h.sb }

// DurableOp is the op of the durable checkpoint.
func (h *Host) DurableOp() uint64 { return h.durable }

// Pending is the checkpoint whose image is being written or waits for the
// superblock, or nil.
func (h *Host) Pending() *Checkpoint { return h.pending }
