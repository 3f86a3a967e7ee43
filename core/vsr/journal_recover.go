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
// with prepare checksum checkpointChecksum (0: unknown). It keeps the
// longest run of whole prepares of consecutive ops from checkpointOp+1 that
// provably continues the checkpoint: the segments hold op checkpointOp with
// that checksum, or the run starts a segment that begins right after the
// checkpoint (a checkpoint rotates there, a state transfer resets there).
// Everything after the run is cut: the file holding its end is truncated,
// later files deleted. The bytes read may include writes that were never
// synced (a killed process leaves them in the page cache), so every kept
// segment is synced before its ops count as durable. marks receives
// "vsr.journal.tail_cut" and "vsr.journal.unverified_dropped".
func RecoverJournal(disk Disk, dir string, segs []RecoveredSegment, checkpointOp, checkpointChecksum uint64, marks mark.Sink) Recovery {
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
		return recoverEmpty(j, segs, checkpointOp, rec)
	}
	if cut := uint64(len(segs[end].Data)) - endOffset; cut > 0 {
		rec.CutBytes = cut
		last := rec.Prepares[len(rec.Prepares)-1]
		if rec.ClaimOp = laterOp(segs[end].Data[endOffset:], last.Op, last.View); rec.ClaimOp > 0 {
			marks.Hit("vsr.journal.damage_claimed")
		}
		marks.Hit("vsr.journal.tail_cut")
		j.addBarrier(disk.Submit(storage.Request{Op: storage.OpTruncate, File: j.segmentPath(segs[end].FirstOp), Offset: endOffset}))
	}
	for _, s := range segs[end+1:] {
		j.addBarrier(disk.Submit(storage.Request{Op: storage.OpDelete, File: j.segmentPath(s.FirstOp)}))
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
func recoverEmpty(j *Journal, segs []RecoveredSegment, checkpointOp uint64, rec Recovery) Recovery {
	for _, s := range segs {
		j.addBarrier(j.disk.Submit(storage.Request{Op: storage.OpDelete, File: j.segmentPath(s.FirstOp)}))
	}
	j.segments = []Segment{{FirstOp: checkpointOp + 1}}
	j.pendingCreate = true
	j.positions, j.queuedOp = nil, checkpointOp
	rec.Prepares = nil
	rec.Journal = j
	return rec
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

// laterOp returns the highest op of the whole prepares found in b (the bytes
// after the run, which ended at op after in view) that continue the run's
// view or a later one, or 0. Prepares of older views are leftovers of a cut
// whose truncate a crash undid, not ops the log lost.
func laterOp(b []byte, after uint64, view uint32) uint64 {
	var found uint64
	for pos := 1; pos+PrepareHeaderSize <= len(b); pos++ {
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
