package vsr

import (
	"fmt"
	"testing"

	"github.com/iggygo/iggy/io/storage"
)

// A standalone replica commits an op when its prepare is durable locally;
// Replicated is its own completed write, Persisted and Quorum its sync.
// covers VSR-1
func TestStandaloneDurability(t *testing.T) {
	jd := newJDisk()
	jr := OpenJournal(jd, "j", nil, 0, 0)
	r := NewReplica(jr, 0, 0)
	if r.Status() != StatusNormal || !r.IsPrimary() || r.Primary() != 0 {
		t.Fatalf("status %s primary %v", r.Status(), r.IsPrimary())
	}
	for i := range 3 {
		op, ok := r.Propose(Prepare{Kind: KindCommand, Body: fmt.Appendf(nil, "%d", i)})
		if !ok || op != uint64(i+1) {
			t.Fatalf("propose: op %d ok %v", op, ok)
		}
	}
	if !r.Acknowledged(3, NoAck) || r.Acknowledged(3, Replicated) || r.Acknowledged(4, NoAck) {
		t.Fatal("acknowledged before any write")
	}
	r.Flush()
	var completions []storage.Completion
	for {
		c, ok := jd.d.Next()
		if !ok {
			break
		}
		completions = append(completions, c)
	}
	// create, write, sync of one segment, in order.
	r.Complete(completions[0])
	r.Complete(completions[1])
	if !r.Acknowledged(3, Replicated) || r.Acknowledged(1, Persisted) || len(r.TakeCommitted()) != 0 {
		t.Fatal("written ops must be replicated, not persisted")
	}
	r.Complete(completions[2])
	if !r.Acknowledged(3, Persisted) || !r.Acknowledged(3, Quorum) || r.Commit() != 3 {
		t.Fatalf("commit %d after the sync", r.Commit())
	}
	got := r.TakeCommitted()
	if len(got) != 3 || got[0].Op != 1 || got[2].Op != 3 || got[2].Checksum == 0 {
		t.Fatalf("committed %+v", got)
	}
	if rd := r.TakeReady(); len(rd.Messages) != 0 || rd.Superblock != nil || rd.Install != nil {
		t.Fatalf("a standalone replica asked for %+v", rd)
	}
}

// The pipeline bounds the uncommitted ops: past it Propose refuses.
func TestPipelineBound(t *testing.T) {
	jd := newJDisk()
	r := NewReplica(OpenJournal(jd, "j", nil, 0, 0), 0, 0)
	for range pipelineMax {
		if _, ok := r.Propose(Prepare{Kind: KindCommand}); !ok {
			t.Fatal("refused inside the pipeline")
		}
	}
	if !r.Full() {
		t.Fatal("not full")
	}
	if op, ok := r.Propose(Prepare{Kind: KindCommand}); ok || op != 0 {
		t.Fatal("accepted past the pipeline")
	}
	r.Flush()
	jd.drain(t, r.journal)
	if r.TakeCommitted(); r.Full() {
		t.Fatal("still full after the commit")
	}
}

// covers VSR-13
func TestReplicaCountBound(t *testing.T) {
	open := func(count uint8) (panicked bool) {
		defer func() { panicked = recover() != nil }()
		jd := newJDisk()
		rec := RecoverJournal(jd, "j", nil, 0, 0, 0, nil)
		Open(Config{Replica: 0, Count: count, Journal: rec.Journal, Images: &hnode{}})
		return false
	}
	if open(ReplicasMax) || !open(ReplicasMax+1) || !open(0) {
		t.Fatal("replica count bounds not enforced")
	}
}

// Messages from the replica itself, from outside the group or for another
// replica are dropped without effect.
func TestStepDropsForeignMessages(t *testing.T) {
	c := newCluster(t, defaultOptions())
	r := c.nodes[1].r
	for _, m := range []Message{
		{Command: CmdStartViewChange, From: 1, To: 1, View: 5},
		{Command: CmdStartViewChange, From: 7, To: 1, View: 5},
		{Command: CmdStartViewChange, From: 0, To: 2, View: 5},
	} {
		r.Step(m)
	}
	if r.View() != 0 || r.Status() != StatusNormal || len(r.TakeReady().Messages) != 0 {
		t.Fatalf("view %d status %s", r.View(), r.Status())
	}
}

// In a cluster the primary's watermarks order as the policies do, and a
// backup acknowledges nothing.
func TestClusterWatermarks(t *testing.T) {
	c := newCluster(t, defaultOptions())
	c.nodes[0].propose(50)
	for range 2000 {
		if c.converged() {
			break
		}
		c.tick()
	}
	c.run(2*HeartbeatTicks, 0) // backups report their commit point with the next heartbeat's answer
	p, b := c.nodes[0].r, c.nodes[1].r
	if p.Commit() != 50 || p.ReplicatedOp() != 50 || p.QuorumCommitOp() != 50 {
		t.Fatalf("primary commit %d replicated %d quorum %d", p.Commit(), p.ReplicatedOp(), p.QuorumCommitOp())
	}
	if b.QuorumCommitOp() != 0 || !b.Full() || b.Acknowledged(50, Quorum) {
		t.Fatal("a backup acknowledges")
	}
	if _, ok := b.Propose(Prepare{}); ok {
		t.Fatal("a backup proposed")
	}
}
