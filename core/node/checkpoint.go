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
// naming an image that exists. An installed state transfer takes the same
// path with install set: the replica waits for it.
type checkpointing struct {
	cp        vsr.Checkpoint
	image     []byte // kept to serve peers' state transfers (replica sets only)
	install   bool
	imageSync storage.ReqID // the image file is durable
}

// maybeCheckpoint starts a checkpoint at the applied op when enough ops
// have been applied since the last one. The image is taken now,
// synchronously, so it is exactly the state after op; later ops go to a new
// journal segment.
func (n *Node) maybeCheckpoint() {
	every := n.cfg.CheckpointEveryOps
	if every == 0 {
		every = checkpointEveryOpsDefault
	}
	op := n.applied
	if n.checkpointing() || n.boot.phase != bootDone || op-n.checkpointOp < every {
		return
	}
	img := n.encodeImage(op)
	n.journal.Rotate()
	n.writeImage(&checkpointing{cp: vsr.Checkpoint{Op: op, Checksum: n.appliedChecksum,
		Size: uint64(len(img)), ImageChecksum: xxh3.Hash(img)}, image: img})
}

// checkpointing reports a checkpoint or an installed state transfer on its
// way to the superblock. Until it is there, checkpointOp is the older one,
// so a new checkpoint would take the same op again and rewrite the image
// file the durable superblock names (found by the simulator, cluster seed
// 1103: a power loss between the truncate and the write left it empty).
func (n *Node) checkpointing() bool {
	return n.installing != nil || n.imageInFlight()
}

// imageInFlight reports an image on its way to the superblock: being
// written, durable and waiting, or in the superblock write in flight.
func (n *Node) imageInFlight() bool {
	return n.ckpt != nil || n.readyCkpt != nil || n.sbWriting != nil && n.sbWriting.ckpt != nil
}

// writeImage makes a checkpoint's image durable in its own file.
func (n *Node) writeImage(ck *checkpointing) {
	n.ckpt = ck
	o := owner{kind: ownerCheckpoint}
	path := snapshotPath(ck.cp.Op)
	n.submit(o, storage.Request{Op: storage.OpCreate, File: path})
	n.submit(o, storage.Request{Op: storage.OpTruncate, File: path})
	n.submit(o, storage.Request{Op: storage.OpWrite, File: path, Data: [][]byte{ck.image}})
	ck.imageSync = n.submit(o, storage.Request{Op: storage.OpSync, File: path})
	if !n.cfg.clustered() {
		ck.image = nil // nobody asks a standalone node for its image
	}
}

// checkpointCompletion: once the image is durable, the next superblock
// names it.
func (n *Node) checkpointCompletion(c storage.Completion) {
	if c.Result != storage.ResultOK {
		n.fatal("checkpoint at op %d: disk request failed: %s", n.ckpt.cp.Op, c.Err)
		return
	}
	if c.ID == n.ckpt.imageSync {
		n.readyCkpt, n.ckpt = n.ckpt, nil
		n.writeSuperblock()
	}
}

// checkpointDurable runs once the superblock naming ck is durable: the
// image the old superblock named and the journal it covers go.
func (n *Node) checkpointDurable(ck *checkpointing) {
	if n.checkpointOp > 0 && n.checkpointOp != ck.cp.Op {
		n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpDelete, File: snapshotPath(n.checkpointOp)})
	}
	n.checkpointOp = ck.cp.Op
	n.serving = ck
	if ck.install {
		n.replica.Installed(ck.cp)
		n.logf("state transfer to checkpoint op %d is durable", ck.cp.Op)
		return
	}
	n.journal.Release(ck.cp.Op)
	n.replica.Checkpointed(ck.cp.Op)
	n.logf("checkpoint at op %d is durable", ck.cp.Op)
}

// openAllPartitions opens the log of every partition the metadata holds,
// after a checkpoint image replaced the metadata wholesale.
func (n *Node) openAllPartitions() {
	for _, s := range n.meta.Streams() {
		for _, t := range s.Topics {
			for _, p := range t.Partitions {
				k := partKey{s.ID, t.ID, p.ID}
				n.openPartition(k)
				if n.cfg.clustered() {
					n.openGroup(k, p.CreatedRevision)
				}
			}
		}
	}
}
