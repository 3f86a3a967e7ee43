package node

import (
	"slices"

	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/storage"
	"github.com/zeebo/xxh3"
)

// PeerMessage is one replica-to-replica message of a consensus group, in
// and out of the node. Group names the group; the zero value is the
// metadata group, any other a partition's group.
type PeerMessage struct {
	Group GroupID
	Msg   vsr.Message
}

// GroupID names a consensus group of the node: the zero value is the
// metadata group.
type GroupID struct {
	IsPartition              bool // partition ids start at 0, so the flag tells them from metadata
	Stream, Topic, Partition uint32
	// Revision is the partition's incarnation (metadata CreatedRevision):
	// a partition deleted and created again, or purged, is a new group,
	// and messages of the old one must not reach it.
	Revision uint64
}

// GroupState describes one group of the node for the simulator's oracles:
// where its replica is in the protocol and what it committed and applied.
type GroupState struct {
	Group   GroupID
	Status  vsr.Status
	View    uint32
	Primary bool // primary of its view, in normal status
	Op      uint64
	Commit  uint64
	// Applied is the op the node's state reflects and AppliedChecksum the
	// checksum of its prepare: the prepares chain by parent checksum, so
	// equal checksums at one op mean equal committed logs up to it.
	Applied         uint64
	AppliedChecksum uint64
	// Members are a partition group's replicas (nil: every replica).
	Members []uint8
}

// clustered reports a replica set of more than one.
func (c *Config) clustered() bool { return c.Replicas > 1 }

// Groups reports the node's groups in a fixed order (the metadata group
// first); nil before the node opened its replica.
func (n *Node) Groups() []GroupState {
	mg, ok := n.MetadataGroup()
	if !ok {
		return nil
	}
	return append([]GroupState{mg}, n.groupStates()...)
}

// MetadataGroup is Groups()[0] without the states of every partition's
// group (the simulator asks after every step); false before the node
// opened its replica.
func (n *Node) MetadataGroup() (GroupState, bool) {
	r := n.mg.Replica()
	if r == nil {
		return GroupState{}, false
	}
	return GroupState{
		Status: r.Status(), View: r.View(), Primary: r.IsPrimary() && r.Status() == vsr.StatusNormal,
		Op: r.Op(), Commit: r.Commit(), Applied: n.applied, AppliedChecksum: n.appliedChecksum,
	}, true
}

// MetadataDigest is the XXH3 of the image of the applied state (metadata
// and client table): replicas that applied the same op must agree on it.
func (n *Node) MetadataDigest() uint64 {
	return xxh3.Hash(n.encodeImage(n.applied))
}

// onPeer steps a message of another replica into its group.
func (n *Node) onPeer(m PeerMessage) {
	n.heard(m.Msg.From)
	if m.Group != (GroupID{}) {
		n.onGroupPeer(m)
		return
	}
	if n.mg.Replica() == nil {
		return // not open yet
	}
	switch m.Msg.Command {
	case vsr.CmdRequest:
		n.onForwarded(m.Msg)
		return
	case vsr.CmdPing:
		n.onProbe(m.Msg)
		return
	case vsr.CmdPong:
		n.onProbeAnswer(m.Msg)
		return
	}
	n.mg.Replica().Step(m.Msg)
	n.applyCommitted()
}

// replicaConfig opens the metadata group's replica of a set.
func (n *Node) replicaConfig(sb vsr.Superblock) vsr.Config {
	return vsr.Config{
		Replica: n.cfg.Replica, Count: n.cfg.Replicas, Superblock: sb, Marks: n.cfg.Marks,
		WindowOps: n.cfg.ReplicaWindowOps, Timeouts: n.cfg.VSR,
	}
}

// openCluster continues a replica of a set after boot read its superblock,
// image and journal. Unlike a standalone node's, the journal's ops after
// the checkpoint may never have committed, so none is applied here: the
// replica learns the commit point from its peers and hands the ops over as
// they commit. A torn or corrupt tail is cut; peers repair what it lost.
func (b *booter) openCluster() {
	n := b.n
	if !b.r.Found {
		b.withoutSuperblock()
		return
	}
	rec := n.mg.Recover(n.replicaConfig(b.r.Superblock), b.r.Recovered(), b.r.Superblock)
	if rec.ClaimOp > 0 {
		n.logf("%s: damaged, not torn: ops up to %d follow the damage; the log votes untrusted until peers repair it", journalDir, rec.ClaimOp)
	}
	n.logf("replica %d of %d: view %d, ops %d..%d after checkpoint %d await their commit",
		n.cfg.Replica, n.cfg.Replicas, n.mg.Replica().View(), b.r.Superblock.CheckpointOp+1, n.mg.Replica().Op(), b.r.Superblock.CheckpointOp)
	b.recoverPartitions()
}

// withoutSuperblock handles a replica with no valid superblock. A replica
// acts only once its first superblock is durable, and whatever it does
// after that either writes the journal (a proposal, a prepare it accepts)
// or a second superblock (a vote); with neither, it never acted and starts
// fresh. Otherwise its durable state is damaged (the view it voted for, the
// log it promised), and starting fresh could vote twice or propose an op
// again: it refuses, as for any damaged metadata (sim cluster seed 30091).
func (b *booter) withoutSuperblock() {
	n := b.n
	written := false
	for i, f := range b.r.SlotFiles {
		written = written || f == superblockPaths[1] && len(b.r.SlotData[i]) > 0
	}
	for _, data := range b.r.Data {
		written = written || len(data) > 0
	}
	if written {
		n.fatal("refusing %s: no valid superblock slot, but this replica acted (its journal or second slot holds data): its durable state is damaged", metadataDir)
		return
	}
	n.logf("no valid superblock and nothing written after it: this replica never started; starting fresh")
	b.createFresh()
}

// createCluster starts a replica of a new set on empty storage: the replica
// opens as a new group (a zero superblock) and boot ends at once; root is
// proposed by whichever replica is primary when the committed log is empty.
func (b *booter) createCluster() {
	n := b.n
	// The slot createFresh made durable is the newest written.
	n.mg.Create(n.replicaConfig(vsr.Superblock{}), vsr.Superblock{Sequence: 1})
	n.logf("initialized fresh storage as replica %d of %d", n.cfg.Replica, n.cfg.Replicas)
	b.recoverPartitions()
}

// clusterFlush proposes root on an empty committed log, then carries out
// what the replica asked for after a batch of steps: prepares to the
// journal, messages to peers, a superblock with its view state, a state
// transfer to install; and it settles the requests a demoted primary can
// no longer answer.
func (n *Node) clusterFlush() {
	n.maybeProposeRoot()
	if in := n.flushHost(n.mg, GroupID{}); in != nil {
		n.installing = in
	}
	n.startInstall()
	n.settleWaiters()
}

// leading reports a primary in normal status with its view's log: the only
// replica that proposes and answers commits.
func (n *Node) leading() bool {
	return n.mg.Replica().IsPrimary() && n.mg.Replica().Status() == vsr.StatusNormal
}

// settleWaiters answers 57 (TransientNotCommitted: the outcome is unknown,
// the op may still commit) to every request proposed here when this
// replica is no longer the primary: only the primary learns commits in
// time to answer. The client retries the same request elsewhere; the
// client table dedupes it if both commit (appliedBefore).
func (n *Node) settleWaiters() {
	if len(n.waiting) == 0 || n.leading() {
		return
	}
	ops := make([]uint64, 0, len(n.waiting))
	for op := range n.waiting {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	for _, op := range ops {
		w := n.waiting[op]
		delete(n.waiting, op)
		if e, ok := n.clients[w.conn.client]; ok {
			e.inflight = false
		}
		if _, open := n.conns[w.conn.id]; open {
			n.unknownOutcome(w)
		}
	}
}

// maybeProposeRoot proposes the creation of root as op 1 when this replica
// leads a set whose log is empty (ROOT-7: the others wait for it).
func (n *Node) maybeProposeRoot() {
	if n.cfg.Root == nil || n.boot.phase != bootDone || n.mg.Replica().Op() != 0 || n.mg.Replica().Full() {
		return
	}
	n.propose(vsr.Prepare{Kind: vsr.KindCommand, Timestamp: n.now.NowMicros, Body: metadata.Encode(rootCommand(n.cfg.Root))})
	n.logf("proposed the root user as op 1")
}

// startInstall installs a state transfer image once no checkpoint of this
// node is on its way to the superblock: the image replaces the metadata,
// the client table and the partition logs, and becomes the node's durable
// checkpoint; the replica resumes once it is (Installed).
func (n *Node) startInstall() {
	in := n.installing
	if in == nil || n.mg.Checkpointing() {
		return
	}
	n.installing = nil
	img, err := decodeImage(in.Image)
	op := img.op
	if err != nil || op != in.Checkpoint.Op || xxh3.Hash(in.Image) != in.Checkpoint.ImageChecksum {
		// The replica checked the bytes against the checkpoint's checksum,
		// so this is a peer that served a bad image: a bug, not a fault.
		n.fatal("state transfer image of checkpoint op %d is invalid: %v", in.Checkpoint.Op, err)
		return
	}
	n.restore(img)
	n.applied, n.appliedChecksum = op, in.Checkpoint.Checksum
	n.reopenPartitions()
	n.mg.Journal().Rotate()
	n.mg.Install(in.Checkpoint, in.Image)
	n.logf("installing state transfer of checkpoint op %d", op)
}

// reopenPartitions makes the partition logs and groups follow metadata
// that was replaced wholesale (a state transfer). A partition of the same
// incarnation keeps its log and group as they are: restarting them would
// race their writes in flight (a superblock slot written twice at one
// sequence). One that is gone loses them and its directory; one of another
// incarnation (deleted and created again, or purged) is opened again, and
// its recovery deletes the older incarnation's files (STOR-27); a new one
// is opened and recovered.
func (n *Node) reopenPartitions() {
	want := map[partKey]uint64{}
	for _, s := range n.meta.Streams() {
		for _, t := range s.Topics {
			for _, p := range t.Partitions {
				if k := (partKey{s.ID, t.ID, p.ID}); n.holds(k) {
					want[k] = p.CreatedRevision
				}
			}
		}
	}
	for _, k := range n.sortedPartitionKeys() {
		if g := n.pgroups[k]; g != nil && want[k] == g.rev {
			delete(want, k) // the same incarnation: kept
			continue
		}
		n.closePartition(k)
		if _, ok := want[k]; !ok {
			n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpDeleteTree, File: partitionDir(k)})
		}
	}
	for _, k := range sortedPartKeys(want) {
		n.openPartition(k).Recover(want[k])
		n.openGroup(k, want[k])
	}
	n.retune()
}

// closePartition forgets a partition's log and group.
func (n *Node) closePartition(k partKey) {
	delete(n.partitions, k)
	n.partKeys = nil
	delete(n.logGens, k)
	n.dropGroup(k)
}

// appliedLogMax bounds the applied ops kept for TakeApplied: a ring, so a
// caller that never takes them (production) pays a fixed array.
const appliedLogMax = 1024

// AppliedOp is one op the node applied, for the simulator's convergence
// oracle: equal checksums at one op on every replica.
type AppliedOp struct {
	Group    GroupID
	Op       uint64
	Checksum uint64
}

// appliedRing holds the newest applied ops, oldest first from start.
type appliedRing struct {
	ops          [appliedLogMax]AppliedOp
	start, count int
}

func (a *appliedRing) push(op AppliedOp) {
	a.ops[(a.start+a.count)%appliedLogMax] = op
	if a.count < appliedLogMax {
		a.count++
	} else {
		a.start = (a.start + 1) % appliedLogMax
	}
}

// TakeApplied returns the ops applied since the last call, oldest first (at
// most appliedLogMax: older ones are gone).
func (n *Node) TakeApplied() []AppliedOp {
	a := &n.appliedLog
	out := make([]AppliedOp, a.count)
	for i := range out {
		out[i] = a.ops[(a.start+i)%appliedLogMax]
	}
	a.start, a.count = 0, 0
	return out
}
