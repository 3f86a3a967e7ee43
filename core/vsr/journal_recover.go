package vsr

import (
	"encoding/binary"

	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/io/storage"
)

// RecoveredSegment is one journal file as boot read it.
type RecoveredSegment struct {
	FirstOp uint64
	Data    []byte
}

// Recovery is what RecoverJournal found: the journal to continue and the
// prepares after the checkpoint, in op order, for the replica's log.
type Recovery struct {
	Journal  *Journal
	Prepares []Prepare
	// CutBytes counts the bytes of torn or corrupt tail that were cut.
	CutBytes uint64
	// ClaimOp is set when the cut was damage, not a torn write: whole
	// prepares of later ops follow it in the same segment. A crash keeps a
	// prefix of a file's unsynced bytes, so only damage at rest leaves valid
	// prepares after a bad one, and those may have been acknowledged: the
	// log is then short of ClaimOp and must vote untrusted (VSR-14).
	ClaimOp uint64
}

// RecoverJournal rebuilds a journal from its segments (sorted by FirstOp)
// after a restart, for a replica whose durable checkpoint is checkpointOp
// with prepare checksum checkpointChecksum (0: unknown) and whose
// superblock names logView. It keeps the
// longest run of whole prepares of consecutive ops from checkpointOp+1 that
// provably continues the checkpoint: the segments hold op checkpointOp with
// that checksum, or the run starts a segment that begins right after the
// checkpoint (a checkpoint rotates there, a state transfer resets there).
// Everything after the run is cut: the file holding its end is truncated,
// later files deleted. The bytes read may include writes that were never
// synced (a killed process leaves them in the page cache), so every kept
// segment is synced before its ops count as durable. marks receives
// "vsr.journal.tail_cut" and "vsr.journal.unverified_dropped".
func RecoverJournal(disk Disk, dir string, segs []RecoveredSegment, checkpointOp, checkpointChecksum uint64, logView uint32, marks mark.Sink) Recovery {
	j := &Journal{disk: disk, dir: dir, queuedOp: checkpointOp, durableOp: checkpointOp, writtenOp: checkpointOp, posBase: checkpointOp}
	var rec Recovery
	anchored := checkpointOp == 0 || checkpointChecksum == 0
	end := -1 // index of the segment where the run ends
	var endOffset uint64
	for i, s := range segs {
		ps, valid := Scan(s.Data)
		if !anchored && s.FirstOp == checkpointOp+1 && j.queuedOp == checkpointOp {
			anchored = true
		}
		offset := uint64(0)
		broken := false
		for _, p := range ps {
			size := uint64(PrepareHeaderSize + len(p.Body))
			switch {
			case p.Op == checkpointOp && checkpointChecksum != 0:
				anchored = p.Checksum == checkpointChecksum
			case p.Op <= checkpointOp:
			case anchored && p.Op == j.queuedOp+1:
				j.positions = append(j.positions, position{segment: s.FirstOp, offset: offset})
				rec.Prepares = append(rec.Prepares, p)
				j.queuedOp = p.Op
				end, endOffset = i, offset+size
			default:
				broken = true
			}
			if broken {
				break
			}
			offset += size
		}
		if (broken || valid < len(s.Data)) && end >= 0 {
			break // a torn or foreign tail ends the run
		}
	}
	if !anchored || end < 0 {
		if hasOpsAfter(segs, checkpointOp) && !anchored {
			marks.Hit("vsr.journal.unverified_dropped")
		}
		if i, offset, ok := firstBadBytes(segs); ok {
			if rec.ClaimOp = cutClaim(segs, i, offset, checkpointOp, logView); rec.ClaimOp > 0 {
				marks.Hit("vsr.journal.damage_claimed")
			}
		}
		return recoverEmpty(j, segs, checkpointOp, rec, rec.ClaimOp)
	}
	last := rec.Prepares[len(rec.Prepares)-1]
	if rec.ClaimOp = cutClaim(segs, end, endOffset, last.Op, last.View); rec.ClaimOp > 0 {
		marks.Hit("vsr.journal.damage_claimed")
	}
	if cut := uint64(len(segs[end].Data)) - endOffset; cut > 0 {
		rec.CutBytes = cut
		marks.Hit("vsr.journal.tail_cut")
		j.cut(rec.ClaimOp, storage.Request{Op: storage.OpTruncate, File: j.segmentPath(segs[end].FirstOp), Offset: endOffset})
	}
	for _, s := range segs[end+1:] {
		j.cut(rec.ClaimOp, storage.Request{Op: storage.OpDelete, File: j.segmentPath(s.FirstOp)})
	}
	for _, s := range segs[:end+1] {
		j.segments = append(j.segments, Segment{FirstOp: s.FirstOp})
		sync := disk.Submit(storage.Request{Op: storage.OpSync, File: j.segmentPath(s.FirstOp)})
		j.flushes = append(j.flushes, flush{sync: sync, lastOp: j.queuedOp, written: true})
	}
	j.sizeBytes = endOffset
	j.writtenOp = j.queuedOp
	rec.Journal = j
	return rec
}

// recoverEmpty starts over after the checkpoint: no segment holds a run that
// continues it, so all are deleted (the checkpoint covers what they hold).
func recoverEmpty(j *Journal, segs []RecoveredSegment, checkpointOp uint64, rec Recovery, claim uint64) Recovery {
	for _, s := range segs {
		j.cut(claim, storage.Request{Op: storage.OpDelete, File: j.segmentPath(s.FirstOp)})
	}
	j.segments = []Segment{{FirstOp: checkpointOp + 1}}
	j.pendingCreate = true
	j.positions, j.queuedOp = nil, checkpointOp
	rec.Prepares = nil
	rec.Journal = j
	return rec
}

// cutClaim returns the highest op of the whole prepares, of view or later,
// that the cut drops: those after byte endOffset of segment end. The journal starts a segment only once the ones before it
// synced, so unsynced bytes lie in the last segment alone: every prepare
// in an earlier one was durable and may have been acknowledged, and a cut
// there was damage at rest. In the last segment a crash keeps a prefix of
// the unsynced bytes, so only prepares after bad bytes prove damage.
func cutClaim(segs []RecoveredSegment, end int, endOffset, after uint64, view uint32) uint64 {
	var claim uint64
	lastSeg := len(segs) - 1
	for i := end; i <= lastSeg; i++ {
		b := segs[i].Data
		if i == end {
			b = b[endOffset:]
		}
		if i == end && i == lastSeg {
			claim = max(claim, laterOp(b, 1, after, view))
			continue
		}
		claim = max(claim, laterOp(b, 0, after, view))
	}
	return claim
}

// firstBadBytes finds the first segment whose bytes are not all whole
// prepares, and where they stop being.
func firstBadBytes(segs []RecoveredSegment) (int, uint64, bool) {
	for i, s := range segs {
		if _, valid := Scan(s.Data); valid < len(s.Data) {
			return i, uint64(valid), true
		}
	}
	return 0, 0, false
}

func hasOpsAfter(segs []RecoveredSegment, op uint64) bool {
	for _, s := range segs {
		ps, _ := Scan(s.Data)
		if len(ps) > 0 && ps[len(ps)-1].Op > op {
			return true
		}
	}
	return false
}

// claimSearchOpsMax bounds how far past the run an op number found in
// damaged bytes is believed: a random match beyond it is not a prepare.
const claimSearchOpsMax = 1 << 16

// laterOp returns the highest op after op after of the whole prepares found
// in b from byte start on, of view or a later one, or 0. Prepares of older
// views are leftovers of a cut whose truncate a crash undid, not ops the log
// lost.
func laterOp(b []byte, start int, after uint64, view uint32) uint64 {
	var found uint64
	for pos := start; pos+PrepareHeaderSize <= len(b); pos++ {
		op := binary.LittleEndian.Uint64(b[pos+8:])
		if op <= after || op > after+claimSearchOpsMax {
			continue
		}
		if p, n, ok := DecodePrepare(b[pos:]); ok && p.View >= view {
			found = max(found, p.Op)
			pos += n - 1
		}
	}
	return found
}

// cut truncates or deletes what recovery drops. With a damage claim the
// cut waits (ReleaseCut): it would destroy the evidence the claim rests on,
// so the replica first makes the claim durable in its superblock, and the
// journal writes nothing meanwhile (a crash in between would otherwise
// leave a clean, shorter log voting trusted; cluster seed 30445).
func (j *Journal) cut(claim uint64, req storage.Request) {
	if claim > 0 {
		j.deferred = append(j.deferred, req)
		return
	}
	j.addBarrier(j.disk.Submit(req))
}

// ReleaseCut carries out the cut recovery deferred, once the claim is
// durable elsewhere; until then Flush writes nothing.
func (j *Journal) ReleaseCut() {
	for _, req := range j.deferred {
		j.addBarrier(j.disk.Submit(req))
	}
	j.deferred = nil
}
