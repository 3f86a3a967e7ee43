package group

import (
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// slotWrite is the superblock write in flight: the view state the replica
// asked for and a checkpoint whose image became durable share one slot
// write, one at a time, so neither overwrites the other's fields.
type slotWrite struct {
	sb   vsr.Superblock
	vs   *vsr.ViewState
	ckpt *Checkpoint
	sync storage.ReqID
}

// WantViewState asks for vs to be made durable: the replica acts in its
// view only once it is (vsr.Ready.Superblock).
func (h *Host) WantViewState(vs *vsr.ViewState) {
	assert.That(vs != nil, "group: a nil view state asked for")
	h.wantVS = vs
	h.WriteSuperblock()
	assert.That(h.writing != nil, "group: a view state waits with no slot write in flight")
}

// WriteSuperblock writes the next superblock when none is in flight and a
// view state or a ready checkpoint waits for one.
func (h *Host) WriteSuperblock() {
	assert.That(h.replica != nil, "group: a superblock written before the group opened")
	ready := h.ready()
	if h.writing != nil || h.wantVS == nil && !ready {
		return
	}
	w := &slotWrite{vs: h.wantVS}
	h.wantVS = nil
	if ready {
		w.ckpt, h.pending = h.pending, nil
	}
	var cp *vsr.Checkpoint
	if w.ckpt != nil {
		cp = &w.ckpt.CP
	}
	w.sb = nextSuperblock(h.sb, w.vs, cp)
	w.sync = h.WriteSlot(w.sb, h.cfg.Superblocks)
	h.sb, h.writing = w.sb, w
	assert.That(h.wantVS == nil && (h.pending == nil || !ready), "group: a slot write left what it carries waiting")
}

// nextSuperblock is sb with the next sequence, carrying the view state vs
// and the checkpoint cp when given (either may be nil): a view write keeps
// the checkpoint fields and a checkpoint write the view fields.
func nextSuperblock(sb vsr.Superblock, vs *vsr.ViewState, cp *vsr.Checkpoint) vsr.Superblock {
	sb.Sequence++
	if vs != nil {
		sb.View, sb.LogView, sb.LogHeadOp, sb.LogHeadChecksum = vs.View, vs.LogView, vs.LogHeadOp, vs.LogHeadChecksum
	}
	if cp != nil {
		sb.CheckpointOp, sb.CheckpointChecksum = cp.Op, cp.Checksum
		sb.SnapshotSize, sb.SnapshotChecksum = cp.Size, cp.ImageChecksum
	}
	return sb
}

// WriteSlot writes sb into its slot (the two slots alternate by sequence)
// through d and returns the id of the sync that makes it durable. Boot
// writes a new group's first superblock with it, under its own Disk.
func (h *Host) WriteSlot(sb vsr.Superblock, d Disk) storage.ReqID {
	assert.That(sb.Sequence > 0, "group: a superblock of sequence 0 written")
	assert.That(sb.Sequence > h.sb.Sequence || h.replica == nil, "group: a superblock written again at a sequence already used")
	path := h.cfg.Files.Slots[(sb.Sequence-1)%2]
	if h.cfg.Files.CreateSlots && sb.Sequence <= 2 {
		d.Submit(storage.Request{Op: storage.OpCreate, File: path}) // the slot's first write
	}
	d.Submit(storage.Request{Op: storage.OpWrite, File: path, Data: [][]byte{sb.Encode()}})
	return d.Submit(storage.Request{Op: storage.OpSync, File: path})
}

// Complete takes a successful completion of an image or slot write (the
// caller handles failures: a group cannot go on without its superblock).
// It reports whether a superblock became durable, after which the state
// machine may apply what waited for it.
func (h *Host) Complete(c storage.Completion) bool {
	assert.That(c.Result == storage.ResultOK, "group: a failed write completed")
	if h.pending != nil && c.ID == h.pending.imageSync {
		h.pending.synced = true
		h.WriteSuperblock()
		return false
	}
	w := h.writing
	if w == nil || c.ID != w.sync {
		return false
	}
	h.writing = nil
	if w.vs != nil {
		h.replica.SuperblockWritten(*w.vs)
	}
	if w.ckpt != nil {
		h.checkpointDurable(w.ckpt)
	}
	h.WriteSuperblock()
	assert.That(h.writing == nil || h.writing.sync != c.ID, "group: a slot write completed twice")
	return true
}
