package node

import (
	"cmp"
	"maps"
	"slices"

	"github.com/iggygo/iggy/core/group"
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// A replica of a set runs one consensus group per partition besides the
// metadata group: sends and offset writes are prepares of the partition's
// group, applied to the partition log once committed, so every replica's
// log holds the same messages at the same offsets. The log itself is the
// group's state: a checkpoint is the op whose append was synced, with the
// log's length then (pgroupCheckpoint).

// Partition group bounds.
const (
	// pgroupCheckpointEveryOpsDefault spaces a partition group's
	// checkpoints: the journal and the prepares kept in memory after one
	// stay this short.
	pgroupCheckpointEveryOpsDefault = 64
	// pgroupWindowOps is the soft bound on prepares a partition group keeps
	// in memory for peers' repairs, unless Config.ReplicaWindowOps says.
	pgroupWindowOps = 256
	// pgroupWaitersMax bounds the requests waiting for ops of one group.
	pgroupWaitersMax = 4096
	// Defaults of Config.RepairMemoryBytesMax and WALBytesMax.
	repairMemoryBytesMaxDefault = 1 << 30
	walBytesMaxDefault          = 512 << 20
)

// pgroup is this replica's member of one partition's group.
type pgroup struct {
	key  partKey
	rev  uint64 // the partition's incarnation (GroupID.Revision)
	gen  uint64 // incarnation, for completions (a group deleted and created again)
	host *group.Host
	// members are the replicas holding the partition, ascending (nil:
	// every replica); the group's replica indexes are places in it.
	members []uint8
	// first is the replica that leads the incarnation's first view.
	first uint8
	// drain is a granted move this primary carries out (rebalance.go).
	drain *drain

	// logReady: the partition log recovered; ops apply only then.
	logReady bool
	// applied is the op the log reflects; appliedChecksum its prepare's.
	applied, appliedChecksum uint64
	// nextOffset is where the next applied append starts. After a restart
	// the log may hold appends of ops past the checkpoint (applied, then
	// not yet checkpointed): replaying them skips what the log holds.
	nextOffset uint64
	// unsyncedSkip: the newest append replayed was already in the log.
	unsyncedSkip bool
	// bytesSinceCkpt counts the prepare bytes applied since the last
	// checkpoint began: the journal after it stays within WALBytesMax.
	bytesSinceCkpt uint64

	installing *pgroupInstall // a state transfer fetching its messages
	// inflight are the log writes of applied ops not yet durable, by token:
	// a checkpoint waits for those of its ops (groupMachine.Durable).
	inflight map[uint64]uint64

	// held are committed ops taken from the replica and not applied yet:
	// they wait for a refetch (bounded by the replica's log window).
	held []vsr.Prepare
	// parked are reads waiting for earlier ops' log writes (serveRead).
	parked []parkedRead
	// waiting are the requests proposed here, by op.
	waiting map[uint64]pgroupWaiter
	// receipts are the group's send receipts (receipts.go): group state,
	// in its checkpoint image.
	receipts *partition.Receipts
	// receiptsSweptAt is the tick of the last sweep of them (local).
	receiptsSweptAt uint64
	// producers is the idempotent producer table of the applied ops
	// (pgroup_producers.go).
	producers *partition.Producers
}

// pgroupWaiter is a request waiting for its op to apply on this primary.
type pgroupWaiter struct {
	conn   *conn
	header wire.RequestHeader
	read   func() // a read behind a barrier op: served when it applies
}

// groupOf returns the open group of a partition, or nil.
func (n *Node) groupOf(k partKey) *pgroup {
	g := n.pgroups[k]
	if g == nil || g.host.Replica() == nil {
		return nil
	}
	return g
}

// leads reports whether this replica is the group's primary in normal
// status, the only member that proposes.
func (g *pgroup) leads() bool {
	return g.host.Replica().IsPrimary() && g.host.Replica().Status() == vsr.StatusNormal && g.logReady
}

// pgroupConfig opens a partition group's replica.
func (n *Node) pgroupConfig(g *pgroup, sb vsr.Superblock) vsr.Config {
	self, _ := g.local(n.cfg.Replica)
	return vsr.Config{
		Replica: self, Count: g.size(n), Superblock: sb, Marks: n.cfg.Marks,
		WindowOps: cmp.Or(n.cfg.ReplicaWindowOps, pgroupWindowOps), WindowBytesMax: n.repairShareBytes(),
		Timeouts: n.cfg.VSR,
	}
}

// repairShareBytes is one partition group's share of the node's repair
// memory (VSR-20), at most the journal bound of one partition (VSR-21).
func (n *Node) repairShareBytes() uint64 {
	total := cmp.Or(n.cfg.RepairMemoryBytesMax, repairMemoryBytesMaxDefault)
	return max(1, min(cmp.Or(n.cfg.WALBytesMax, walBytesMaxDefault), total/uint64(max(1, len(n.pgroups)))))
}

// rebudgetGroups gives every open group its share once per step in which
// the number of groups changed (not per open: a boot opens them all).
func (n *Node) rebudgetGroups() {
	if n.budgetedGroups == len(n.pgroups) {
		return
	}
	n.budgetedGroups = len(n.pgroups)
	share := n.repairShareBytes()
	for _, k := range n.sortedGroupKeys() {
		if g := n.groupOf(k); g != nil {
			g.host.Replica().SetWindowBytesMax(share)
		}
	}
}

// openGroup starts the group of incarnation rev of a partition whose log
// was just opened: its superblock and journal are read, then its replica
// opens.
func (n *Node) openGroup(k partKey, rev uint64) {
	n.pgroupGen++
	g := &pgroup{key: k, rev: rev, gen: n.pgroupGen, waiting: map[uint64]pgroupWaiter{}, inflight: map[uint64]uint64{},
		receipts: partition.NewReceipts(), producers: partition.NewProducers()}
	if p := n.partMeta(k); p != nil {
		g.members, g.first = p.Members, p.FirstPrimary
	}
	writes := diskFor{n, owner{kind: ownerHostWrite, part: k, gen: g.gen}}
	g.host = group.New(group.Config{
		Name:       "partition group " + g.dir(),
		Files:      group.Files{Slots: [2]string{g.superblockPath(0), g.superblockPath(1)}, Image: g.imagePath, CreateSlots: true},
		JournalDir: g.dir(), Journal: diskFor{n, owner{kind: ownerHostJournal, part: k, gen: g.gen}},
		Images: writes, Superblocks: writes, Misc: diskFor{n, owner{kind: ownerMisc}},
		ServeImages: true, Logf: n.logf, Fatalf: n.fatal,
	}, groupMachine{n, g})
	n.pgroups[k] = g
	n.pgroupKeys = nil
	g.host.Boot(groupBooter{n, g}, g.bootDisk(n))
}

// dropGroup forgets a deleted partition's group; its files go with the
// partition's directory. Requests waiting on it get 57: their outcome is
// unknown to the client.
func (n *Node) dropGroup(k partKey) {
	g := n.pgroups[k]
	if g == nil {
		return
	}
	g.settle(n, true)
	for _, r := range g.parked { // their partition is gone: they may ask again
		if _, open := n.conns[r.w.conn.id]; open {
			n.deny(r.w.conn, r.w.header, wire.TransientNotCommitted)
		}
	}
	delete(n.pgroups, k)
	n.pgroupKeys = nil
}

// sortedGroupKeys lists the partition groups in key order (cached).
func (n *Node) sortedGroupKeys() []partKey {
	if n.pgroupKeys == nil {
		n.pgroupKeys = sortedPartKeys(n.pgroups)
	}
	return n.pgroupKeys
}

// onGroupPeer steps a peer message into a partition group.
func (n *Node) onGroupPeer(m PeerMessage) {
	if m.Group.Revision == 0 {
		// No partition has incarnation 0 (op 1 creates root): a frame that
		// names it is malformed (VSR-3).
		n.cfg.Marks.Hit("node.partition_group.incarnation_zero_refused")
		return
	}
	g := n.groupOf(partKey{m.Group.Stream, m.Group.Topic, m.Group.Partition})
	if g == nil || g.rev != m.Group.Revision {
		return // not open yet, deleted, or another incarnation: the peer retries
	}
	from, member := g.local(m.Msg.From)
	if !member || m.Msg.To != n.cfg.Replica {
		n.cfg.Marks.Hit("node.partition_group.stranger_dropped")
		return
	}
	switch m.Msg.Command {
	case vsr.CmdRequestLogData:
		n.serveLogData(g, m.Msg)
	case vsr.CmdLogData:
		n.onLogData(g, m.Msg)
	default:
		// The group numbers its members by their place among them.
		m.Msg.From, m.Msg.To = from, g.host.Replica().ID()
		g.host.Replica().Step(m.Msg)
		n.applyGroup(g)
	}
}

// tickGroups advances every open group's clock.
func (n *Node) tickGroups() {
	for _, k := range n.sortedGroupKeys() {
		if g := n.groupOf(k); g != nil {
			g.host.Replica().Tick()
			n.tickDrain(g)
			n.tickGroupInstall(g)
			n.sweepReceipts(g)
			n.applyGroup(g)
		}
	}
}

// flushGroups carries out what every group asked for after a batch of
// steps: journal writes, peer messages, superblock writes.
func (n *Node) flushGroups() {
	n.reopenDamaged()
	n.rebudgetGroups()
	for _, k := range n.sortedGroupKeys() {
		g := n.groupOf(k)
		if g == nil {
			continue
		}
		sent := len(n.ready.Peers)
		in := n.flushHost(g.host, g.id())
		for i := sent; i < len(n.ready.Peers); i++ {
			m := &n.ready.Peers[i].Msg
			m.From, m.To = g.global(m.From), g.global(m.To)
		}
		if in != nil {
			n.startGroupInstall(g, in)
		}
		g.settle(n, false)
	}
}

// settle answers 57 to the requests proposed here once this replica no
// longer leads (or the group is gone): only the primary answers commits,
// and the op may still commit elsewhere.
func (g *pgroup) settle(n *Node, gone bool) {
	if len(g.waiting) == 0 || !gone && g.leads() {
		return
	}
	for _, op := range sortedKeys(g.waiting) {
		w := g.waiting[op]
		delete(g.waiting, op)
		if _, open := n.conns[w.conn.id]; open {
			n.deny(w.conn, w.header, wire.TransientNotCommitted)
		}
	}
}

// groupStates reports the partition groups for the simulator's oracles.
func (n *Node) groupStates() []GroupState {
	var out []GroupState
	for _, k := range n.sortedGroupKeys() {
		g := n.groupOf(k)
		if g == nil {
			continue
		}
		r := g.host.Replica()
		out = append(out, GroupState{
			Group:  g.id(),
			Status: r.Status(), View: r.View(), Primary: g.leads(),
			Op: r.Op(), Commit: r.Commit(), Applied: g.applied, AppliedChecksum: g.appliedChecksum,
			Members: g.members,
		})
	}
	return out
}

func sortedKeys[V any](m map[uint64]V) []uint64 {
	return slices.Sorted(maps.Keys(m))
}

// sortedPartKeys lists a map's partition keys in order.
func sortedPartKeys[V any](m map[partKey]V) []partKey {
	keys := make([]partKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b partKey) int {
		return cmp.Or(cmp.Compare(a.stream, b.stream), cmp.Compare(a.topic, b.topic), cmp.Compare(a.partition, b.partition))
	})
	return keys
}

// id names the group to peers.
func (g *pgroup) id() GroupID {
	return GroupID{IsPartition: true, Stream: g.key.stream, Topic: g.key.topic, Partition: g.key.partition, Revision: g.rev}
}
