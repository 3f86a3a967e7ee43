package node

import (
	"cmp"
	"fmt"

	"github.com/iggygo/iggy/core/group"
	"github.com/iggygo/iggy/wire"
)

// A partition group's checkpoint is an applied op whose log writes, and
// those of every op before it, are durable: the log is then the state
// after that op. Its image is small: the log's length in messages and the
// stored consumer offsets (groupImage); the messages stay in the log. The
// image goes to a file of its own, then a superblock names it, which lets
// the journal before the op go; boot replays the journal after it,
// skipping the appends the log kept.

func (g *pgroup) imagePath(op uint64) string { return fmt.Sprintf("%s/image-%020d.bin", g.dir(), op) }

// groupMachine is a partition log as the state machine of its group's host.
type groupMachine struct {
	n *Node
	g *pgroup
}

// Durable reports that no log write of an op up to op is in flight and a
// Sync made the appends of those ops durable: the log is then the state
// after op.
func (m groupMachine) Durable(op uint64) bool {
	if m.g.dirtyFrom != 0 && m.g.dirtyFrom <= op {
		return false
	}
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
	if g.host.Checkpointing() || g.installing != nil || g.applied == durable || !due {
		return
	}
	if g.dirtyFrom != 0 && g.dirtyFrom <= g.applied && g.sync == nil {
		// The journal before the checkpoint goes once it is durable: the
		// log must hold its appends durably first (Durable waits for it).
		n.cfg.Marks.Hit("node.pgroup.sync_before_checkpoint")
		g.sync = &pgroupSync{token: n.partitions[g.key].Sync(), op: g.applied}
	}
	g.bytesSinceCkpt = 0
	g.host.Checkpoint(g.applied, g.appliedChecksum, encodeGroupImage(g.nextOffset, n.partitions[g.key].Offsets()))
}

// groupSynced notes a completed log Sync of a group: the appends of its
// ops are durable, and a checkpoint waiting for them may go on.
func (n *Node) groupSynced(k partKey, token uint64, code wire.Code) {
	g := n.groupOf(k)
	if g == nil || g.sync == nil || g.sync.token != token {
		return
	}
	if code != wire.OK {
		// The log cannot be trusted to hold the ops the journal releases.
		n.fatal("partition group %s: a log sync failed: %s", g.dir(), code.Name())
		return
	}
	g.dirtyFrom, g.sync = g.sync.dirtyAfter, nil
	g.host.WriteSuperblock()
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
	n.groupSynced(k, token, wire.OK) // a Sync carried by a queued append
}
