package node

import (
	"cmp"
	"slices"

	"github.com/iggygo/iggy/wire"
)

// A replica of a set whose read of a partition log finds a bad record (it
// rotted at rest, and a boot's scan of the tail after the last index entry
// did not see it) opens the log and its group again: the log is checked
// whole (RecoverFully) and cut at the first bad record, and the group,
// finding its checkpoint past the log's end, fetches the cut messages from
// a peer before it applies more (refetch). Every replica's log holds the
// same bytes, so the peer's copy is the lost one.

// noteDamaged marks partition k for reopening at the end of the step: the
// log that found the bad record is still delivering its events.
func (n *Node) noteDamaged(k partKey) {
	if n.cfg.clustered() && n.groupOf(k) != nil && !slices.Contains(n.damaged, k) {
		n.damaged = append(n.damaged, k)
	}
}

// reopenDamaged reopens the partitions noted damaged.
func (n *Node) reopenDamaged() {
	for _, k := range n.damaged {
		g := n.pgroups[k]
		if g == nil {
			continue // deleted meanwhile
		}
		n.logf("partition %s: a read found a bad record; the whole log is checked, cut there, and the rest fetched from a peer", partitionDir(k))
		n.abandonWrites(k)
		rev := g.rev
		n.closePartition(k)
		n.openPartition(k).RecoverFully(rev)
		n.openGroup(k, rev)
	}
	n.damaged = n.damaged[:0]
}

// abandonWrites answers 57 to the writes and polls the closing log still
// owed (their outcome is the group's, which may still commit them).
func (n *Node) abandonWrites(k partKey) {
	var keys []writeKey
	for wk := range n.writes {
		if wk.part == k {
			keys = append(keys, wk)
		}
	}
	slices.SortFunc(keys, func(a, b writeKey) int { return cmp.Compare(a.token, b.token) })
	for _, wk := range keys {
		p := n.writes[wk]
		delete(n.writes, wk)
		n.settleReceipt(k, p, wire.TransientNotCommitted)
		if p.replied {
			continue
		}
		if _, open := n.conns[p.conn.id]; open {
			n.deny(p.conn, p.header, wire.TransientNotCommitted)
		}
	}
	for _, id := range sortedKeys(n.polls) {
		if p := n.polls[id]; p.part == k {
			delete(n.polls, id)
			if p.conn != nil {
				if _, open := n.conns[p.conn.id]; open {
					n.deny(p.conn, p.header, wire.TransientNotCommitted)
				}
			}
		}
	}
}
