package vsr

import "testing"

// A backup whose acknowledgements stop arriving is pushed prepares only up
// to PrepareCreditBytesMax past what it acknowledged; the other backup gets
// every op, and commits go on with it. Once the slow backup is heard again
// it pulls what it missed, and pushes to it resume.
// covers VSR-17
func TestPrepareCreditPerBackup(t *testing.T) {
	o := defaultOptions()
	o.window = 4096
	o.checkpoint = 4 // short journal files: the simulated disk copies a file on each sync
	c := newCluster(t, o)
	var pushed [3]int
	c.onSend = func(m Message) {
		if m.Command == CmdPrepare && m.From == 0 {
			pushed[m.To]++
		}
	}
	c.net.blocked[2][0] = true // r2 hears r0, r0 never hears r2
	const ops, bodyBytes = 40, 1 << 20
	size := PrepareHeaderSize + bodyBytes
	want := PrepareCreditBytesMax / size
	primary := c.nodes[0]
	for i := range ops {
		body := make([]byte, bodyBytes)
		body[0] = byte(i)
		if _, ok := primary.r.Propose(Prepare{Kind: KindCommand, Request: uint64(i + 1), Body: body}); !ok {
			t.Fatalf("op %d refused", i+1)
		}
		primary.drain()
		for range 10 { // r1 acknowledges as it writes; r2's answers are lost
			c.tick()
		}
	}
	if pushed[1] != ops || pushed[2] != want {
		t.Fatalf("pushed %d prepares to r1, %d to r2; want %d and %d", pushed[1], pushed[2], ops, want)
	}
	for range 500 {
		if c.nodes[1].applied == ops {
			break
		}
		c.tick()
	}
	if primary.r.Commit() != ops || c.nodes[1].applied != ops {
		t.Fatalf("a slow backup throttled the others: primary commit %d, r1 applied %d", primary.r.Commit(), c.nodes[1].applied)
	}
	if r2 := c.nodes[2].r; r2.Op() != uint64(want) || c.marks["vsr.prepare.credit_exhausted"] == 0 {
		t.Fatalf("r2 holds ops up to %d, want %d", r2.Op(), want)
	}
	c.heal()
	for range 2000 {
		if c.converged() {
			break
		}
		c.tick()
	}
	if !c.converged() {
		t.Fatalf("no convergence\n%s", c.describe())
	}
	pushed = [3]int{}
	primary.propose(1)
	if pushed[1] != 1 || pushed[2] != 1 {
		t.Fatalf("after the catch-up pushed %v", pushed)
	}
	c.checkSurvived()
}
