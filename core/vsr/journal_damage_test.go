package vsr

import (
	"testing"

	"github.com/iggygo/iggy/core/mark"
)

// Damage at rest in the middle of a segment is told from a torn write:
// whole prepares of later ops of the same view after the bad one make the
// recovery claim them, so the replica votes its shorter log untrusted. A
// torn tail (a prefix of the unsynced bytes kept), or leftovers of an older
// view after it, claim nothing.
// covers VSR-14, VSR-28
func TestRecoverJournalDamageClaimsLaterOps(t *testing.T) {
	data, ps := encodeOps(1, 6)
	at := 0
	for _, p := range ps[:3] {
		at += PrepareHeaderSize + len(p.Body)
	}
	cases := []struct {
		name  string
		data  []byte
		claim uint64
	}{
		{"op 4 rotted", flipByte(data, at+PrepareHeaderSize), 6},
		{"torn after op 3", data[:at+10], 0},
		{"op 4 rotted, nothing after", flipByte(data[:at+PrepareHeaderSize+len(ps[3].Body)], at+PrepareHeaderSize), 0},
	}
	for _, tc := range cases {
		marks := make(mark.Counts)
		rec := RecoverJournal(newJDisk(), "j", []RecoveredSegment{{1, tc.data}}, 0, 0, 0, marks)
		if len(rec.Prepares) != 3 || rec.ClaimOp != tc.claim {
			t.Errorf("%s: kept %d prepares, claim %d, want 3 and %d", tc.name, len(rec.Prepares), rec.ClaimOp, tc.claim)
		}
	}
	old := laterOp(data[at:], 1, 3, 1) // ops 4..6 were written in view 0
	if old != 0 {
		t.Errorf("prepares of an older view claimed op %d", old)
	}
}

func flipByte(b []byte, i int) []byte {
	out := append([]byte(nil), b...)
	out[i] ^= 0xFF
	return out
}

// A replica opened with a damage claim past its log votes untrusted.
// covers VSR-14
func TestOpenWithDamageClaimIsUntrusted(t *testing.T) {
	data, _ := encodeOps(1, 3)
	rec := RecoverJournal(newJDisk(), "j", []RecoveredSegment{{1, data}}, 0, 0, 0, nil)
	sb := Superblock{Sequence: 2, View: 1, LogView: 1}
	r := Open(Config{Replica: 1, Count: 3, Journal: rec.Journal, Superblock: sb, Prepares: rec.Prepares,
		ClaimOp: 5, Images: &hnode{}})
	if !r.Untrusted() || r.Op() != 3 {
		t.Fatalf("untrusted %v op %d, want an untrusted log at op 3", r.Untrusted(), r.Op())
	}
}

// A damage claim must outlive a restart whose cut destroyed its evidence:
// the replica first asks for a superblock naming the claimed head with no
// checksum (a head its log does not hold, so the next boot votes untrusted
// again), and its journal holds recovery's cut, and every write, until that
// superblock is durable (cluster seed 30445: a second restart found a
// clean, shorter log and voted it trusted; a committed op was replaced).
// covers VSR-14, VSR-28
func TestDamageClaimDurableBeforeCut(t *testing.T) {
	jd, rec := recoverRottedOp4()
	r := Open(Config{Replica: 1, Count: 3, Journal: rec.Journal, Superblock: Superblock{Sequence: 2}, Prepares: rec.Prepares,
		ClaimOp: rec.ClaimOp, Images: &hnode{}})
	rd := r.TakeReady()
	if rd.Superblock == nil || rd.Superblock.LogHeadOp != 6 || rd.Superblock.LogHeadChecksum != 0 {
		t.Fatalf("superblock asked %+v, want the claimed head 6 without a checksum", rd.Superblock)
	}
	jd.take()
	r.Flush()
	if got := jd.take(); got != "" {
		t.Fatalf("the journal acted before the claim was durable: %s", got)
	}
	r.SuperblockWritten(*rd.Superblock)
	if got := jd.take(); got != "truncate j/00000000000000000001.wal" {
		t.Fatalf("requests after the claim: %q", got)
	}
}

// Damage right after the checkpoint's op, in a segment before the last,
// leaves no run to keep; the later segment was written only after the
// damaged one synced, so its ops of the superblock's log view are claimed
// (cluster seed 30358: a replica voted a trusted log that had lost a
// durable op, and a new primary proposed a different op in its place).
// covers VSR-14, VSR-28
func TestRecoverJournalDamageAfterCheckpointClaimsLaterSegments(t *testing.T) {
	a, ps := encodeOps(69, 73)
	b, _ := encodeOps(74, 76)
	at := 0
	for _, p := range ps[:4] {
		at += PrepareHeaderSize + len(p.Body)
	}
	rotted := flipByte(a, at+PrepareHeaderSize) // op 73's body
	segs := []RecoveredSegment{{69, rotted}, {74, b}}
	marks := make(mark.Counts)
	rec := RecoverJournal(newJDisk(), "j", segs, 72, ps[3].Checksum, 0, marks)
	if len(rec.Prepares) != 0 || rec.ClaimOp != 76 || marks["vsr.journal.damage_claimed"] != 1 {
		t.Fatalf("kept %d prepares, claim %d, marks %v; want none kept and claim 76", len(rec.Prepares), rec.ClaimOp, marks.Names())
	}
	if rec := RecoverJournal(newJDisk(), "j", segs, 72, ps[3].Checksum, 1, nil); rec.ClaimOp != 0 {
		t.Fatalf("ops of view 0 claimed under log view 1: %d", rec.ClaimOp)
	}
}

// When the superblock already names a head at or past the claim (an
// earlier boot made it durable), recovery's cut goes at once: nothing
// waits for a superblock that will not be written (cluster seed 20408).
func TestDamageClaimAlreadyDurable(t *testing.T) {
	jd, rec := recoverRottedOp4()
	jd.take()
	sb := Superblock{Sequence: 3, LogHeadOp: 6}
	r := Open(Config{Replica: 1, Count: 3, Journal: rec.Journal, Superblock: sb, Prepares: rec.Prepares,
		ClaimOp: rec.ClaimOp, Images: &hnode{}})
	if got := jd.take(); !r.Untrusted() || got != "truncate j/00000000000000000001.wal" {
		t.Fatalf("untrusted %v, requests %q", r.Untrusted(), got)
	}
}

// recoverRottedOp4 recovers a segment of ops 1..6 whose op 4 rotted: the
// run keeps ops 1..3 and claims 6.
func recoverRottedOp4() (*jdisk, Recovery) {
	data, ps := encodeOps(1, 6)
	at := 0
	for _, p := range ps[:3] {
		at += PrepareHeaderSize + len(p.Body)
	}
	jd := newJDisk()
	rotted := flipByte(data, at+PrepareHeaderSize)
	jd.d.PutFile(seg(1), rotted)
	return jd, RecoverJournal(jd, "j", []RecoveredSegment{{1, rotted}}, 0, 0, 0, mark.Counts{})
}
