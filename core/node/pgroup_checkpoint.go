package node

import (
	"cmp"
	"fmt"

	"github.com/iggygo/iggy/core/group"
)

// A partition group's checkpoint is an applied op whose log writes, and
// those of every op before it, are durable: the log is then the state
// after that op. Its image is small: the log's length in messages, the
// stored consumer offsets and the producer table (encodeGroupImage); the
// messages stay in the log. The
// image goes to a file of its own, then a superblock names it, which lets
// the journal before the op go; boot replays the journal after it,
// skipping the appends the log kept.

func (g *pgroup) imagePath(op uint64) string { return fmt.Sprintf("%s/image-%020d.bin", g.dir(), op) }

// groupMachine is a partition log as the state machine of its group's host.
type groupMachine struct {
	n *Node
	g *pgroup
}

// Durable reports that no log write of an op up to op is in flight: the
// log is then the state after op.
func (m groupMachine) Durable(op uint64) bool {
	for _, o := range m.g.inflight {
		if o <= op {
			return false
		}
	}
	return true
}

func (groupMachine) Checkpointed(*group.Checkpoint) {}

func (m groupMachine) Installed(ck *group.Checkpoint) { m.n.groupInstalled(m.g, ck) }

// maybeGroupCheckpoint starts a checkpoint at the applied op once enough
// ops were applied since the last one.
func (n *Node) maybeGroupCheckpoint(g *pgroup) {
	every := n.cfg.PartitionCheckpointEveryOps
	if every == 0 {
		every = pgroupCheckpointEveryOpsDefault
	}
	durable := g.host.DurableOp()
	due := g.applied-durable >= every || g.bytesSinceCkpt >= cmp.Or(n.cfg.WALBytesMax, walBytesMaxDefault)/2
	if g.host.Checkpointing() || g.installing != nil || g.unsyncedSkip || g.applied == durable || !due {
		return
	}
	g.bytesSinceCkpt = 0
	g.host.Checkpoint(g.applied, g.appliedChecksum, encodeGroupImage(g.nextOffset, n.partitions[g.key].Offsets(), g.receipts, g.producers))
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
		g.host.WriteSuperblock()
	}
}
