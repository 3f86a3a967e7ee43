package node

import (
	"slices"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// Quorum evidence (QEV). A replica of a set admits a partition request
// only while it holds recent evidence that the metadata quorum it follows
// is alive, so a replica cut off from it stops serving partitions on stale
// metadata (a revoked permission, a deleted topic) even if a partition
// group's quorum is still reachable. The metadata primary probes each
// backup (vsr.CmdPing, with its commit) and counts the answers
// (vsr.CmdPong): a backup credits a probe of its current primary whose
// commit covers the head of the view it adopted and is applied locally; the
// primary credits the answers of a quorum, while it leads. Commits alone
// never renew evidence. A credit lasts EvidenceTicks from the probe it rests
// on, aged by the node's own ticks; a view or role change keeps it, a
// restart starts without one. A replica set of one needs none.

// Evidence bounds and pacing.
const (
	// evidenceTicksDefault is K = cluster.heartbeat_timeout (5 s) + 3 s.
	evidenceTicksDefault = 800
	// probeEveryTicks paces the primary's probes.
	probeEveryTicks = 100
	// probeRetryTicks: a probe unanswered this long is sent again (the same
	// probe: a backup is advertised a new one only after it answered).
	probeRetryTicks = 200
)

// evidence is the node's quorum evidence and its probe state.
type evidence struct {
	until uint64 // partition requests are admitted while now < until
	// The primary's side: the probe number and send tick outstanding to
	// each backup (0: answered), and the send tick of the newest answered.
	seq        uint64
	sentSeq    [vsr.ReplicasMax]uint64
	sentAt     [vsr.ReplicasMax]uint64
	answeredAt [vsr.ReplicasMax]uint64
	probeAt    uint64 // next probe round
	// The backup's side: when the previous credited probe arrived, so a
	// delayed probe cannot stretch a credit past K (QEV-11).
	lastProbeAt uint64
}

func (n *Node) evidenceTicks() uint64 {
	if n.cfg.EvidenceTicks != 0 {
		return n.cfg.EvidenceTicks
	}
	return evidenceTicksDefault
}

// admitsPartitionRequests: a replica of a set holds current evidence.
func (n *Node) admitsPartitionRequests() bool {
	return !n.cfg.clustered() || n.now.Ticks < n.ev.until
}

// denyWithoutEvidence answers 58 to a partition request without evidence,
// before the namespace is looked up or the caller authorized (QEV-1, QEV-3).
func (n *Node) denyWithoutEvidence(c *conn, h wire.RequestHeader) bool {
	if n.admitsPartitionRequests() {
		return false
	}
	n.deny(c, h, wire.TransientNotAccepted)
	return true
}

// tickEvidence sends the primary's probes and renews its credit from the
// answers of a quorum.
func (n *Node) tickEvidence() {
	if n.mg.Replica() == nil || !n.leading() {
		return
	}
	now := n.now.Ticks
	if now >= n.ev.probeAt {
		n.ev.probeAt = now + probeEveryTicks
		n.ev.seq++
		for to := range n.cfg.Replicas {
			if to != n.cfg.Replica && (n.ev.sentAt[to] == 0 || now-n.ev.sentAt[to] >= probeRetryTicks) {
				n.probe(to, now)
			}
		}
	}
	n.creditPrimary()
}

func (n *Node) probe(to uint8, now uint64) {
	if n.ev.sentAt[to] == 0 { // a new probe; an unanswered one is resent as it was
		n.ev.sentSeq[to], n.ev.sentAt[to] = n.ev.seq, now
	}
	n.ready.Peers = append(n.ready.Peers, PeerMessage{Msg: vsr.Message{Command: vsr.CmdPing, From: n.cfg.Replica, To: to,
		View: n.mg.Replica().View(), Op: n.ev.sentSeq[to], Commit: n.mg.Replica().Commit()}})
}

// creditPrimary: the newest probes a quorum answered (the primary counts
// itself, now) were sent at t; the credit runs from t.
func (n *Node) creditPrimary() {
	sent := make([]uint64, 0, n.cfg.Replicas)
	for i := range n.cfg.Replicas {
		if i != n.cfg.Replica && n.ev.answeredAt[i] > 0 {
			sent = append(sent, n.ev.answeredAt[i])
		}
	}
	need := int(n.cfg.Replicas)/2 + 1 - 1 // a quorum, the primary included
	if len(sent) < need {
		return
	}
	slices.Sort(sent)
	n.ev.until = max(n.ev.until, sent[len(sent)-need]+n.evidenceTicks())
}

// onProbe: a backup credits a probe of its current primary whose commit
// covers the head of the view it adopted and is applied here (QEV-5), and
// answers it.
func (n *Node) onProbe(m vsr.Message) {
	r := n.mg.Replica()
	if m.From != r.Primary() || m.View != r.View() || r.Status() != vsr.StatusNormal {
		return
	}
	sb := n.mg.Superblock()
	if sb.LogView == m.View && m.Commit >= sb.LogHeadOp && m.Commit <= n.applied {
		from := n.ev.lastProbeAt
		if from == 0 {
			from = n.now.Ticks
		}
		n.ev.until = max(n.ev.until, from+n.evidenceTicks())
		n.ev.lastProbeAt = n.now.Ticks
	}
	n.ready.Peers = append(n.ready.Peers, PeerMessage{Msg: vsr.Message{Command: vsr.CmdPong, From: n.cfg.Replica, To: m.From,
		View: m.View, Op: m.Op, Data: n.readinessReport(m.Commit)}})
}

// onProbeAnswer: the primary counts a backup's answer to its newest probe.
func (n *Node) onProbeAnswer(m vsr.Message) {
	if !n.leading() || m.View != n.mg.Replica().View() || m.From >= n.cfg.Replicas || m.From == n.cfg.Replica {
		return
	}
	n.onReport(m.From, m.Data)
	if m.Op != n.ev.sentSeq[m.From] || n.ev.sentAt[m.From] == 0 {
		return
	}
	n.ev.answeredAt[m.From] = n.ev.sentAt[m.From]
	n.ev.sentAt[m.From] = 0
	n.creditPrimary()
}
