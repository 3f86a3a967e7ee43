package partition

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// recReq says what one recovery request was for; it travels in the top
// byte of the in-flight ref, with a payload in the low bits.
type recReq uint64

const (
	recList       recReq = iota + 1 // list the partition directory
	recIndex                        // read a segment's .index
	recTail                         // read a segment's .log tail
	recRepair                       // truncate, delete, create or write a repair
	recOffsetList                   // list an offsets directory; payload: kind
	recOffsetRead                   // read an offset file; payload: kind<<32 | id
	recRevision                     // read the created.revision marker
	recProducers                    // read the producer journal

	recReqShift = 56
)

func recRef(kind recReq, payload uint64) uint64 {
	if payload >= 1<<recReqShift {
		assert.Failf("partition: recovery payload %d", payload)
	}
	return uint64(kind)<<recReqShift | payload
}

// recovery is the state of Recover: list the directory, scan the segments
// oldest first (read the .index, then the .log from the last index entry
// to the end, checking every record), then repair the files and load the
// consumer offsets.
type recovery struct {
	segs   []*recSeg
	cur    int // the segment being scanned
	wait   int // repair and offset requests in flight
	result Recovered
	// offsets read from disk, applied (and clamped) once all are read;
	// files lists every offset file found, corrupt ones included.
	offsets map[offsetKey]uint64
	files   map[offsetKey]offsetFile
	// stale: the directory holds an older incarnation, deleted whole;
	// rewriteMarker: the marker is written once recovery's requests are done.
	stale, rewriteMarker bool
	// full: every record is checked, from each segment's start, and the
	// index is rebuilt (RecoverFully), not only those after the last
	// index entry.
	full bool
	// capNext: records at or past this offset were answered as failed
	// (Reopen) and are cut like a torn tail; MaxUint64 for none.
	capNext uint64
	// missingMax: a reopen finds no more missing offsets than the broken
	// log knew of (a damaged sealed segment); MaxUint64 at boot.
	missingMax uint64
	// committed: each segment's committed bytes in the broken log (a
	// reopen's); a segment found short of them in a file as large was read
	// wrong, one whose file is shorter was cut at rest (readShort).
	committed []SegmentBytes
	// journalBytes is the producer journal's size (journalFound), journal
	// its bytes once read.
	journalBytes uint64
	journalFound bool
	journal      []byte
}

// recSeg is one segment as found on disk and as scanned.
type recSeg struct {
	start            uint64
	logBytes         uint64
	indexBytes       uint64
	hasLog, hasIndex bool
	index            []indexEntry // entries kept from the .index file
	added            []indexEntry // entries the scan adds after a lost index
	pos              uint64       // next byte to scan in the .log
	next             uint64       // offset after the last valid record
	lastTs           uint64       // base_timestamp of the last valid record
	minTs            uint64       // the first record scanned may not be older
	lastIndexedPos   uint64
	readLen          uint64 // length of the tail read in flight
	// rereads: the reads again of the bad record at rereadPos (reread);
	// rotten: it failed every one of them, so it is damaged at rest.
	rereadPos uint64
	rereads   int
	rotten    bool
	dropped   bool
	// damaged: a sealed segment (one follows it) whose valid records end
	// before its file does or before the next segment starts; kept as
	// found when the config does not refetch damage.
	damaged bool
}

// Recover rebuilds the log from the partition directory at boot and ends
// with a Recovered event. Every complete, valid record is kept; a torn or
// corrupt tail of the last segment is cut (STOR-45); a sealed segment
// whose records end early is kept as found with the segments after it
// (unless RefetchDamage: then it is cut and later segments that no longer
// follow on are dropped, config.go); corrupt offset files are ignored
// and offsets beyond the head are clamped to it (§10.5). An empty or
// missing directory becomes a new partition. revision is the incarnation
// the metadata names (created.revision, revision.go; 0: no marker).
func (l *Log) Recover(revision uint64) { l.recover(revision, false, math.MaxUint64) }

// RecoverFully is Recover checking every record of every segment, not
// only the tail after the last index entry, and rebuilding the indexes: a
// replica of a set that read a bad record cuts its log there and fetches
// the rest from a peer.
func (l *Log) RecoverFully(revision uint64) { l.recover(revision, true, math.MaxUint64) }

// Reopen is Recover for a log that a write failure broke (the node opens a
// new Log on the same files): committedNext is where the broken log's
// commits ended. Every append after it was answered with the failure, so
// its records, whole on disk or not, are cut and its segments dropped: a
// send that got an error did not happen. A reopen that finds less than
// the broken log held (its end short of p.CommittedNext, or more offsets
// missing than p.Missing) changes nothing and fails (CannotReadPartitions):
// what was committed was on the disk, so a read did not check out (the
// same big record can fail two reads in a row). Only a shortfall in
// segments whose files are shorter than what was committed in them was cut
// at rest meanwhile: that is taken as a boot takes it.
func (l *Log) Reopen(revision uint64, p ReopenPoint) {
	l.recover(revision, false, p.CommittedNext)
	l.recovery.missingMax, l.recovery.committed = p.Missing, p.Committed
}

// ReopenPoint is what a broken log held, for its Reopen.
type ReopenPoint struct {
	CommittedNext, Missing uint64
	Committed              []SegmentBytes // oldest segment first
}

// SegmentBytes is how many bytes of the .log of the segment starting at
// Start were committed.
type SegmentBytes struct{ Start, Bytes uint64 }

// ReopenPoint is where the log's commits end, how many offsets its damaged
// sealed segments lost, and each segment's committed bytes.
func (l *Log) ReopenPoint() ReopenPoint {
	p := ReopenPoint{CommittedNext: l.committedNext, Missing: l.missing, Committed: make([]SegmentBytes, len(l.segments))}
	for i, s := range l.segments {
		p.Committed[i] = SegmentBytes{Start: s.start, Bytes: s.committedBytes}
	}
	return p
}

func (l *Log) recover(revision uint64, full bool, capNext uint64) {
	if l.phase != phaseNew {
		assert.Failf("partition: Recover in phase %d", l.phase)
	}
	l.revision = revision
	l.phase = phaseRecovering
	l.recovery = &recovery{offsets: make(map[offsetKey]uint64), files: make(map[offsetKey]offsetFile),
		full: full, capNext: capNext, missingMax: math.MaxUint64}
	l.submit(storage.Request{Op: storage.OpList, File: l.cfg.Dir}, reqRecovery, recRef(recList, 0))
}

func (r *recovery) complete(l *Log, f inflight, c storage.Completion) {
	kind, payload := recReq(f.ref>>recReqShift), f.ref&(1<<recReqShift-1)
	if l.phase != phaseRecovering {
		return // aborted: the rest of its requests no longer matter
	}
	if kind == recOffsetRead {
		// An unreadable offset file is discarded like a corrupt one.
		r.onOffsetRead(offsetKey{OffsetKind(payload >> 32), uint32(payload)}, c)
		r.done(l)
		return
	}
	if c.Result == storage.ResultIOError {
		r.abort(l)
		return
	}
	switch kind {
	case recList:
		r.onList(l, c)
	case recIndex:
		s := r.segs[r.cur]
		s.index = parseIndex(c.Data, s.start, s.logBytes)
		for n := len(s.index); n > 0 && s.index[n-1].offset >= r.capNext; n-- {
			s.index = s.index[:n-1] // entries of appends that failed
		}
		r.startTail(l, s)
	case recTail:
		r.onTail(l, r.segs[r.cur], c.Data)
	case recRepair:
		r.done(l)
	case recOffsetList:
		r.onOffsetList(l, OffsetKind(payload), c)
		r.done(l)
	case recRevision:
		r.onRevision(l, c)
	case recProducers:
		r.journal = c.Data
		r.done(l)
	default:
		assert.Failf("partition: recovery request kind %d", kind)
	}
}

// abort ends a recovery that could not read the partition; it does not serve.
func (r *recovery) abort(l *Log) {
	l.phase = phaseFailed
	r.result.Code = wire.CannotReadPartitions
	l.emit(r.result)
}

func (r *recovery) onList(l *Log, c storage.Completion) {
	byStart := make(map[uint64]*recSeg)
	marker := false
	for _, e := range c.Entries {
		marker = marker || e.Name == revisionFile && !e.IsDir
		if e.Name == producerJournalName && !e.IsDir {
			r.journalFound, r.journalBytes = true, e.Size
		}
		start, ext, ok := parseSegmentName(e.Name)
		if !ok || e.IsDir {
			continue
		}
		s := byStart[start]
		if s == nil {
			if len(r.segs) >= segmentsMax {
				assert.Failf("partition: more than %d segments on disk", segmentsMax)
			}
			s = &recSeg{start: start}
			byStart[start] = s
			r.segs = append(r.segs, s)
		}
		if ext == extLog {
			s.hasLog, s.logBytes = true, e.Size
		} else {
			s.hasIndex, s.indexBytes = true, e.Size
		}
	}
	slices.SortFunc(r.segs, func(a, b *recSeg) int { return cmp.Compare(a.start, b.start) })
	switch {
	case l.revision == 0:
	case marker:
		l.submit(storage.Request{Op: storage.OpRead, File: l.revisionPath(), Len: revisionFileBytesMax},
			reqRecovery, recRef(recRevision, 0))
		return
	default:
		r.adopt()
	}
	r.scanNext(l)
}

// revisionFileBytesMax bounds the marker read: 20 digits and a newline fit.
const revisionFileBytesMax = 32

// scanNext starts on segment r.cur, or moves on to the repairs.
func (r *recovery) scanNext(l *Log) {
	if r.cur == len(r.segs) {
		r.repair(l)
		return
	}
	s := r.segs[r.cur]
	if !r.full && s.indexBytes >= indexEntryBytes && s.logBytes > 0 {
		n := min(s.indexBytes, l.cfg.indexEntriesMax()*indexEntryBytes)
		l.submit(storage.Request{Op: storage.OpRead, File: l.segmentPath(s.start, extIndex), Len: n},
			reqRecovery, recRef(recIndex, 0))
		return
	}
	r.startTail(l, s)
}

// startTail positions the scan at the last index entry (or the segment
// start) and reads from there to the end of the .log.
func (r *recovery) startTail(l *Log, s *recSeg) {
	s.pos, s.next, s.added, s.lastIndexedPos = 0, s.start, nil, 0
	s.minTs = 0
	if r.cur > 0 {
		s.minTs = r.segs[r.cur-1].lastTs
	}
	if n := len(s.index); n > 0 {
		e := s.index[n-1]
		s.pos, s.next, s.minTs, s.lastIndexedPos = e.position, e.offset, e.timestamp, e.position
	}
	s.lastTs = s.minTs
	r.readTail(l, s, 0)
}

func (r *recovery) readTail(l *Log, s *recSeg, minLen uint64) {
	if s.pos >= s.logBytes {
		r.endSegment(l, s)
		return
	}
	n := min(s.logBytes-s.pos, max(recoveryReadBytes, minLen))
	s.readLen = n
	l.submit(storage.Request{Op: storage.OpRead, File: l.segmentPath(s.start, extLog), Offset: s.pos, Len: n},
		reqRecovery, recRef(recTail, 0))
}

func (r *recovery) onTail(l *Log, s *recSeg, data []byte) {
	if uint64(len(data)) < s.readLen {
		s.logBytes = s.pos + uint64(len(data)) // the file is shorter than listed
	}
	base := s.pos
	capAt, tsBefore := -1, s.lastTs
	res := scanRecords(data, s.next, s.lastTs, func(pos int, h batch.Header) {
		if capAt < 0 && h.BaseOffset >= r.capNext {
			capAt = pos // the first record of a failed append
		}
		if capAt >= 0 {
			return
		}
		tsBefore = h.BaseTimestamp
		at := base + uint64(pos)
		if at-s.lastIndexedPos >= recoveryIndexIntervalBytes {
			s.added = append(s.added, indexEntry{offset: h.BaseOffset, timestamp: h.BaseTimestamp, position: at})
			s.lastIndexedPos = at
		}
	})
	if capAt >= 0 {
		res = scanResult{validBytes: capAt, next: r.capNext, lastTs: tsBefore}
	}
	s.pos += uint64(res.validBytes)
	s.next, s.lastTs = res.next, res.lastTs
	switch {
	case capAt >= 0:
		r.endSegment(l, s)
	case res.needBytes > 0 && s.pos+res.needBytes <= s.logBytes:
		r.readTail(l, s, res.needBytes) // a record crosses the end of this read
	case res.needBytes == 0 && res.validBytes == len(data) && s.pos < s.logBytes:
		r.readTail(l, s, 0)
	case r.reread(l, s):
	default:
		r.endSegment(l, s) // the end of the file, or a torn or corrupt record
	}
}

// reread reads s again from where a reopen's scan stopped, when it stopped
// on a bad record short of the bytes the broken log committed in s: a
// transient read fault passes on a later read, damage at rest fails
// reopenRereadsMax of them in a row and is then taken as a boot takes it
// (swarm seed 318696105: a record rotted at rest made every reopen fail,
// and the partition refused sends for good).
func (r *recovery) reread(l *Log, s *recSeg) bool {
	if r.capNext == math.MaxUint64 || s.pos >= s.logBytes || s.pos >= r.committedBytes(s.start) {
		return false
	}
	if s.rereadPos != s.pos {
		s.rereadPos, s.rereads = s.pos, 0
	}
	if s.rereads == reopenRereadsMax {
		s.rotten = true
		return false
	}
	s.rereads++
	r.readTail(l, s, 0)
	return true
}

// committedBytes is what the broken log had committed in the segment
// starting at start (0 when it had none, or at boot).
func (r *recovery) committedBytes(start uint64) uint64 {
	i, ok := slices.BinarySearchFunc(r.committed, start, func(c SegmentBytes, start uint64) int {
		return cmp.Compare(c.Start, start)
	})
	if !ok {
		return 0
	}
	return r.committed[i].Bytes
}

// endSegment settles one scanned segment. When nothing valid starts at the
// last index entry's position, the entry itself is wrong: drop it and scan
// again from the one before. A segment that does not start where the
// previous one ends breaks the log: it and all later ones are dropped, so
// the log stays the longest contiguous valid prefix.
func (r *recovery) endSegment(l *Log, s *recSeg) {
	if n := len(s.index); n > 0 && s.pos == s.index[n-1].position && s.pos < s.logBytes {
		s.index = s.index[:n-1]
		r.startTail(l, s)
		return
	}
	if r.cur > 0 {
		r.follow(l, r.segs[r.cur-1], s)
	}
	if s.dropped {
		r.cur = len(r.segs)
	} else {
		r.cur++
	}
	r.scanNext(l)
}

// follow settles sealed segment prev now that its successor s is known.
// With RefetchDamage, a segment that does not start where prev's valid
// records end breaks the log: it and all later ones are dropped, so the log
// stays the longest contiguous valid prefix and peers send the rest. Else
// prev is kept as found when its records end early (truncated or rotted at
// rest: the successor's name proves the offsets were assigned), and only a
// successor that overlaps prev's records, or on a Reopen one that starts
// at or past capNext (it holds failed appends only), is dropped.
func (r *recovery) follow(l *Log, prev, s *recSeg) {
	short := prev.next < s.start || prev.pos < prev.logBytes
	if !l.cfg.RefetchDamage && prev.next <= s.start && short && s.start < r.capNext {
		prev.damaged = true
		return
	}
	if s.start != prev.next {
		for _, later := range r.segs[r.cur:] {
			later.dropped = true
		}
	}
}

// repair issues every fix at once: the disk keeps per-file order, so a
// later append lands after its file's truncation. It then loads offsets.
func (r *recovery) repair(l *Log) {
	short := r.end() < r.capNext || r.missing() > r.missingMax
	if r.capNext != math.MaxUint64 && short && r.readShort() {
		// A reopen found less than the broken log had committed in a
		// file as large: a read that failed to check out, not a torn
		// write. Nothing is cut; the node tries again later.
		r.abort(l)
		return
	}
	r.deleteDropped(l)
	r.keepRottenTail(l)
	for i, s := range r.segs {
		if s.damaged {
			r.noteDamaged(l, i)
			continue
		}
		r.repairSegment(l, s)
	}
	if len(r.segs) == 0 {
		r.segs = append(r.segs[:0], &recSeg{}) // no segments at all: a new partition
		r.repairSegment(l, r.segs[0])
	}
	if r.stale {
		r.repairReq(l, storage.Request{Op: storage.OpDeleteTree, File: l.cfg.Dir + "/" + offsetsDir})
		return
	}
	if r.journalFound && r.journalBytes > 0 {
		r.wait++
		l.submit(storage.Request{Op: storage.OpRead, File: l.journalPath(producerJournalName),
			Len: min(r.journalBytes, producerJournalReadMax)}, reqRecovery, recRef(recProducers, 0))
	}
	for _, k := range []OffsetKind{Consumer, Group, External} {
		r.wait++
		l.submit(storage.Request{Op: storage.OpList, File: l.offsetDirPath(k)}, reqRecovery, recRef(recOffsetList, uint64(k)))
	}
}

// deleteDropped deletes the files of the dropped segments, a suffix of
// r.segs (follow), and leaves r.segs the kept ones.
func (r *recovery) deleteDropped(l *Log) {
	n := slices.IndexFunc(r.segs, func(s *recSeg) bool { return s.dropped })
	if n < 0 {
		return
	}
	for _, s := range r.segs[n:] {
		assert.That(s.dropped, "partition: a kept segment after a dropped one")
		r.result.DroppedSegments++
		r.repairReq(l, storage.Request{Op: storage.OpDelete, File: l.segmentPath(s.start, extLog)})
		r.repairReq(l, storage.Request{Op: storage.OpDelete, File: l.segmentPath(s.start, extIndex)})
	}
	r.segs = r.segs[:n]
}

// keepRottenTail keeps a reopen's last segment as found when a record of it
// rotted at rest short of what the broken log committed (reread): damaged,
// sealed, with the log going on in a new segment at the committed end, so
// the acknowledged offsets it lost are not assigned again, as a damaged
// sealed segment's are not. (A boot cuts such a tail, a crash having
// voided what was not synced; a reopen had no crash.) Its files are cut
// to what was committed, so no failed append's record or index entry is
// found there later; the new segment's files are created after the
// dropped segments' deletes, as one may bear its name: the disk keeps
// each file's order.
func (r *recovery) keepRottenTail(l *Log) {
	if r.capNext == math.MaxUint64 || len(r.segs) == 0 {
		return
	}
	s := r.segs[len(r.segs)-1]
	if !s.rotten || s.pos != s.rereadPos || s.next >= r.capNext {
		return
	}
	s.damaged = true
	if c := r.committedBytes(s.start); s.logBytes > c {
		r.repairReq(l, storage.Request{Op: storage.OpTruncate, File: l.segmentPath(s.start, extLog), Offset: c})
		s.logBytes = c
	}
	if indexLen := uint64(len(s.index)) * indexEntryBytes; s.indexBytes != indexLen {
		r.repairReq(l, storage.Request{Op: storage.OpTruncate, File: l.segmentPath(s.start, extIndex), Offset: indexLen})
	}
	r.segs = append(r.segs, &recSeg{start: r.capNext, next: r.capNext, lastTs: s.lastTs})
}

func (r *recovery) repairSegment(l *Log, s *recSeg) {
	if !s.hasLog {
		r.repairReq(l, storage.Request{Op: storage.OpCreate, File: l.segmentPath(s.start, extLog)})
	}
	if !s.hasIndex {
		r.repairReq(l, storage.Request{Op: storage.OpCreate, File: l.segmentPath(s.start, extIndex)})
	}
	if s.pos < s.logBytes {
		r.result.CutBytes += s.logBytes - s.pos
		r.repairReq(l, storage.Request{Op: storage.OpTruncate, File: l.segmentPath(s.start, extLog), Offset: s.pos})
	}
	indexLen := uint64(len(s.index)) * indexEntryBytes
	if s.indexBytes != indexLen {
		r.repairReq(l, storage.Request{Op: storage.OpTruncate, File: l.segmentPath(s.start, extIndex), Offset: indexLen})
	}
	if len(s.added) > 0 {
		data := make([][]byte, len(s.added))
		for i, e := range s.added {
			data[i] = e.encode()
		}
		r.repairReq(l, storage.Request{Op: storage.OpWrite, File: l.segmentPath(s.start, extIndex), Offset: indexLen, Data: data})
		s.index = append(s.index, s.added...)
	}
}

// readShort says whether a reopen's scan kept fewer bytes of a segment
// than the broken log had committed there while its file still holds that
// many, and no reread proved the record rotten: a read that did not check
// out. Segment by segment, since a file cut at rest excuses only its own
// shortfall, not a bad read of another segment (swarm seed 318696043: a
// sealed segment cut at rest let a bad read of the active one cut
// acknowledged records).
func (r *recovery) readShort() bool {
	i := 0
	for _, c := range r.committed {
		for i < len(r.segs) && r.segs[i].start < c.Start {
			i++
		}
		if i == len(r.segs) {
			return false
		}
		s := r.segs[i]
		if s.start != c.Start {
			continue // its files are gone: nothing was read wrong
		}
		kept := s.pos
		if s.dropped {
			kept = 0
		}
		if kept < c.Bytes && s.logBytes >= c.Bytes && !(s.rotten && s.pos == kept) {
			return true
		}
	}
	return false
}

// missing counts the offsets the damaged sealed segments lost.
func (r *recovery) missing() uint64 {
	var n uint64
	for i, s := range r.segs {
		if s.damaged && !s.dropped {
			n += r.segs[i+1].start - s.next
		}
	}
	return n
}

// end is the offset after the last valid record of the kept segments.
func (r *recovery) end() uint64 {
	for i := len(r.segs) - 1; i >= 0; i-- {
		if !r.segs[i].dropped {
			return r.segs[i].next
		}
	}
	return 0
}

// noteDamaged reports damaged sealed segment i, which is left as found:
// its bad bytes, and the offsets between its valid records and the next
// segment.
func (r *recovery) noteDamaged(l *Log, i int) {
	s, succ := r.segs[i], r.segs[i+1]
	r.result.Damaged = append(r.result.Damaged, Damaged{
		Path: l.segmentPath(s.start, extLog), FromByte: s.pos, ToByte: s.logBytes,
		FirstOffset: s.next, EndOffset: succ.start,
	})
}

func (r *recovery) repairReq(l *Log, req storage.Request) {
	r.wait++
	l.submit(req, reqRecovery, recRef(recRepair, 0))
}

func (r *recovery) onOffsetList(l *Log, kind OffsetKind, c storage.Completion) {
	for _, e := range c.Entries { // NotFound: no offsets stored yet
		id, err := strconv.ParseUint(e.Name, 10, 32)
		if e.IsDir || err != nil {
			continue
		}
		if len(r.offsets)+r.wait >= offsetsMax {
			r.result.DiscardedOffsets++
			continue
		}
		r.wait++
		l.submit(storage.Request{Op: storage.OpRead, File: l.offsetPath(kind, uint32(id)), Len: offsetRecordBytes + 1},
			reqRecovery, recRef(recOffsetRead, uint64(kind)<<32|id))
	}
}

func (r *recovery) onOffsetRead(key offsetKey, c storage.Completion) {
	switch {
	case c.Result == storage.ResultNotFound:
	case len(c.Data) > offsetRecordBytes:
		r.files[key] = offsetFileLong
	default:
		r.files[key] = offsetFileRecord
	}
	off, ok := decodeOffset(c.Data)
	if c.Result != storage.ResultOK || !ok {
		r.result.DiscardedOffsets++
		return
	}
	r.offsets[key] = off
}

// done counts a repair or offset request down and finishes at zero.
func (r *recovery) done(l *Log) {
	r.wait--
	assert.That(r.wait >= 0, "partition: recovery request count below zero")
	if r.wait == 0 && l.phase == phaseRecovering {
		r.finish(l)
	}
}

// finish builds the log from the scanned segments.
func (r *recovery) finish(l *Log) {
	l.segments = l.segments[:0]
	for _, rs := range r.segs {
		if rs.dropped {
			continue
		}
		s := &segment{
			start: rs.start, next: rs.next, sizeBytes: rs.pos,
			committedNext: rs.next, committedBytes: rs.pos,
			index: rs.index, indexCommitted: len(rs.index), state: segSealed,
		}
		if rs.next > rs.start {
			s.committedMaxTs = rs.lastTs
		}
		l.segments = append(l.segments, s)
		l.sizeBytes += rs.pos
		l.lastTimestamp = max(l.lastTimestamp, rs.lastTs)
	}
	for _, d := range r.result.Damaged {
		l.missing += d.EndOffset - d.FirstOffset
	}
	last := l.active()
	last.state = segOpen
	l.nextOffset, l.committedNext = last.next, last.next
	l.recoverProducers(r)
	var ahead []offsetKey
	for k, off := range r.offsets {
		if !l.cfg.KeepOffsetsAhead && k.kind != External && (l.Empty() || off > l.CurrentOffset()) {
			ahead = append(ahead, k)
			continue
		}
		l.offsets[k] = off
	}
	for k, f := range r.files {
		l.offsetFiles[k] = f
	}
	l.phase = phaseReady
	l.recovery = nil
	l.settleAhead(ahead, r)
	if last.sizeBytes >= l.cfg.SegmentSizeBytes {
		l.roll() // it filled up just before the crash: seal it, then start the next
		l.sealReady()
	}
	if r.rewriteMarker {
		l.dueMarker()
		l.writeRevision() // after every delete of an older incarnation's files
	}
	r.result.CurrentOffset = l.CurrentOffset()
	r.result.Segments = len(l.segments)
	l.emit(r.result)
}

// settleAhead rewrites the stored offsets that lie beyond the recovered head
// (their messages were lost): clamped to the head, or deleted when the
// partition is empty, since offset 0 was never consumed either. The files
// are rewritten, so a later boot does not find the stale value again.
func (l *Log) settleAhead(ahead []offsetKey, r *recovery) {
	slices.SortFunc(ahead, func(a, b offsetKey) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.id, b.id))
	})
	for _, k := range ahead {
		r.result.ClampedOffsets++
		if l.Empty() {
			l.offsets[k] = 0 // DeleteOffset needs the entry it deletes
			l.DeleteOffset(k.kind, k.id)
			continue
		}
		l.StoreOffset(k.kind, k.id, l.CurrentOffset(), true)
	}
}

// recoverProducers rebuilds the producer table from the journal read at
// boot; a journal that lost records is rewritten before the next one.
func (l *Log) recoverProducers(r *recovery) {
	p, dropped := replayProducerJournal(r.journal, l.committedNext)
	l.producers = p
	l.journal = producerJournal{exists: r.journalFound, bytes: r.journalBytes,
		compactNow: dropped || uint64(len(r.journal)) < r.journalBytes}
	l.syncRecoveredBatches()
}
