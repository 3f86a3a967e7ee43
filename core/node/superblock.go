package node

import (
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/storage"
)

// sbWrite is the superblock write in flight: the view state the replica
// asked for and the checkpoint whose image became durable share one slot
// write, one at a time, so neither overwrites the other's fields.
type sbWrite struct {
	sb   vsr.Superblock
	vs   *vsr.ViewState
	ckpt *checkpointing
	sync storage.ReqID
}

// writeSuperblock writes the next superblock when none is in flight and
// something waits for one.
func (n *Node) writeSuperblock() {
	if n.sbWriting != nil || n.wantVS == nil && n.readyCkpt == nil {
		return
	}
	w := &sbWrite{sb: n.superblock, vs: n.wantVS, ckpt: n.readyCkpt}
	n.wantVS, n.readyCkpt = nil, nil
	var cp *vsr.Checkpoint
	if w.ckpt != nil {
		cp = &w.ckpt.cp
	}
	w.sb = nextSuperblock(w.sb, w.vs, cp)
	w.sync = n.writeSlot(w.sb, owner{kind: ownerSuperblock})
	n.superblock = w.sb
	n.sbWriting = w
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

// writeSlot writes sb into its slot (the two slots alternate by sequence)
// and returns the id of the sync that makes it durable.
func (n *Node) writeSlot(sb vsr.Superblock, o owner) storage.ReqID {
	path := superblockPaths[(sb.Sequence-1)%2]
	n.submit(o, storage.Request{Op: storage.OpWrite, File: path, Data: [][]byte{sb.Encode()}})
	return n.submit(o, storage.Request{Op: storage.OpSync, File: path})
}

// superblockCompletion finishes the write in flight once its sync is done,
// then starts the next one if anything waits.
func (n *Node) superblockCompletion(c storage.Completion) {
	if c.Result != storage.ResultOK {
		n.fatal("superblock write (sequence %d): disk request failed: %s", n.sbWriting.sb.Sequence, c.Err)
		return
	}
	if c.ID != n.sbWriting.sync {
		return
	}
	w := n.sbWriting
	n.sbWriting = nil
	if w.vs != nil {
		n.replica.SuperblockWritten(*w.vs)
	}
	if w.ckpt != nil {
		n.checkpointDurable(w.ckpt)
	}
	n.writeSuperblock()
}
