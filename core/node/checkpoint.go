package node

import (
	"github.com/iggygo/iggy/core/group"
)

// checkpointEveryOpsDefault spaces checkpoints when the config does not:
// the journal replayed at boot stays this many ops long at most.
const checkpointEveryOpsDefault = 16384

// metaMachine is the metadata and client table as the state machine of the
// metadata group's host.
type metaMachine struct{ n *Node }

// Durable: the metadata has no writes of its own besides the checkpoint
// image, which the host makes durable itself.
func (metaMachine) Durable(uint64) bool { return true }

func (m metaMachine) Checkpointed(ck *group.Checkpoint) {
	m.n.logf("checkpoint at op %d is durable", ck.CP.Op)
}

func (m metaMachine) Installed(ck *group.Checkpoint) {
	m.n.logf("state transfer to checkpoint op %d is durable", ck.CP.Op)
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
	if n.checkpointing() || n.boot.phase != bootDone || op-n.mg.DurableOp() < every {
		return
	}
	n.mg.Checkpoint(op, n.appliedChecksum, n.encodeImage(op))
}

// checkpointing reports a checkpoint or an installed state transfer on its
// way to the superblock.
func (n *Node) checkpointing() bool {
	return n.installing != nil || n.mg.Checkpointing()
}

// openAllPartitions opens the log of every partition the metadata holds,
// after a checkpoint image replaced the metadata wholesale.
func (n *Node) openAllPartitions() {
	for _, s := range n.meta.Streams() {
		for _, t := range s.Topics {
			for _, p := range t.Partitions {
				k := partKey{s.ID, t.ID, p.ID}
				if !n.holds(k) {
					continue
				}
				n.openPartition(k)
				if n.cfg.clustered() {
					n.openGroup(k, p.CreatedRevision)
				}
			}
		}
	}
}
