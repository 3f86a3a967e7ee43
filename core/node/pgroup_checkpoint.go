package node

import (
	"cmp"
	"fmt"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/storage"
	"github.com/zeebo/xxh3"
)

// A partition group's checkpoint is an applied op whose log writes, and
// those of every op before it, are durable: the log is then the state
// after that op. Its image is small: the log's length in messages and the
// stored consumer offsets (groupImage); the messages stay in the log. The
// image goes to a file of its own, then a superblock names it, which lets
// the journal before the op go; boot replays the journal after it,
// skipping the appends the log kept.

// pgroupCheckpoint is a checkpoint under way, or the durable one served.
type pgroupCheckpoint struct {
	cp        vsr.Checkpoint
	image     []byte
	install   bool          // a state transfer's: the replica waits for it
	imageSync storage.ReqID // the image file is durable once this completes
	synced    bool
}

// pgroupSBWrite is a group's superblock write in flight: view state and a
// checkpoint share one slot write.
type pgroupSBWrite struct {
	sb   vsr.Superblock
	vs   *vsr.ViewState
	ckpt *pgroupCheckpoint
	sync storage.ReqID
}

func (g *pgroup) imagePath(op uint64) string { return fmt.Sprintf("%s/image-%020d.bin", g.dir(), op) }

// maybeGroupCheckpoint starts a checkpoint at the applied op once enough
// ops were applied since the last one.
func (n *Node) maybeGroupCheckpoint(g *pgroup) {
	every := n.cfg.PartitionCheckpointEveryOps
	if every == 0 {
		every = pgroupCheckpointEveryOpsDefault
	}
	due := g.applied-g.ckptOp >= every || g.bytesSinceCkpt >= cmp.Or(n.cfg.WALBytesMax, walBytesMaxDefault)/2
	if g.checkpointing() || g.installing != nil || g.unsyncedSkip || g.applied == g.ckptOp || !due {
		return
	}
	g.bytesSinceCkpt = 0
	img := encodeGroupImage(g.nextOffset, n.partitions[g.key].Offsets())
	cp := vsr.Checkpoint{Op: g.applied, Checksum: g.appliedChecksum, Size: uint64(len(img)), ImageChecksum: xxh3.Hash(img)}
	// Later ops are written to a new segment, which the checkpoint does
	// not hold up.
	g.journal.Rotate()
	n.writeGroupImage(g, &pgroupCheckpoint{cp: cp, image: img})
}

// checkpointing reports a checkpoint on its way to the superblock.
func (g *pgroup) checkpointing() bool {
	return g.ckpt != nil || g.sbWriting != nil && g.sbWriting.ckpt != nil
}

func (n *Node) writeGroupImage(g *pgroup, ck *pgroupCheckpoint) {
	g.ckpt = ck
	o := owner{kind: ownerGroupSuperblock, part: g.key, gen: g.gen}
	path := g.imagePath(ck.cp.Op)
	n.submit(o, storage.Request{Op: storage.OpCreate, File: path})
	n.submit(o, storage.Request{Op: storage.OpTruncate, File: path})
	n.submit(o, storage.Request{Op: storage.OpWrite, File: path, Data: [][]byte{ck.image}})
	ck.imageSync = n.submit(o, storage.Request{Op: storage.OpSync, File: path})
}

// groupWritten notes a durable log write of a group's applied op.
func (n *Node) groupWritten(k partKey, token uint64) {
	g := n.groupOf(k)
	if g == nil {
		return
	}
	if _, ok := g.inflight[token]; ok {
		delete(g.inflight, token)
		n.releaseReads(g)
		n.writeGroupSuperblock(g)
	}
}

// checkpointReady reports a checkpoint whose image and ops' log writes
// are durable.
func (g *pgroup) checkpointReady() bool {
	if g.ckpt == nil || !g.ckpt.synced {
		return false
	}
	for _, op := range g.inflight {
		if op <= g.ckpt.cp.Op {
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
	var cp *vsr.Checkpoint
	if w.ckpt != nil {
		cp = &w.ckpt.cp
	}
	w.sb = nextSuperblock(w.sb, w.vs, cp)
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

// groupSuperblockCompletion finishes a group's image or superblock write.
func (n *Node) groupSuperblockCompletion(o owner, c storage.Completion) {
	g := n.pgroups[o.part]
	if g == nil || g.gen != o.gen {
		return
	}
	if c.Result != storage.ResultOK {
		n.fatal("partition group %s: checkpoint or superblock write failed: %s", g.dir(), c.Err)
		return
	}
	if g.ckpt != nil && c.ID == g.ckpt.imageSync {
		g.ckpt.synced = true
		n.writeGroupSuperblock(g)
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
	if w.ckpt != nil {
		n.groupCheckpointDurable(g, w.ckpt)
	}
	n.writeGroupSuperblock(g)
	n.applyGroup(g)
}

// groupCheckpointDurable runs once the superblock naming ck is durable:
// the older image and the journal the checkpoint covers go.
func (n *Node) groupCheckpointDurable(g *pgroup, ck *pgroupCheckpoint) {
	if g.ckptOp > 0 && g.ckptOp != ck.cp.Op {
		n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpDelete, File: g.imagePath(g.ckptOp)})
	}
	g.ckptOp, g.serving = ck.cp.Op, ck
	if ck.install {
		n.groupInstalled(g, ck)
		return
	}
	g.journal.Release(ck.cp.Op)
	g.replica.Checkpointed(ck.cp.Op)
}

// groupJournalCompletion passes a journal completion to its group.
func (n *Node) groupJournalCompletion(o owner, c storage.Completion) {
	g := n.pgroups[o.part]
	if g == nil || g.gen != o.gen || g.replica == nil {
		return
	}
	if !g.replica.Complete(c) && c.Result != storage.ResultOK {
		n.fatal("partition group %s: journal request failed: %s", g.dir(), c.Err)
		return
	}
	n.applyGroup(g)
}

// groupImages serves a group's durable checkpoint to peers (vsr.Images).
type groupImages struct{ g *pgroup }

func (im groupImages) Latest() (vsr.Checkpoint, bool) {
	s := im.g.serving
	if s == nil {
		return vsr.Checkpoint{}, false
	}
	return s.cp, true
}

func (im groupImages) Chunk(cp vsr.Checkpoint, offset uint64, sizeMax int) ([]byte, bool) {
	s := im.g.serving
	if s == nil || s.cp != cp || offset > cp.Size {
		return nil, false
	}
	return s.image[offset:min(offset+uint64(sizeMax), cp.Size)], true
}
