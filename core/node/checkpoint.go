package node

import (
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/storage"
	"github.com/zeebo/xxh3"
)

// checkpointEveryOpsDefault spaces checkpoints when the config does not:
// the journal replayed at boot stays this many ops long at most.
const checkpointEveryOpsDefault = 16384

// checkpointing is a checkpoint under way: its image is made durable in a
// file of its own, then named by a new superblock; only then is the previous
// image deleted, so a crash at any point leaves the durable superblock
// naming an image that exists.
type checkpointing struct {
	op        uint64
	size      uint64
	checksum  uint64
	imageSync storage.ReqID // the image file is durable
	sync      storage.ReqID // the superblock naming it is durable
}

// maybeCheckpoint starts a checkpoint at the commit point when enough ops
// have committed since the last one. The image is taken now, synchronously,
// so it is exactly the state after op; later ops go to a new journal segment.
func (n *Node) maybeCheckpoint() {
	every := n.cfg.CheckpointEveryOps
	if every == 0 {
		every = checkpointEveryOpsDefault
	}
	op := n.replica.Commit()
	if n.ckpt != nil || n.boot.phase != bootDone || op-n.checkpointOp < every {
		return
	}
	img := n.encodeImage(op)
	n.ckpt = &checkpointing{op: op, size: uint64(len(img)), checksum: xxh3.Hash(img)}
	n.journal.Rotate()
	o := owner{kind: ownerCheckpoint}
	path := snapshotPath(op)
	n.submit(o, storage.Request{Op: storage.OpCreate, File: path})
	n.submit(o, storage.Request{Op: storage.OpTruncate, File: path})
	n.submit(o, storage.Request{Op: storage.OpWrite, File: path, Data: [][]byte{img}})
	n.ckpt.imageSync = n.submit(o, storage.Request{Op: storage.OpSync, File: path})
}

// checkpointCompletion advances a checkpoint: once the image is durable the
// superblock names it; once that is durable the covered journal is released.
func (n *Node) checkpointCompletion(c storage.Completion) {
	if c.Result != storage.ResultOK {
		n.fatal("checkpoint at op %d: disk request failed: %s", n.ckpt.op, c.Err)
		return
	}
	switch c.ID {
	case n.ckpt.imageSync:
		// The view fields carry over: a checkpoint never moves the view.
		sb := n.superblock
		sb.Sequence++
		sb.CheckpointOp, sb.SnapshotSize, sb.SnapshotChecksum = n.ckpt.op, n.ckpt.size, n.ckpt.checksum
		n.ckpt.sync = n.writeSuperblock(sb, owner{kind: ownerCheckpoint})
		n.superblock = sb
	case n.ckpt.sync:
		if n.checkpointOp > 0 { // the image the old superblock named is no longer needed
			n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpDelete, File: snapshotPath(n.checkpointOp)})
		}
		n.checkpointOp = n.ckpt.op
		n.journal.Release(n.ckpt.op)
		n.logf("checkpoint at op %d is durable", n.ckpt.op)
		n.ckpt = nil
	}
}

// writeSuperblock writes sb into its slot (the two slots alternate by
// sequence) and returns the id of the sync that makes it durable.
func (n *Node) writeSuperblock(sb vsr.Superblock, o owner) storage.ReqID {
	path := superblockPaths[(sb.Sequence-1)%2]
	n.submit(o, storage.Request{Op: storage.OpWrite, File: path, Data: [][]byte{sb.Encode()}})
	return n.submit(o, storage.Request{Op: storage.OpSync, File: path})
}

// openAllPartitions opens the log of every partition the metadata holds,
// after a checkpoint image replaced the metadata wholesale.
func (n *Node) openAllPartitions() {
	for _, s := range n.meta.Streams() {
		for _, t := range s.Topics {
			for _, p := range t.Partitions {
				n.openPartition(partKey{s.ID, t.ID, p.ID})
			}
		}
	}
}
