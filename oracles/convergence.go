package oracles

import (
	"errors"
	"fmt"
)

// Marks of the replica-set oracles.
const (
	// MarkConverged: the live replicas of a set were found in agreement
	// after heal (the final convergence check ran and passed).
	MarkConverged = "oracle.convergence.checked"
	// MarkViewChange: a replica set finished a view change.
	MarkViewChange = "vsr.view_change.completed"
	// MarkRepair: a replica repaired its log from a peer.
	MarkRepair = "vsr.repair.done"
	// MarkStateTransfer: a lagging replica installed a peer's checkpoint.
	MarkStateTransfer = "vsr.state_transfer.installed"
	// MarkPartitionTransfer: a partition group's state transfer, messages
	// fetched included, became durable.
	MarkPartitionTransfer = "node.partition_transfer.installed"
)

// ClusterRequired are the marks every sweep of replica sets must hit: a
// view change, a crash and restart, a repair, a state transfer (of a
// partition too), a recovery from lost unsynced writes, a passing
// convergence check and a porcupine-checked read.
var ClusterRequired = []string{MarkViewChange, MarkRestart, MarkRepair, MarkStateTransfer, MarkPartitionTransfer,
	MarkLostUnsynced, MarkConverged, MarkPorcupineRead}

// convergenceOpsMax bounds the (group, op) pairs remembered per run.
const convergenceOpsMax = 1 << 20

// GroupKey names a consensus group (the zero value: the metadata group;
// IsPartition: a partition's group, whose ids start at 0).
type GroupKey struct {
	IsPartition              bool
	Stream, Topic, Partition uint32
	Revision                 uint64 // the partition's incarnation
}

// Sample is what one replica reported having applied in one group.
type Sample struct {
	Replica   int
	Group     GroupKey
	Applied   uint64
	Checksum  uint64 // of the prepare at Applied: names the committed log up to it
	Digest    uint64 // of the applied state (the metadata group only)
	HasDigest bool
}

type groupOp struct {
	group GroupKey
	op    uint64
}

// Convergence checks during a run that replicas agree on what they
// applied: two replicas at the same applied op of a group must report the
// same prepare checksum (so the same committed log up to it) and, for the
// metadata group, the same state digest. (VSR-1: committed ops are the
// same on every replica, in the same order.)
type Convergence struct {
	seen map[groupOp]Sample
}

// NewConvergence is an empty oracle.
func NewConvergence() *Convergence { return &Convergence{seen: map[groupOp]Sample{}} }

// Observe checks s against what any replica reported at the same op.
func (c *Convergence) Observe(s Sample) error {
	k := groupOp{s.Group, s.Applied}
	first, ok := c.seen[k]
	if !ok {
		if len(c.seen) < convergenceOpsMax {
			c.seen[k] = s
		}
		return nil
	}
	if first.Checksum != s.Checksum {
		return fmt.Errorf("group %v op %d: replica %d applied prepare %016x, replica %d applied %016x",
			s.Group, s.Applied, first.Replica, first.Checksum, s.Replica, s.Checksum)
	}
	if first.HasDigest && s.HasDigest && first.Digest != s.Digest {
		return fmt.Errorf("group %v op %d: replica %d has state digest %016x, replica %d has %016x (same log, different state)",
			s.Group, s.Applied, first.Replica, first.Digest, s.Replica, s.Digest)
	}
	if !first.HasDigest && s.HasDigest {
		c.seen[k] = s
	}
	return nil
}

// Final is one live replica's metadata group at the end of a run.
type Final struct {
	Replica             int
	Normal              bool
	View                uint32
	Op, Commit, Applied uint64
	Checksum, Digest    uint64
}

// CheckConverged: after heal every live replica is in normal status in
// one view, has committed and applied everything its log holds, and all
// agree on the applied op, its checksum and the state digest.
func CheckConverged(finals []Final) error {
	if len(finals) == 0 {
		return errors.New("no live replica")
	}
	a := finals[0]
	for _, f := range finals {
		switch {
		case !f.Normal:
			return fmt.Errorf("replica %d is not in normal status", f.Replica)
		case f.Op != f.Commit || f.Commit != f.Applied:
			return fmt.Errorf("replica %d holds op %d, committed %d, applied %d", f.Replica, f.Op, f.Commit, f.Applied)
		case f.View != a.View:
			return fmt.Errorf("replica %d is in view %d, replica %d in view %d", f.Replica, f.View, a.Replica, a.View)
		case f.Applied != a.Applied || f.Checksum != a.Checksum:
			return fmt.Errorf("replica %d applied op %d (%016x), replica %d op %d (%016x)",
				f.Replica, f.Applied, f.Checksum, a.Replica, a.Applied, a.Checksum)
		case f.Digest != a.Digest:
			return fmt.Errorf("replica %d and replica %d applied op %d with state digests %016x and %016x",
				f.Replica, a.Replica, f.Applied, f.Digest, a.Digest)
		}
	}
	return nil
}
