package node

import (
	"sort"
	"strconv"

	"github.com/iggygo/iggy/core/metadata"
)

// onTick runs time-driven work: retention of every partition log.
func (n *Node) onTick() {
	if n.startMicros == 0 {
		n.startMicros = n.now.NowMicros
	}
	if n.isHost() {
		n.hostTick()
		return
	}
	if n.mg.Replica() != nil {
		n.mg.Replica().Tick()
		n.applyCommitted()
	}
	if n.boot == nil || n.boot.phase != bootDone {
		return
	}
	if n.cfg.clustered() {
		n.tickGroups()
		n.tickEvidence()
		n.tickReadiness()
		n.tickRebalance()
	}
	n.expireForwards()
	n.tickParked()
	n.tickFetches()
	n.tickLogins()
	n.evictStale()
	n.tickLeases()
	n.cleanTokens()
	n.rotateKeys()
	n.retryWrites()
	if n.now.Ticks%retentionEveryTicks != 0 {
		return
	}
	for _, k := range n.sortedPartitionKeys() {
		n.partitions[k].Tick(n.now.NowMicros)
		n.drainEvents(k)
	}
}

// retentionEveryTicks spaces retention sweeps (one second at 10 ms ticks).
const retentionEveryTicks = 100

func (n *Node) sortedConns() []*conn {
	out := make([]*conn, 0, len(n.conns))
	for _, c := range n.conns {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// sortedPartitionKeys is the partition keys in order, cached until the set
// changes: every TakeReady walks them, and sorting each time cost a fifth of
// the simulator's cluster runs. Callers only read the slice.
func (n *Node) sortedPartitionKeys() []partKey {
	if n.partKeys != nil || len(n.partitions) == 0 {
		return n.partKeys
	}
	n.partKeys = sortedPartKeys(n.partitions)
	return n.partKeys
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

// rootCommand is op 1 of every journal: the creation of root.
func rootCommand(r *RootCredentials) metadata.Command {
	return &metadata.CreateUser{Username: r.Username, PasswordHash: r.PasswordHash, Status: metadata.UserActive}
}

// isRootCommand checks that an op-1 body creates a user (which, as op 1, gets id 0).
func isRootCommand(body []byte) bool {
	cmd, err := metadata.Decode(body)
	if err != nil {
		return false
	}
	c, ok := cmd.(*metadata.CreateUser)
	return ok && c.Username != "" && c.PasswordHash != ""
}
