package vsr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/sim/disk"
)

// jdisk runs a journal on a simulated disk and records what it asked.
type jdisk struct {
	d    *disk.Disk
	next storage.ReqID
	log  []string
}

func newJDisk() *jdisk { return &jdisk{d: disk.New(disk.Options{Seed: 7})} }

func (j *jdisk) Submit(r storage.Request) storage.ReqID {
	j.next++
	r.ID = j.next
	j.log = append(j.log, fmt.Sprintf("%v %s", r.Op, r.File))
	j.d.Submit(r)
	return r.ID
}

// drain completes everything pending, handing completions to jr.
func (j *jdisk) drain(t *testing.T, jr *Journal) {
	t.Helper()
	for _, c := range j.d.Drain() {
		if !jr.Complete(c) && c.Result != storage.ResultOK {
			t.Fatalf("request %d failed: %s", c.ID, c.Err)
		}
	}
}

func (j *jdisk) take() string {
	s := strings.Join(j.log, "; ")
	j.log = nil
	return s
}

func appendOps(jr *Journal, from, to uint64, view uint32) {
	for op := from; op <= to; op++ {
		p := Prepare{Op: op, View: view, Body: fmt.Appendf(nil, "op %d", op)}
		jr.Append(op, Seal(&p))
	}
}

// fileOps lists the ops a journal file holds.
func fileOps(t *testing.T, d *disk.Disk, path string) []uint64 {
	t.Helper()
	img, ok := d.File(path)
	if !ok {
		return nil
	}
	ps, valid := Scan(img.Durable)
	if valid != len(img.Durable) {
		t.Fatalf("%s: %d of %d bytes valid", path, valid, len(img.Durable))
	}
	var ops []uint64
	for _, p := range ps {
		ops = append(ops, p.Op)
	}
	return ops
}

func seg(op uint64) string { return "j/" + SegmentName(op) }

// One flush is one vectored write and one sync for every queued prepare;
// an op counts as written when its write completed, durable when synced.
func TestJournalGroupCommit(t *testing.T) {
	jd := newJDisk()
	jr := OpenJournal(jd, "j", nil, 0, 0)
	appendOps(jr, 1, 3, 0)
	jr.Flush()
	if got := jd.take(); got != "create j/00000000000000000001.wal; write j/00000000000000000001.wal; sync j/00000000000000000001.wal" {
		t.Fatalf("requests: %s", got)
	}
	if jr.DurableOp() != 0 || jr.WrittenOp() != 0 {
		t.Fatal("durable before completion")
	}
	c, _ := jd.d.Next() // create
	jr.Complete(c)
	c, _ = jd.d.Next() // write
	jr.Complete(c)
	if jr.WrittenOp() != 3 || jr.DurableOp() != 0 {
		t.Fatalf("written %d durable %d", jr.WrittenOp(), jr.DurableOp())
	}
	jd.drain(t, jr)
	if jr.DurableOp() != 3 || !jr.Idle() {
		t.Fatalf("durable %d idle %v", jr.DurableOp(), jr.Idle())
	}
}

// Two checkpoints without an op between must not start two segments with
// the same first op.
func TestJournalRotateEmptySegment(t *testing.T) {
	jd := newJDisk()
	jr := OpenJournal(jd, "j", nil, 0, 0)
	appendOps(jr, 1, 2, 0)
	jr.Rotate()
	jr.Flush()
	jr.Rotate()
	jr.Flush()
	jd.drain(t, jr)
	appendOps(jr, 3, 4, 0)
	jr.Flush()
	jd.drain(t, jr)
	if got := fileOps(t, jd.d, seg(3)); fmt.Sprint(got) != "[3 4]" {
		t.Fatalf("segment 3 holds %v", got)
	}
	if len(jr.segments) != 2 {
		t.Fatalf("%d segments", len(jr.segments))
	}
}

// A new segment is created, and written, only once every write to the
// segments before it synced: a crash then leaves unsynced bytes in the
// last segment alone, which is what lets recovery read bad bytes in an
// earlier one as damage (cutClaim).
// covers VSR-28
func TestJournalSegmentStartsAfterSync(t *testing.T) {
	jd := newJDisk()
	jr := OpenJournal(jd, "j", nil, 0, 0)
	appendOps(jr, 1, 2, 0)
	jr.Flush()
	jd.drain(t, jr)
	appendOps(jr, 3, 3, 0)
	jr.Rotate()
	jr.Flush()
	jd.take()
	appendOps(jr, 4, 5, 0)
	jr.Flush()
	if got := jd.take(); got != "" {
		t.Fatalf("segment 4 written before segment 1 synced: %s", got)
	}
	jd.drain(t, jr)
	jr.Flush()
	if got := jd.take(); got != "create j/00000000000000000004.wal; write j/00000000000000000004.wal; sync j/00000000000000000004.wal" {
		t.Fatalf("requests: %s", got)
	}
	jd.drain(t, jr)
	if jr.DurableOp() != 5 {
		t.Fatalf("durable %d", jr.DurableOp())
	}
}

// Truncation cuts queued ops, and flushed ops by truncating the file that
// holds the first cut op and deleting later files; new ops land after it.
func TestJournalTruncate(t *testing.T) {
	jd := newJDisk()
	jr := OpenJournal(jd, "j", nil, 0, 0)
	appendOps(jr, 1, 5, 0)
	jr.Rotate()
	jr.Flush()
	jd.drain(t, jr) // segment 6 is created once segment 1 synced
	appendOps(jr, 6, 8, 0)
	jr.Flush()
	appendOps(jr, 9, 9, 0)
	jd.drain(t, jr)
	jd.take()

	jr.Truncate(8) // queued only
	if jr.queuedOp != 8 || len(jr.queued) != 0 || jd.take() != "" {
		t.Fatal("queued truncation touched the disk")
	}
	jr.Truncate(3) // across segments
	if jr.DurableOp() != 3 || jr.WrittenOp() != 3 {
		t.Fatalf("durable %d written %d after truncation", jr.DurableOp(), jr.WrittenOp())
	}
	if got := jd.take(); got != "delete j/00000000000000000006.wal; truncate j/00000000000000000001.wal" {
		t.Fatalf("requests: %s", got)
	}
	appendOps(jr, 4, 5, 1)
	jr.Flush()
	if jd.take() != "" {
		t.Fatal("flushed before the barrier cleared")
	}
	jd.drain(t, jr)
	jr.Flush()
	jd.drain(t, jr)
	if got := fileOps(t, jd.d, seg(1)); fmt.Sprint(got) != "[1 2 3 4 5]" {
		t.Fatalf("segment 1 holds %v", got)
	}
	if _, ok := jd.d.File(seg(6)); ok {
		t.Fatal("segment 6 survived")
	}
	img, _ := jd.d.File(seg(1))
	ps, _ := Scan(img.Durable)
	if ps[3].View != 1 || jr.DurableOp() != 5 {
		t.Fatalf("op 4 view %d, durable %d", ps[3].View, jr.DurableOp())
	}
}

// Reset deletes every segment, then starts one after the checkpoint.
func TestJournalReset(t *testing.T) {
	jd := newJDisk()
	jr := OpenJournal(jd, "j", nil, 0, 0)
	appendOps(jr, 1, 4, 0)
	jr.Flush()
	jd.drain(t, jr)
	jr.Reset(100)
	appendOps(jr, 101, 102, 0)
	jr.Flush()
	if got := jd.take(); !strings.HasSuffix(got, "delete j/00000000000000000001.wal") {
		t.Fatalf("requests: %s", got)
	}
	jd.drain(t, jr)
	jr.Flush()
	jd.drain(t, jr)
	if got := jd.take(); got != "create j/00000000000000000101.wal; write j/00000000000000000101.wal; sync j/00000000000000000101.wal" {
		t.Fatalf("requests: %s", got)
	}
	if got := fileOps(t, jd.d, seg(101)); fmt.Sprint(got) != "[101 102]" || jr.DurableOp() != 102 {
		t.Fatalf("segment 101 holds %v, durable %d", got, jr.DurableOp())
	}
}

func encodeOps(from, to uint64) ([]byte, []Prepare) {
	var b []byte
	var ps []Prepare
	for op := from; op <= to; op++ {
		p := Prepare{Op: op, Body: fmt.Appendf(nil, "op %d", op)}
		b = append(b, Seal(&p)...)
		ps = append(ps, p)
	}
	return b, ps
}

// Bad bytes in a segment before the last end the run there; its whole
// prepares are kept, the later segment deleted, and new ops continue in it.
// A segment starts only once those before it synced, so the bad bytes are
// damage at rest and the later segment's ops are claimed; the cut, which
// destroys that evidence, waits until the claim is durable (ReleaseCut).
// covers STOR-45, VSR-14
func TestRecoverJournalTornMiddleSegment(t *testing.T) {
	a, _ := encodeOps(1, 10)
	b, _ := encodeOps(11, 14)
	c, _ := encodeOps(20, 22)
	torn := append(b, a[:30]...)
	jd := newJDisk()
	jd.d.PutFile(seg(1), a)
	jd.d.PutFile(seg(11), torn)
	jd.d.PutFile(seg(20), c)
	marks := make(mark.Counts)
	rec := RecoverJournal(jd, "j", []RecoveredSegment{{1, a}, {11, torn}, {20, c}}, 0, 0, 0, marks)
	if n := len(rec.Prepares); n != 14 || rec.CutBytes != 30 || marks["vsr.journal.tail_cut"] != 1 || rec.ClaimOp != 22 {
		t.Fatalf("%d prepares, %d bytes cut, claim %d, marks %v", n, rec.CutBytes, rec.ClaimOp, marks.Names())
	}
	jr := rec.Journal
	if jr.DurableOp() != 0 || jr.WrittenOp() != 14 {
		t.Fatalf("durable %d written %d before the recovery syncs", jr.DurableOp(), jr.WrittenOp())
	}
	appendOps(jr, 15, 15, 0)
	jd.drain(t, jr)
	jd.take()
	jr.Flush()
	if got := jd.take(); got != "" {
		t.Fatalf("written before the claim was durable: %s", got)
	}
	jr.ReleaseCut() // the replica's superblock now holds the claim
	jd.drain(t, jr)
	jr.Flush()
	jd.drain(t, jr)
	if got := fileOps(t, jd.d, seg(11)); fmt.Sprint(got) != "[11 12 13 14 15]" || jr.DurableOp() != 15 {
		t.Fatalf("segment 11 holds %v, durable %d", got, jr.DurableOp())
	}
	if _, ok := jd.d.File(seg(20)); ok {
		t.Fatal("segment 20 survived")
	}
}

// Ops after a checkpoint are kept only when they provably continue it: the
// checkpoint's prepare is there with its checksum, or their segment starts
// right after it. Otherwise the journal starts over after the checkpoint.
func TestRecoverJournalAnchor(t *testing.T) {
	a, ps := encodeOps(1, 10)
	for _, tc := range []struct {
		name     string
		checksum uint64
		segs     []RecoveredSegment
		kept     int
	}{
		{"checksum matches", ps[4].Checksum, []RecoveredSegment{{1, a}}, 5},
		{"checksum differs", ps[3].Checksum, []RecoveredSegment{{1, a}}, 0},
		{"checksum unknown", 0, []RecoveredSegment{{1, a}}, 5},
		{"segment after checkpoint", 12345, []RecoveredSegment{{6, a[len(a)/10*5:]}}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jd := newJDisk()
			for _, s := range tc.segs {
				jd.d.PutFile(seg(s.FirstOp), s.Data)
			}
			marks := make(mark.Counts)
			rec := RecoverJournal(jd, "j", tc.segs, 5, tc.checksum, 0, marks)
			if len(rec.Prepares) != tc.kept {
				t.Fatalf("kept %d, want %d", len(rec.Prepares), tc.kept)
			}
			if tc.kept == 0 && marks["vsr.journal.unverified_dropped"] != 1 {
				t.Fatal("no mark for the dropped ops")
			}
			jd.drain(t, rec.Journal)
			appendOps(rec.Journal, 6+uint64(tc.kept), 6+uint64(tc.kept), 0)
			rec.Journal.Flush()
			jd.drain(t, rec.Journal)
			rec.Journal.Flush()
			jd.drain(t, rec.Journal)
			if rec.Journal.DurableOp() != 6+uint64(tc.kept) {
				t.Fatalf("durable %d", rec.Journal.DurableOp())
			}
		})
	}
}

// A rotation asked for, then a truncation that empties the last segment
// before the flush: no second segment with the same first op (cluster seed
// 30334: a checkpoint's release then deleted the file being written).
func TestJournalRotateAfterTruncateToEmptySegment(t *testing.T) {
	jd := newJDisk()
	jr := OpenJournal(jd, "j", nil, 0, 0)
	appendOps(jr, 1, 3, 0)
	jr.Rotate()
	jr.Flush()
	jd.drain(t, jr)
	jr.Flush() // segment 4 is created
	appendOps(jr, 4, 4, 0)
	jr.Flush()
	jd.drain(t, jr)
	jr.Rotate() // segment 4 holds op 4
	jr.Truncate(3)
	jr.Flush() // waits for the truncation
	jd.drain(t, jr)
	jr.Flush()
	jd.drain(t, jr)
	if len(jr.segments) != 2 || jr.segments[1].FirstOp != 4 {
		t.Fatalf("segments %v", jr.segments)
	}
}
