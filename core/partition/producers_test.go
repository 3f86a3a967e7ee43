package partition

import (
	"slices"
	"strings"
	"testing"

	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

func pb(id uint64, epoch uint32, first uint64, count uint32) ProducerBatch {
	return ProducerBatch{ID: id, Epoch: epoch, FirstSeq: first, Count: count}
}

// commitNew checks, admits and commits b at base: the primary's path.
func commitNew(t *testing.T, p *Producers, b ProducerBatch, token, base, now uint64) {
	t.Helper()
	if v := p.Check(b, now); v.Code != wire.OK || v.Dup {
		t.Fatalf("batch %+v: %+v", b, v)
	}
	p.Admit(b, token, now)
	p.Commit(b.ID, token, base, now)
}

// covers IDEM-4, IDEM-5, IDEM-6
func TestProducerResendAndGaps(t *testing.T) {
	p := NewProducers()
	for i := range uint64(7) {
		commitNew(t, p, pb(1, 0, i*3, 3), i+1, 100+i*3, 10)
	}
	// The last five batches (sequences 6..20) are known: a resend writes
	// nothing and gets the first write's offset.
	if v := p.Check(pb(1, 0, 6, 3), 10); !v.Dup || v.Base != 106 {
		t.Fatalf("resend of batch 3: %+v", v)
	}
	if v := p.Check(pb(1, 0, 18, 3), 10); !v.Dup || v.Base != 118 {
		t.Fatalf("resend of the last batch: %+v", v)
	}
	for _, first := range []uint64{3, 22, 25} { // older than five batches, a gap, a gap
		if v := p.Check(pb(1, 0, first, 3), 10); v.Code != wire.ProducerSequenceOutOfOrder {
			t.Fatalf("first %d: %+v", first, v)
		}
	}
	if v := p.Check(pb(1, 0, 18, 2), 10); v.Code != wire.ProducerSequenceOutOfOrder {
		t.Fatalf("same first sequence, other count: %+v", v)
	}
	if v := p.Check(pb(2, 0, 5, 1), 10); v.Code != wire.ProducerSequenceOutOfOrder {
		t.Fatalf("unknown producer starting past 0: %+v", v)
	}
	if v := p.Check(pb(1, 0, 21, 1), 10); v.Code != wire.OK || v.Dup {
		t.Fatalf("next batch: %+v", v)
	}
}

// covers IDEM-7
func TestProducerEpochFence(t *testing.T) {
	p := NewProducers()
	commitNew(t, p, pb(1, 3, 0, 2), 1, 0, 10)
	if v := p.Check(pb(1, 2, 2, 1), 10); v.Code != wire.ProducerEpochFenced {
		t.Fatalf("older epoch: %+v", v)
	}
	if v := p.Check(pb(1, 4, 2, 1), 10); v.Code != wire.ProducerSequenceOutOfOrder {
		t.Fatalf("new epoch not starting at 0: %+v", v)
	}
	commitNew(t, p, pb(1, 4, 0, 1), 2, 2, 10)
	if v := p.Check(pb(1, 3, 2, 1), 10); v.Code != wire.ProducerEpochFenced {
		t.Fatalf("fenced epoch after the move: %+v", v)
	}
}

// covers IDEM-8
func TestProducerUncommittedDuplicate(t *testing.T) {
	p := NewProducers()
	b := pb(1, 0, 0, 4)
	p.Admit(b, 7, 10)
	if v := p.Check(b, 10); v.Code != wire.TransientNotCommitted {
		t.Fatalf("resend while uncommitted: %+v", v)
	}
	if v := p.Check(pb(1, 0, 4, 1), 10); v.Code != wire.OK {
		t.Fatalf("the next batch may queue behind: %+v", v)
	}
	p.Commit(1, 7, 50, 10)
	if v := p.Check(b, 10); !v.Dup || v.Base != 50 {
		t.Fatalf("resend after commit: %+v", v)
	}
	// A failed write leaves no trace: the resend is new again.
	p.Admit(pb(1, 0, 4, 1), 8, 10)
	p.Abandon(1, 8)
	if v := p.Check(pb(1, 0, 4, 1), 10); v.Code != wire.OK || v.Dup {
		t.Fatalf("resend after a failed write: %+v", v)
	}
}

// covers IDEM-12
func TestProducerEvictsIdlest(t *testing.T) {
	p := NewProducers()
	for id := range uint64(ProducersMax) {
		commitNew(t, p, pb(id, 0, 0, 1), 1, id, 1000+id)
	}
	commitNew(t, p, pb(0, 0, 1, 1), 2, 5000, 9000) // producer 0 is busy again
	commitNew(t, p, pb(ProducersMax, 0, 0, 1), 1, 5001, 9001)
	if p.Len() != ProducersMax {
		t.Fatalf("%d producers", p.Len())
	}
	if _, ok := p.byID[1]; ok {
		t.Fatal("producer 1, idle longest, was kept")
	}
	if _, ok := p.byID[0]; !ok {
		t.Fatal("producer 0 was evicted although recently active")
	}
}

// covers IDEM-13
func TestProducerForgottenAfterADay(t *testing.T) {
	p := NewProducers()
	commitNew(t, p, pb(1, 0, 0, 1), 1, 0, 1)
	if v := p.Check(pb(1, 0, 0, 1), 1+producerIdleMicrosMax); !v.Dup {
		t.Fatalf("within a day: %+v", v)
	}
	if v := p.Check(pb(1, 0, 0, 1), 2+producerIdleMicrosMax); v.Dup || v.Code != wire.OK {
		t.Fatalf("after a day the producer is new: %+v", v)
	}
	if p.Len() != 0 {
		t.Fatal("forgotten producer kept")
	}
}

// Record (a recovery's replay) leaves the table a commit would.
func TestProducerRecordMatchesCommit(t *testing.T) {
	primary, replayed := NewProducers(), NewProducers()
	for i := range uint64(9) {
		b := pb(i%2, 0, (i/2)*3, 3)
		commitNew(t, primary, b, i+1, i*3, 10)
		replayed.Record(b, i*3, 10)
	}
	for id := range uint64(2) {
		for first := uint64(0); first < 15; first += 3 {
			if a, b := primary.Check(pb(id, 0, first, 3), 20), replayed.Check(pb(id, 0, first, 3), 20); a != b {
				t.Fatalf("producer %d sequence %d: %+v after commits, %+v after a replay", id, first, a, b)
			}
		}
	}
}

// covers IDEM-10
func TestProducerJournalReplay(t *testing.T) {
	var j []byte
	for i := range uint64(4) {
		j = append(j, encodeProducerRecord(pb(1, 0, i*2, 2), i*2, 10+i)...)
	}
	p, dropped := replayProducerJournal(j, 8)
	if dropped || p.Check(pb(1, 0, 6, 2), 20).Base != 6 || !p.Check(pb(1, 0, 6, 2), 20).Dup {
		t.Fatalf("whole journal: dropped %v", dropped)
	}
	// The crash kept offsets 0..5: the last batch is new again, and the
	// journal must be rewritten before its place is reused.
	p, dropped = replayProducerJournal(j, 6)
	if !dropped {
		t.Fatal("a lost batch's record was not reported dropped")
	}
	if v := p.Check(pb(1, 0, 6, 2), 20); v.Dup || v.Code != wire.OK {
		t.Fatalf("lost batch: %+v", v)
	}
	// A torn last record ends the replay.
	p, dropped = replayProducerJournal(j[:len(j)-1], 8)
	if !dropped || p.Check(pb(1, 0, 6, 2), 20).Dup {
		t.Fatal("torn record replayed")
	}
	// A compaction's stale tail (older records after newer) changes nothing.
	stale := append(slices.Clone(j), j[:producerRecordBytes]...)
	p, _ = replayProducerJournal(stale, 8)
	if v := p.Check(pb(1, 0, 8, 1), 20); v.Code != wire.OK {
		t.Fatalf("after a stale tail the next batch is refused: %+v", v)
	}
}

// covers IDEM-14
// A killed process leaves a persisted producer batch in the page cache:
// its journal record synced, its data written but not synced. The boot
// reads both, so the table would answer a resend of the batch; it syncs
// the batch's segment first, and a power loss after that keeps the batch
// (lite seed 542343171 lost one acknowledged only to such a resend).
func TestProducerBootSyncsRecoveredBatches(t *testing.T) {
	h := newHarness(t, testConfig())
	h.log.AppendProducer(h.record(2), h.now, true, pb(1, 0, 0, 2))
	for range 8 { // the journal's write and sync, then the batch's write; not its sync
		h.log.Flush()
		h.disk.queue = slices.DeleteFunc(h.disk.queue, func(r storage.Request) bool {
			return r.Op == storage.OpSync && strings.HasSuffix(r.File, ".log") && !strings.HasSuffix(r.File, producerJournalName)
		})
		h.disk.run(h.log)
	}
	if h.reopen(); h.log.NextOffset() != 2 {
		t.Fatalf("the killed process's batch is not in the page cache: next offset %d", h.log.NextOffset())
	}
	if v := h.log.Producers().Check(pb(1, 0, 0, 2), h.now); !v.Dup {
		t.Fatalf("resend after the kill: %+v", v)
	}
	h.disk.crash(nil)
	if h.reopen(); h.log.NextOffset() != 2 {
		t.Fatalf("the batch the table answered for is lost by a power loss: next offset %d", h.log.NextOffset())
	}
}
