package node

import (
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/storage"
)

// A partition group's checkpoint is an applied op whose log writes, and
// those of every op before it, are durable: the log is then the state
// after that op, and its length in messages is the checkpoint's Size
// (what a metadata checkpoint calls its image). The superblock naming it
// lets the journal before it go; boot replays the journal after it,
// skipping the appends the log kept.

// pgroupSBWrite is a group's superblock write in flight: view state and a
// checkpoint share one slot write.
type pgroupSBWrite struct {
	sb   vsr.Superblock
	vs   *vsr.ViewState
	ckpt *vsr.Checkpoint
	sync storage.ReqID
}

// maybeGroupCheckpoint starts a checkpoint at the applied op once enough
// ops were applied since the last one.
func (n *Node) maybeGroupCheckpoint(g *pgroup) {
	if g.ckpt != nil || g.sbWriting != nil && g.sbWriting.ckpt != nil || g.applied-g.ckptOp < pgroupCheckpointEveryOps || g.unsyncedSkip {
		return
	}
	g.ckpt = &vsr.Checkpoint{Op: g.applied, Checksum: g.appliedChecksum, Size: g.nextOffset}
	g.journal.Rotate() // later ops go to a new segment, which the checkpoint does not hold up
}

// groupWritten notes a durable log write of a group's applied op.
func (n *Node) groupWritten(k partKey, token uint64) {
	g := n.groupOf(k)
	if g == nil {
		return
	}
	if _, ok := g.inflight[token]; ok {
		delete(g.inflight, token)
		n.writeGroupSuperblock(g)
	}
}

// checkpointReady reports a checkpoint whose ops' log writes are durable.
func (g *pgroup) checkpointReady() bool {
	if g.ckpt == nil {
		return false
	}
	for _, op := range g.inflight {
		if op <= g.ckpt.Op {
			return false
		}
	}
	return true
}

// writeGroupSuperblock writes the group's next superblock when none is in
// flight and a view state or a ready checkpoint waits for one.
func (n *Node) writeGroupSuperblock(g *pgroup) {
	ready := g.checkpointReady()
	if g.sbWriting != nil || g.wantVS == nil && !ready {
		return
	}
	w := &pgroupSBWrite{sb: g.sb, vs: g.wantVS}
	g.wantVS = nil
	if ready {
		w.ckpt, g.ckpt = g.ckpt, nil
	}
	w.sb.Sequence++
	if vs := w.vs; vs != nil {
		w.sb.View, w.sb.LogView, w.sb.LogHeadOp, w.sb.LogHeadChecksum = vs.View, vs.LogView, vs.LogHeadOp, vs.LogHeadChecksum
	}
	if ck := w.ckpt; ck != nil {
		w.sb.CheckpointOp, w.sb.CheckpointChecksum, w.sb.SnapshotSize = ck.Op, ck.Checksum, ck.Size
	}
	o := owner{kind: ownerGroupSuperblock, part: g.key, gen: g.gen}
	path := g.superblockPath((w.sb.Sequence - 1) % 2)
	if w.sb.Sequence <= 2 {
		n.submit(o, storage.Request{Op: storage.OpCreate, File: path}) // the slot's first write
	}
	n.submit(o, storage.Request{Op: storage.OpWrite, File: path, Data: [][]byte{w.sb.Encode()}})
	w.sync = n.submit(o, storage.Request{Op: storage.OpSync, File: path})
	g.sb = w.sb
	g.sbWriting = w
}

// groupSuperblockCompletion finishes a group's superblock write.
func (n *Node) groupSuperblockCompletion(o owner, c storage.Completion) {
	g := n.pgroups[o.part]
	if g == nil || g.gen != o.gen {
		return
	}
	if c.Result != storage.ResultOK {
		n.fatal("partition group %s: superblock write failed: %s", g.dir(), c.Err)
		return
	}
	w := g.sbWriting
	if w == nil || c.ID != w.sync {
		return
	}
	g.sbWriting = nil
	if w.vs != nil {
		g.replica.SuperblockWritten(*w.vs)
	}
	if ck := w.ckpt; ck != nil {
		g.ckptOp = ck.Op
		g.journal.Release(ck.Op)
		g.replica.Checkpointed(ck.Op)
	}
	n.writeGroupSuperblock(g)
	n.applyGroup(g)
}

// groupJournalCompletion passes a journal completion to its group.
func (n *Node) groupJournalCompletion(o owner, c storage.Completion) {
	g := n.pgroups[o.part]
	if g == nil || g.gen != o.gen || g.replica == nil {
		return
	}
	if !g.replica.Complete(c) && c.Result != storage.ResultOK {
		n.fatal("partition group %s: journal request failed: %s", g.walDir(), c.Err)
		return
	}
	n.applyGroup(g)
}
