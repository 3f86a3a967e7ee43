package node

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/iggygo/iggy/core/vsr"
)

// Readiness (PLACE-4..7). The metadata primary probes every other replica
// once a second (the quorum evidence probe, evidence.go); each answer
// carries the replica's readiness report: whether it is ready (booted, its
// metadata caught up with the probe: a node still recovering is not, and
// gets no new primaries, PLACE-6) and,
// for every partition group it runs, the group's view, whether it leads
// it, its commit and what it applied. A replica whose metadata is more
// than readyLagOpsMax behind the probe is not ready. The reports tell the primary which
// replicas are responsive, who leads each partition now, and whether a
// move's source and target are caught up (rebalance.go).

// Readiness bounds and pacing.
const (
	// readyFreshTicks: a report older than this no longer counts (two
	// probe rounds and a half: one lost answer is not a failure).
	readyFreshTicks = 2*probeEveryTicks + probeEveryTicks/2
	// reportGroupsMax bounds the groups one report names; a replica with
	// more reports the first ones in key order.
	reportGroupsMax = 1 << 14
	// reportGroupBytes is one group's entry: stream, topic, partition (u32
	// each), revision u64, view u32, flags u8, commit and applied u64.
	reportGroupBytes  = 41
	reportHeaderBytes = 5 // ready u8, count u32
	// ownReportEveryTicks paces the primary's report of its own groups.
	ownReportEveryTicks = 10
	// readyLagOpsMax: a replica within this many metadata ops of the
	// probe's commit is ready. Logins are metadata writes, so with clients
	// coming and going a backup is always an op or two behind the commit
	// a probe carries; one recovering is far behind, or does not answer.
	readyLagOpsMax = 64
)

// Report flag bits.
const (
	reportLeads  = 1 << 0 // the replica leads the group in normal status
	reportNormal = 1 << 1 // the group is in normal status, not installing
)

// placement is the node's placement state: on the metadata primary, the
// replicas' reports, the ready set and the move in flight; on every
// replica, nothing else (drains live on their groups).
type placement struct {
	reports    [vsr.ReplicasMax]nodeReport
	readySet   uint32
	readySince uint64 // tick since which readySet has not changed
	leadSince  uint64 // tick this node began leading; 0: it does not
	// pending are the primaries given by creates proposed and not yet
	// applied, by op (PLACE-3).
	pending map[uint64][]uint8
	move    *pendingMove
}

// nodeReport is one replica's last report.
type nodeReport struct {
	at     uint64 // tick it arrived; 0: none
	ready  bool
	groups map[partKey]groupReport
}

// groupReport is one partition group as a member reported it.
type groupReport struct {
	rev             uint64
	view            uint32
	flags           uint8
	commit, applied uint64
}

// readinessReport is this replica's report, the data of its probe answer.
func (n *Node) readinessReport(probeCommit uint64) []byte {
	ready := n.boot.phase == bootDone && probeCommit <= n.applied+readyLagOpsMax
	keys := n.sortedGroupKeys()
	b := make([]byte, reportHeaderBytes, reportHeaderBytes+min(len(keys), reportGroupsMax)*reportGroupBytes)
	count := uint32(0)
	for _, k := range keys {
		g := n.groupOf(k)
		if g == nil || count == reportGroupsMax {
			continue
		}
		r, flags := g.host.Replica(), uint8(0)
		if g.leads() {
			flags |= reportLeads
		}
		if r.Status() == vsr.StatusNormal && g.installing == nil && g.logReady {
			flags |= reportNormal // else the group recovers: no move to or from it (PLACE-13)
		}
		b = binary.LittleEndian.AppendUint32(b, k.stream)
		b = binary.LittleEndian.AppendUint32(b, k.topic)
		b = binary.LittleEndian.AppendUint32(b, k.partition)
		b = binary.LittleEndian.AppendUint64(b, g.rev)
		b = binary.LittleEndian.AppendUint32(b, r.View())
		b = append(b, flags)
		b = binary.LittleEndian.AppendUint64(b, r.Commit())
		b = binary.LittleEndian.AppendUint64(b, g.applied)
		count++
	}
	if ready {
		b[0] = 1
	}
	binary.LittleEndian.PutUint32(b[1:], count)
	return b
}

var errBadReport = errors.New("malformed readiness report")

// decodeReport parses a readiness report; anything but its exact layout is
// refused whole.
func decodeReport(b []byte) (nodeReport, error) {
	if len(b) < reportHeaderBytes || b[0] > 1 {
		return nodeReport{}, errBadReport
	}
	count := binary.LittleEndian.Uint32(b[1:])
	if count > reportGroupsMax || uint64(len(b)) != reportHeaderBytes+uint64(count)*reportGroupBytes {
		return nodeReport{}, errBadReport
	}
	rep := nodeReport{ready: b[0] == 1, groups: make(map[partKey]groupReport, count)}
	for i := range int(count) {
		e := b[reportHeaderBytes+i*reportGroupBytes:]
		k := partKey{binary.LittleEndian.Uint32(e), binary.LittleEndian.Uint32(e[4:]), binary.LittleEndian.Uint32(e[8:])}
		rep.groups[k] = groupReport{
			rev: binary.LittleEndian.Uint64(e[12:]), view: binary.LittleEndian.Uint32(e[20:]), flags: e[24],
			commit: binary.LittleEndian.Uint64(e[25:]), applied: binary.LittleEndian.Uint64(e[33:]),
		}
	}
	return rep, nil
}

// onReport keeps a replica's report from its probe answer.
func (n *Node) onReport(from uint8, data []byte) {
	rep, err := decodeReport(data)
	if err != nil {
		n.cfg.Marks.Hit("node.placement.report_malformed")
		return
	}
	rep.at = n.now.Ticks
	n.place.reports[from] = rep
}

// report is replica r's fresh report (this node's own is refreshed every
// ownReportEveryTicks while it leads), or false.
func (n *Node) report(r uint8) (nodeReport, bool) {
	rep := n.place.reports[r]
	return rep, rep.at > 0 && n.now.Ticks-rep.at <= readyFreshTicks
}

// readyNow is the set of replicas whose fresh report says ready; the
// primary itself is ready while it leads.
func (n *Node) readyNow() uint32 {
	set := uint32(1) << n.cfg.Replica
	for r := range n.cfg.Replicas {
		if rep, ok := n.report(r); ok && rep.ready && r != n.cfg.Replica {
			set |= 1 << r
		}
	}
	return set
}

// readinessKnown: the primary has led through a probe round and its
// answers (PLACE-4); before that, every replica is eligible (PLACE-5).
func (n *Node) readinessKnown() bool {
	return n.place.leadSince > 0 && n.now.Ticks-n.place.leadSince >= probeRetryTicks
}

// eligibleSet is the replicas that may get new primaries; 0: all of them.
func (n *Node) eligibleSet() uint32 {
	if !n.cfg.clustered() || !n.readinessKnown() {
		return 0
	}
	return n.place.readySet
}

// tickReadiness follows the ready set on the metadata primary; anyone else
// forgets what it knew as primary.
func (n *Node) tickReadiness() {
	if !n.leading() {
		n.place = placement{}
		return
	}
	now := n.now.Ticks
	if n.place.leadSince == 0 || now%ownReportEveryTicks == 0 {
		n.onReport(n.cfg.Replica, n.readinessReport(n.applied))
	}
	if n.place.leadSince == 0 {
		n.place.leadSince, n.place.readySince = now, now
	}
	if set := n.readyNow(); set != n.place.readySet {
		n.place.readySet, n.place.readySince = set, now
		n.logf("readiness: replicas %s ready", replicaSet(set))
	}
}

// stableMajority: the ready set has not changed for the stability window
// and holds a majority (PLACE-8).
func (n *Node) stableMajority() bool {
	return n.readinessKnown() && n.now.Ticks-n.place.readySince >= rebalanceStableTicks &&
		bits.OnesCount32(n.place.readySet) >= int(n.cfg.Replicas)/2+1
}

// replicaSet lists the replica ids of a set, for logs.
func replicaSet(set uint32) string {
	var ids []int
	for r := range vsr.ReplicasMax {
		if set&(1<<r) != 0 {
			ids = append(ids, r)
		}
	}
	return fmt.Sprint(ids)
}
