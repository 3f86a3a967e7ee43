package vsr

import "testing"

// settle ticks the cluster until it converges.
func (c *cluster) settle(t *testing.T, ticks int) {
	t.Helper()
	for range ticks {
		if c.converged() {
			return
		}
		c.tick()
	}
	for _, n := range c.nodes {
		if n.r != nil {
			t.Logf("r%d sync %+v transfer active=%v applied=%d", n.id, n.r.sync, n.r.transfer.active, n.applied)
		}
	}
	t.Fatalf("no convergence after %d ticks\n%s", ticks, c.describe())
}

// A backup holding view-0 prepares that never committed adopts view 1,
// whose log has another prepare at the same op. Between the start_view and
// the superblock naming the new log, commit messages of view 1 cover that
// op: the backup commits nothing until the view's log is its own, and then
// commits the view-1 prepare, never its stale one.
// covers VSR-24
func TestNoStaleCommitAfterNewView(t *testing.T) {
	c := newCluster(t, defaultOptions())
	c.nodes[0].propose(10)
	c.settle(t, 2000)
	c.net.blocked[0][1], c.net.blocked[2][0] = true, true // only r2 takes r0's next ops, unacknowledged
	for range 2 {                                         // one at a time: r2 cannot repair a gap from r0
		c.nodes[0].propose(1)
		c.run(10, 0)
	}
	n := c.nodes[2]
	r := n.r
	if r.Op() != 12 || r.Commit() != 10 {
		t.Fatalf("r2 op %d commit %d, want 12, 10", r.Op(), r.Commit())
	}
	c.forged = true // r1's view 1 is played by hand below
	parent, _ := r.log.checksumAt(10)
	p := Prepare{Op: 11, View: 1, Kind: KindCommand, Request: 99, Body: []byte("view 1")}
	Seal(&p)
	r.Step(Message{Command: CmdStartView, From: 1, To: 2, View: 1, Op: 11, Checksum: p.Checksum, Commit: 11,
		Parent: parent, Prepares: []Prepare{p}})
	for range 3 {
		r.Step(Message{Command: CmdCommit, From: 1, To: 2, View: 1, Op: 11, Checksum: p.Checksum, Commit: 11})
		r.Step(Message{Command: CmdCommit, From: 1, To: 2, View: 1, Op: 12, Checksum: p.Checksum, Commit: 12})
		if r.Commit() != 10 || len(r.TakeCommitted()) != 0 {
			t.Fatalf("r2 committed up to %d before adopting view 1's log", r.Commit())
		}
	}
	for range 200 { // r2 alone: its disk, its superblock, its ticks
		for comp, ok := n.disk.Next(); ok; comp, ok = n.disk.Next() {
			n.complete(comp)
		}
		r.Tick()
		n.drain()
	}
	got, _ := r.log.get(11)
	if r.View() != 1 || r.LogView() != 1 || r.Op() != 11 || r.Commit() != 11 || n.applied != 11 ||
		n.appliedChecksum != p.Checksum || got.View != 1 {
		t.Fatalf("r2 view %d log view %d op %d commit %d applied %d (%x, want %x)",
			r.View(), r.LogView(), r.Op(), r.Commit(), n.applied, n.appliedChecksum, p.Checksum)
	}
}

// Repair requests name a non-empty range of at most repairOpsMax ops from
// op 1 on; the harness fails any run that sends another (every scenario
// and random cluster checks it). Here: repairs of every kind, and a peer's
// inverted request, which is answered with nothing.
// covers VSR-29
func TestRepairRangesNeverInverted(t *testing.T) {
	var asked int
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6, 7, 8} {
		o := defaultOptions()
		o.seed, o.window, o.checkpoint, o.loss = seed, 64, 16, 0.05
		c := newCluster(t, o)
		c.onSend = func(m Message) {
			if m.Command == CmdRequestPrepares {
				asked++
			}
		}
		c.nodes[0].propose(20)
		c.settle(t, 3000)
		c.crash(2, true)
		c.partition([]uint8{1}, []uint8{0})
		c.run(300, 1) // r0 can commit with nobody: r2 is down, r1 cut off
		c.heal()
		c.restart(2)
		c.run(900, 1) // r1 and r2 repair, r2 perhaps by state transfer
		c.crash(0, true)
		c.settle(t, 6000)
		c.restart(0)
		c.settle(t, 6000)
		c.checkSurvived()
	}
	if asked == 0 {
		t.Fatal("no repair was requested")
	}
	c := newCluster(t, defaultOptions())
	c.nodes[0].propose(10)
	c.settle(t, 2000)
	r := c.nodes[1].r
	r.Step(Message{Command: CmdRequestPrepares, From: 2, To: 1, View: 0, Op: 8, Last: 3})
	if rd := r.TakeReady(); len(rd.Messages) != 0 {
		t.Fatalf("answered an inverted range: %+v", rd.Messages)
	}
}

// A primary hands its group to a replica two views ahead: the backups
// follow its vote, the target becomes primary with every committed op, and
// the old primary is a backup.
// covers PLACE-12, PLACE-22
func TestHandOffToAChosenReplica(t *testing.T) {
	o := defaultOptions()
	o.replicas = 5
	c := newCluster(t, o)
	c.settle(t, 2000)
	from, ok := c.primary()
	if !ok {
		t.Fatal("no primary")
	}
	c.nodes[from].propose(20)
	c.settle(t, 4000)
	to := (from + 3) % 5
	if c.nodes[to].r.HandOff(0) || !c.nodes[from].r.HandOff(to) {
		t.Fatal("a backup handed off, or the primary refused")
	}
	c.settle(t, 4000)
	if p, ok := c.primary(); !ok || p != to {
		t.Fatalf("primary %d (%v), want %d", p, ok, to)
	}
	if r := c.nodes[to].r; r.Commit() < 20 || r.View()%5 != uint32(to) {
		t.Fatalf("new primary view %d commit %d", r.View(), r.Commit())
	}
	if c.nodes[from].r.IsPrimary() {
		t.Fatal("the old primary still leads")
	}
}
