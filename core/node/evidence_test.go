package node_test

import (
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// evidenceTicks is K = cluster.heartbeat_timeout (5 s) + 3 s in 10 ms ticks.
const evidenceTicks = 800

// evidenceMarginTicks is how far from K = 800 ticks the lifetime test
// looks on either side: a probe's credit starts when it was sent, a tick
// or two before its answer is seen.
const evidenceMarginTicks = 30

// covers QEV-1, QEV-2, QEV-3, QEV-6
// With the metadata primary's probes lost, commits alone keep flowing but
// renew no evidence: once the credit of the last answered probes ran out
// (K = 8 s, 800 ticks, give or take evidenceMarginTicks), every replica
// answers partition requests 58, the primary included, and before looking
// the stream up (a poll of a stream that does not exist is 58, not 1009).
// Probes again, and it serves.
func TestClusterPartitionRequestsNeedEvidence(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	meta := c.client(2) // on the metadata primary, whose lookups are current
	meta.connect(0)
	mustOK(t, meta.login())
	mustOK(t, sent(cl.send("s", "t", 1)))
	// The credit of the replica serving cl starts at the newest probe a
	// quorum answered (the metadata primary) or at the probe before the
	// newest it got (a backup: a late probe cannot stretch it, QEV-11).
	dropping, probes, answered := false, map[int][]uint64{}, uint64(0)
	c.drop = func(m node.PeerMessage) bool {
		probe := m.Msg.Command == vsr.CmdPing || m.Msg.Command == vsr.CmdPong
		switch {
		case dropping:
		case m.Msg.Command == vsr.CmdPing:
			probes[int(m.Msg.To)] = append(probes[int(m.Msg.To)], c.ticks)
		case m.Msg.Command == vsr.CmdPong:
			answered = c.ticks
		}
		return probe && dropping
	}
	for range 300 {
		c.round()
	}
	dropping = true
	creditStart := func(host int) uint64 {
		if host == c.primary() {
			return answered
		}
		return probes[host][len(probes[host])-2]
	}
	for c.ticks < creditStart(cl.host)+evidenceTicks-evidenceMarginTicks {
		c.round()
	}
	mustOK(t, sent(cl.send("s", "t", 1))) // the credit still runs
	for c.ticks < max(creditStart(cl.host), creditStart(meta.host))+evidenceTicks+evidenceMarginTicks {
		c.round()
	}
	if code, _ := cl.send("s", "t", 1); code != wire.TransientNotAccepted {
		t.Fatalf("send without evidence: %s, want 58", code.Name())
	}
	if code, _, _ := meta.poll("nope", "t", 1); code != wire.TransientNotAccepted {
		t.Fatalf("poll of a missing stream without evidence: %s, want 58", code.Name())
	}
	c.drop = nil
	c.until("evidence again", func() bool { code, _ := cl.send("s", "t", 1); return code == wire.OK })
	if code, _, _ := meta.poll("nope", "t", 1); code != wire.StreamIdNotFound {
		t.Fatalf("poll of a missing stream with evidence: %s", code.Name())
	}
}

// covers QEV-9
// A replica set of one needs no evidence: its partition requests are
// served at once after boot, with no peer to probe.
func TestStandaloneNeedsNoEvidence(t *testing.T) {
	c := newTestCluster(t, 1, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.client(1)
	cl.connect(0)
	mustOK(t, cl.login())
	mustOK(t, cl.createStream("s", false))
	cl.createTopic("s", "t")
	if code, base := cl.send("s", "t", 2); code != wire.OK || base != 0 {
		t.Fatalf("send: %s at %d", code.Name(), base)
	}
}

// covers QEV-10
// A backup that never answers is advertised no new probe: the primary
// sends it the same probe again, and new ones go only to backups that
// answered their last.
func TestProbeAdvertisedAfterAnswer(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	probes := map[uint8]map[uint64]bool{1: {}, 2: {}}
	c.drop = func(m node.PeerMessage) bool {
		if m.Msg.Command == vsr.CmdPing {
			probes[m.Msg.To][m.Msg.Op] = true
		}
		return m.Msg.Command == vsr.CmdPong && m.Msg.From == 1 // replica 1's answers are lost
	}
	for range 1000 {
		c.round()
	}
	if len(probes[1]) != 1 || len(probes[2]) < 5 {
		t.Fatalf("probe numbers sent to the silent backup %v, to the answering one %d", probes[1], len(probes[2]))
	}
}

// covers QEV-8
// A restarted replica starts without credit: its partition requests get
// 58 (not the 89 of a replica that is not the partition's primary) until
// a probe of its primary arrives after the restart, although it held a
// credit that had not run out when it stopped.
func TestRestartedReplicaWaitsForEvidence(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	mustOK(t, sent(cl.send("s", "t", 1)))
	b := c.backupOf(c.primary(), 1)
	if b == cl.host {
		b = c.backupOf(c.primary(), 2)
	}
	other := c.client(2)
	other.connect(b)
	mustOK(t, other.login())
	c.until("credit before the restart", func() bool { return other.pollCode() == wire.NotPrimary })
	c.stop(b, false)
	c.start(b)
	probesLost := true
	c.drop = func(m node.PeerMessage) bool { return probesLost && m.Msg.Command == vsr.CmdPing && int(m.Msg.To) == b }
	c.until("the restarted replica caught up", func() bool { return c.converged(1) })
	other.connect(b)
	c.until("a session after the restart", func() bool { return other.login() == wire.OK })
	if code := other.pollCode(); code != wire.TransientNotAccepted {
		t.Fatalf("partition request on a restarted replica without a probe: %s, want 58", code.Name())
	}
	probesLost = false
	c.until("evidence again", func() bool { return other.pollCode() == wire.NotPrimary })
}

// covers QEV-12
// Once the metadata primary stops probing (its probes lost), every backup
// stops admitting partition requests no later than the primary does, and
// at most one probe interval before it.
func TestBackupsStopAdmittingNoLaterThanPrimary(t *testing.T) {
	c, clients := probesLostWithCredit(t)
	stopped := map[int]uint64{}
	for len(stopped) < 3 {
		for i, cl := range clients {
			if _, done := stopped[i]; !done && cl.pollCode() == wire.TransientNotAccepted {
				stopped[i] = c.ticks
			}
		}
		c.round()
	}
	p := c.primary()
	t.Logf("stopped admitting at ticks %v (primary %d)", stopped, p)
	for i := range clients {
		if i != p && (stopped[i] > stopped[p] || stopped[p]-stopped[i] > probeEveryTicks+evidenceMarginTicks) {
			t.Fatalf("backup %d stopped admitting at tick %d, the primary at %d", i, stopped[i], stopped[p])
		}
	}
}

// probesLostWithCredit starts a set of three with a partition, a client
// logged in on every replica, and credit everywhere; then every probe and
// answer is lost.
func probesLostWithCredit(t *testing.T) (*testCluster, []*cclient) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	mustOK(t, sent(c.partitionClient().send("s", "t", 1)))
	clients := make([]*cclient, 3)
	for i := range clients {
		clients[i] = c.client(uint64(10 + i))
		clients[i].connect(i)
		mustOK(t, clients[i].login())
	}
	for range 300 {
		c.round()
	}
	c.drop = func(m node.PeerMessage) bool { return m.Msg.Command == vsr.CmdPing || m.Msg.Command == vsr.CmdPong }
	return c, clients
}

// probeEveryTicks is the metadata primary's probe interval (evidence.go).
const probeEveryTicks = 100

// pollCode polls partition 0 of s/t and returns the outcome's code.
func (cl *cclient) pollCode() wire.Code {
	code, _, _ := cl.poll("s", "t", 1)
	return code
}

// covers QEV-7
// A view change keeps the credit a replica held, without restarting its
// lifetime: with every probe lost from some tick on, the metadata primary
// is stopped; once both groups have a new primary (some 500 ticks later,
// within K) the survivors still admit partition requests on the credit
// they had, and stop admitting by K after the probes were lost, as they
// would have without the view change.
func TestViewChangeKeepsCredit(t *testing.T) {
	c, clients := probesLostWithCredit(t)
	lostAt, old := c.ticks, c.primary()
	c.stop(old, false)
	c.until("a new metadata primary", func() bool { p := c.primary(); return p >= 0 && p != old })
	c.partitionPrimary()
	if c.ticks-lostAt >= evidenceTicks-evidenceMarginTicks {
		t.Fatalf("the view change took %d ticks, past the credit", c.ticks-lostAt)
	}
	for i, cl := range clients {
		if i != old {
			if code := cl.pollCode(); code == wire.TransientNotAccepted {
				t.Fatalf("replica %d lost its credit in the view change (%d ticks after the last probe)", i, c.ticks-lostAt)
			}
		}
	}
	for c.ticks < lostAt+evidenceTicks+evidenceMarginTicks {
		c.round()
	}
	for i, cl := range clients {
		if i != old {
			if code := cl.pollCode(); code != wire.TransientNotAccepted {
				t.Fatalf("replica %d still admits %d ticks after the last probe: %s", i, c.ticks-lostAt, code.Name())
			}
		}
	}
}

// covers QEV-5
// A backup without credit (restarted, its primary's probes lost) credits
// neither a probe from a replica that is not its primary nor one of its
// primary whose commit it has not applied or that falls short of the head
// of the view it adopted; a probe of its primary whose commit it applied
// gives it credit.
func TestBackupCreditsOnlyCurrentPrimaryProbes(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	mustOK(t, sent(c.partitionClient().send("s", "t", 1)))
	mp := c.primary()
	b, other := c.backupOf(mp, 1), c.backupOf(mp, 2)
	c.stop(b, false)
	c.start(b)
	c.drop = func(m node.PeerMessage) bool { return m.Msg.Command == vsr.CmdPing && int(m.Msg.To) == b }
	c.until("the restarted replica caught up", func() bool { return c.converged(1) })
	cl := c.client(2)
	cl.connect(b)
	c.until("a session", func() bool { return cl.login() == wire.OK })
	g := c.hosts[b].n.Groups()[0]
	probe := func(from int, commit uint64) wire.Code {
		c.hosts[b].n.Step(node.PeerMessage{Msg: vsr.Message{Command: vsr.CmdPing, From: uint8(from), To: uint8(b),
			View: g.View, Op: 1, Commit: commit}})
		return cl.pollCode()
	}
	for _, p := range []struct {
		from   int
		commit uint64
		what   string
	}{
		{other, g.Applied, "a replica that is not the primary"},
		{mp, g.Applied + 1000, "a commit not applied here"},
		{mp, 0, "a commit short of the adopted view's head"},
	} {
		if code := probe(p.from, p.commit); code != wire.TransientNotAccepted {
			t.Fatalf("credited a probe from %s: %s", p.what, code.Name())
		}
	}
	if code := probe(mp, c.hosts[b].n.Groups()[0].Applied); code == wire.TransientNotAccepted {
		t.Fatal("a probe of the primary with an applied commit gave no credit")
	}
}

// covers QEV-11
// A delayed probe cannot stretch a backup's credit: a backup's credit runs
// from the arrival of the probe before the one it credits, so a probe held
// back 300 ticks and then delivered (no later probe arriving) leaves it
// admitting no longer than K after the last probe that arrived on time.
func TestDelayedProbeDoesNotExtendCredit(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	mustOK(t, sent(c.partitionClient().send("s", "t", 1)))
	b := c.backupOf(c.primary(), 1)
	cl := c.client(2)
	cl.connect(b)
	mustOK(t, cl.login())
	for range 300 {
		c.round()
	}
	var held *vsr.Message
	var onTimeAt uint64
	c.drop = func(m node.PeerMessage) bool {
		if m.Msg.Command != vsr.CmdPing || int(m.Msg.To) != b {
			return false
		}
		if held == nil && onTimeAt != 0 {
			msg := m.Msg
			held = &msg
		}
		if onTimeAt == 0 {
			onTimeAt = c.ticks // this one still arrives
			return false
		}
		return true
	}
	c.until("a probe held back", func() bool { return held != nil })
	for range 300 {
		c.round()
	}
	c.hosts[b].n.Step(node.PeerMessage{Msg: *held})
	for cl.pollCode() != wire.TransientNotAccepted {
		c.round()
	}
	if c.ticks > onTimeAt+evidenceTicks+evidenceMarginTicks {
		t.Fatalf("admitted until %d ticks after the last probe on time", c.ticks-onTimeAt)
	}
}

// covers QEV-4
// A metadata primary that is no longer ready (cut off, it stepped down and
// votes for a later view) credits no answer to its probes: answers to its
// outstanding probes, in its old view and in the view it now votes for,
// leave its credit where it was. While it leads, the same kind of answer
// renews the credit (the control that keeps the check from passing vacuously).
func TestPrimaryCreditsProbesOnlyWhileReady(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	p := c.primary()
	probes := map[uint8]uint64{} // the newest probe number sent to each backup
	unanswered := false
	c.drop = func(m node.PeerMessage) bool {
		if m.Msg.Command == vsr.CmdPing && int(m.Msg.From) == p {
			probes[m.Msg.To] = m.Msg.Op
		}
		return unanswered && m.Msg.Command == vsr.CmdPong && int(m.Msg.To) == p
	}
	for range 300 {
		c.round()
	}
	pn := c.hosts[p].n
	before := pn.EvidenceUntil()
	for range 2 * probeEveryTicks {
		c.round()
	}
	if pn.EvidenceUntil() <= before {
		t.Fatalf("a leading primary's credit did not grow with answered probes: %d, then %d", before, pn.EvidenceUntil())
	}
	// The newest probes stay outstanding: they are resent as they were,
	// so the numbers recorded are the ones an answer must carry.
	unanswered = true
	for range 2 * probeEveryTicks {
		c.round()
	}
	led := pn.Groups()[0].View
	c.isolate(p, true)
	c.until("the cut-off primary stepping down", func() bool {
		g := pn.Groups()[0]
		return !g.Primary && g.Status != vsr.StatusNormal
	})
	held := pn.EvidenceUntil()
	view := pn.Groups()[0].View
	for to, seq := range probes {
		for _, v := range []uint32{led, view} {
			pn.Step(node.PeerMessage{Msg: vsr.Message{Command: vsr.CmdPong, From: to, To: uint8(p), View: v, Op: seq}})
		}
	}
	c.round()
	if got := pn.EvidenceUntil(); got != held {
		t.Fatalf("a primary that is not ready credited answers: until %d, was %d", got, held)
	}
}
