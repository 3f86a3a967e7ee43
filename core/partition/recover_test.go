package partition

import (
	"testing"

	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

const (
	seg0Log   = testDir + "/00000000000000000000.log"
	seg0Index = testDir + "/00000000000000000000.index"
)

// recordEnds lists the end position of every record in a segment file.
func recordEnds(b []byte) []int {
	var ends []int
	for pos := 0; pos+batch.HeaderBytes <= len(b); {
		pos += int(batch.ParseHeader(b[pos:]).Length)
		ends = append(ends, pos)
	}
	return ends
}

// checkRecovered verifies a recovered log: offsets 0..n-1 read back, the
// on-disk files agree with memory, and appends continue at n.
func checkRecovered(t *testing.T, h *harness, n uint64) {
	t.Helper()
	if n == 0 {
		if !h.log.Empty() {
			t.Fatalf("want an empty log, current offset %d", h.log.CurrentOffset())
		}
	} else if h.log.CurrentOffset() != n-1 {
		t.Fatalf("current offset %d, want %d", h.log.CurrentOffset(), n-1)
	}
	if n > 0 {
		expectRun(t, messages(t, h.poll(StrategyFirst, 0, uint32(n)+10)), 0, int(n))
	}
	for _, s := range h.log.segments {
		if got := uint64(len(h.disk.get(h.log.segmentPath(s.start, extLog)))); got != s.sizeBytes {
			t.Fatalf("segment %d: file %d bytes, memory %d", s.start, got, s.sizeBytes)
		}
		if got := len(h.disk.get(h.log.segmentPath(s.start, extIndex))); got != len(s.index)*indexEntryBytes {
			t.Fatalf("segment %d: index file %d bytes, %d entries", s.start, got, len(s.index))
		}
	}
	h.seq = n
	_, base := h.append(2, true)
	h.step()
	if base != n {
		t.Fatalf("append after recovery at %d, want %d", base, n)
	}
	expectRun(t, messages(t, h.poll(StrategyOffset, n, 10)), n, 2)
}

// covers STOR-7
func TestRecoverClean(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 1500
	h := newHarness(t, cfg)
	h.fill(20, 2, true)
	segments := h.log.Stats().SegmentsCount
	r := h.reopen()
	if r.Code != wire.OK || r.CutBytes != 0 || r.DroppedSegments != 0 || r.CurrentOffset != 39 || r.Segments != int(segments) {
		t.Fatalf("recovered %+v (segments before %d)", r, segments)
	}
	checkRecovered(t, h, 40)
}

func TestRecoverEmptyDirectoryCreatesPartition(t *testing.T) {
	h := &harness{t: t, cfg: testConfig(), disk: newFakeDisk(), now: 1000}
	r := h.reopen()
	if r.Code != wire.OK || r.Segments != 1 || h.disk.files[seg0Log] == nil || h.disk.files[seg0Index] == nil {
		t.Fatalf("recovered %+v", r)
	}
	checkRecovered(t, h, 0)
}

// A torn last record, garbage after the last record and a corrupt last
// record are cut; every complete valid record before them is kept.
// covers STOR-45
func TestRecoverCutsBadTail(t *testing.T) {
	cases := map[string]struct {
		damage func(log []byte, ends []int) []byte
		keep   uint64 // messages kept of 10 batches of 2
	}{
		"torn mid-record": {func(b []byte, e []int) []byte { return b[:e[8]+100] }, 18},
		"torn mid-header": {func(b []byte, e []int) []byte { return b[:e[8]+10] }, 18},
		"garbage after":   {func(b []byte, e []int) []byte { return append(b, make([]byte, 1000)...) }, 20},
		"random garbage":  {func(b []byte, e []int) []byte { return append(b, []byte("not a record at all")...) }, 20},
		"bad checksum":    {func(b []byte, e []int) []byte { b[len(b)-1] ^= 1; return b }, 18},
		"bad batch sum":   {func(b []byte, e []int) []byte { b[e[7]+40] ^= 1; return b }, 16},
		"wrong offset":    {func(b []byte, e []int) []byte { b[e[8]+8] ^= 1; return b }, 18},
		"cut to nothing":  {func(b []byte, e []int) []byte { return b[:5] }, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, testConfig())
			h.fill(10, 2, true)
			log := h.disk.get(seg0Log)
			damaged := c.damage(append([]byte(nil), log...), recordEnds(log))
			h.disk.put(seg0Log, damaged)
			r := h.reopen()
			if r.Code != wire.OK || r.CutBytes == 0 {
				t.Fatalf("recovered %+v", r)
			}
			checkRecovered(t, h, c.keep)
		})
	}
}

// An index that lost entries, has entries the log never got, or ends in a
// partial entry is repaired from the log.
func TestRecoverRepairsIndex(t *testing.T) {
	cases := map[string]func(idx []byte) []byte{
		"missing":       func([]byte) []byte { return nil },
		"partial entry": func(b []byte) []byte { return append(b, 1, 2, 3) },
		"ahead of log":  func(b []byte) []byte { return append(b, indexEntry{100, 1 << 62, 1 << 40}.encode()...) },
		"garbage entry": func(b []byte) []byte { return append(b[:len(b)-indexEntryBytes], make([]byte, indexEntryBytes)...) },
		"bogus last":    func(b []byte) []byte { return append(b, indexEntry{21, 1 << 62, 5}.encode()...) },
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, testConfig())
			h.fill(10, 2, true)
			idx := damage(append([]byte(nil), h.disk.get(seg0Index)...))
			if idx == nil {
				delete(h.disk.files, seg0Index)
			} else {
				h.disk.put(seg0Index, idx)
			}
			if r := h.reopen(); r.Code != wire.OK || r.CutBytes != 0 {
				t.Fatalf("recovered %+v", r)
			}
			checkRecovered(t, h, 20)
		})
	}
}

// An index entry at a record the log lost (index written, log torn) is
// dropped with the torn record.
func TestRecoverIndexAtTornRecord(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(10, 2, true) // one flush: one index entry at 0
	h.append(2, true)
	h.step() // second flush: entry 2 at the end of the first chunk
	log := h.disk.get(seg0Log)
	ends := recordEnds(log)
	h.disk.put(seg0Log, log[:ends[9]+50])
	r := h.reopen()
	if r.CutBytes != 50 || len(h.log.segments[0].index) != 1 {
		t.Fatalf("recovered %+v, index %v", r, h.log.segments[0].index)
	}
	checkRecovered(t, h, 20)
}

// A lost index on a large segment is rebuilt sparsely by the scan.
func TestRecoverAddsIndexEntries(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 64 << 20
	h := newHarness(t, cfg)
	payload := make([]byte, 1<<20)
	for range 10 {
		rec, _ := batch.Build([]batch.Message{{Payload: payload}})
		h.log.Append(rec, h.now, false)
		h.step()
	}
	delete(h.disk.files, seg0Index)
	h.reopen()
	if n := len(h.log.segments[0].index); n < 2 || n > 3 {
		t.Fatalf("rebuilt %d entries for 10 MiB", n)
	}
	if p := h.poll(StrategyOffset, 9, 1); p.MessagesCount != 1 {
		t.Fatalf("poll %+v", p)
	}
}

// With RefetchDamage (a replica set), a sealed segment that no longer
// reaches the next one ends the log there: offsets stay contiguous, and the
// group fetches the rest from a peer.
func TestRecoverRefetchDamageDropsSegmentsAfterGap(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 1500
	cfg.RefetchDamage = true
	h := newHarness(t, cfg)
	h.fill(20, 2, true)
	if len(h.log.segments) < 3 {
		t.Fatalf("want at least 3 segments, got %d", len(h.log.segments))
	}
	first := h.log.segments[0]
	log := h.disk.get(seg0Log)
	h.disk.put(seg0Log, log[:recordEnds(log)[0]+7])
	r := h.reopen()
	if r.DroppedSegments < 2 || len(h.log.segments) != 1 || h.log.segments[0].start != first.start {
		t.Fatalf("recovered %+v, %d segments", r, len(h.log.segments))
	}
	checkRecovered(t, h, 2)
}

// A sealed segment truncated at rest (issue 11: `truncate -s` of a sealed
// segment made a restart delete the intact later segments and acknowledge
// new sends at offsets already acknowledged) is kept as found, every later
// segment survives, the current offset does not go back, the next append
// gets a fresh offset, and the offsets the segment lost are refused with
// SegmentNotFound while the rest reads back.
// covers STOR-7, STOR-45
func TestRecoverKeepsTruncatedSealedSegment(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 1500
	h := newHarness(t, cfg)
	h.fill(20, 2, true)
	if len(h.log.segments) < 4 {
		t.Fatalf("want at least 4 segments, got %d", len(h.log.segments))
	}
	damaged, succ := h.log.segments[1], h.log.segments[2]
	path := h.log.segmentPath(damaged.start, extLog)
	before := map[string][]byte{}
	for p := range h.disk.files {
		before[p] = append([]byte(nil), h.disk.get(p)...)
	}
	img := h.disk.get(path)
	ends := recordEnds(img)
	cut := uint64(ends[0] + 7) // inside the segment's second record
	h.disk.put(path, img[:cut])
	lost := damaged.start + 2 // the first record (2 messages) survives

	r := h.reopen()
	if r.Code != wire.OK || r.CurrentOffset != 39 || r.DroppedSegments != 0 || r.CutBytes != 0 {
		t.Fatalf("recovered %+v", r)
	}
	want := Damaged{Path: path, FromByte: uint64(ends[0]), ToByte: cut, FirstOffset: lost, EndOffset: succ.start}
	if len(r.Damaged) != 1 || r.Damaged[0] != want {
		t.Fatalf("damage reported %+v, want %+v", r.Damaged, want)
	}
	for p, b := range before {
		if p == path {
			b = b[:cut]
		}
		if got := h.disk.get(p); string(got) != string(b) {
			t.Fatalf("%s changed by recovery: %d bytes, was %d", p, len(got), len(b))
		}
	}
	if st := h.log.Stats(); st.MessagesCount != 40-(succ.start-lost) {
		t.Fatalf("stats %+v", st)
	}
	expectRun(t, messages(t, h.poll(StrategyFirst, 0, 100)), 0, int(lost))
	if p := h.poll(StrategyOffset, lost, 10); p.Code != wire.SegmentNotFound {
		t.Fatalf("poll of a lost offset: %+v", p)
	}
	expectRun(t, messages(t, h.poll(StrategyOffset, succ.start, 100)), succ.start, int(40-succ.start))
	h.seq = 40
	_, base := h.append(2, true)
	h.step()
	if base != 40 {
		t.Fatalf("append after recovery at %d, want 40", base)
	}
	// A second boot finds the same and changes nothing.
	if r2 := h.reopen(); r2.CurrentOffset != 41 || len(r2.Damaged) != 1 {
		t.Fatalf("second recovery %+v", r2)
	}
	// Retention deletes the damaged segment with the offsets it lost.
	if n := h.log.DeleteSegments(2); n != 2 || h.log.Stats().MessagesCount != 42-succ.start {
		t.Fatalf("deleted %d, stats %+v", n, h.log.Stats())
	}
}

// A segment that filled up just before a crash is sealed at boot and the
// next one created.
func TestRecoverRollsFullActiveSegment(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 1500
	h := newHarness(t, cfg)
	h.fill(20, 2, true)
	last := h.log.active()
	delete(h.disk.files, h.log.segmentPath(last.start, extLog))
	delete(h.disk.files, h.log.segmentPath(last.start, extIndex))
	h.reopen()
	if a := h.log.active(); a.start != last.start || a.sizeBytes != 0 || h.disk.files[h.log.segmentPath(a.start, extLog)] == nil {
		t.Fatalf("active segment %d size %d, want a new one at %d", a.start, a.sizeBytes, last.start)
	}
	checkRecovered(t, h, 40)
}

func TestRecoverIOErrorFails(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(2, 2, true)
	h.disk.fault = func(r storage.Request) storage.Result {
		if r.Op == storage.OpRead {
			return storage.ResultIOError
		}
		return storage.ResultOK
	}
	if r := h.reopen(); r.Code != wire.CannotReadPartitions {
		t.Fatalf("recovered %+v", r)
	}
	if h.log.CanAppend(10) == wire.OK || h.log.CanPoll() == wire.OK {
		t.Fatal("a failed partition serves")
	}
}

// Crash at random moments with the disk reordering across files: every
// append committed with sync=true survives, offsets stay contiguous, and
// recovery keeps every complete valid batch.
// covers STOR-45
func TestCrashKeepsSyncedAppends(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 2500
	cfg.CacheBytesMax = 2000
	for seed := range uint64(60) {
		rng := newRand(seed)
		h := newHarness(t, cfg)
		h.disk.rng = rng
		bases := make(map[uint64]uint64)
		steps := 5 + rng.IntN(40)
		for range steps {
			for range rng.IntN(4) {
				n := 1 + rng.IntN(3)
				tok, base := h.append(n, rng.IntN(2) == 0)
				bases[tok] = base + uint64(n)
			}
			h.log.Flush()
			for range rng.IntN(8) {
				h.disk.step(h.log)
			}
			for _, e := range h.log.TakeEvents() {
				if c, ok := e.(Committed); ok {
					h.events = append(h.events, c)
				}
			}
		}
		synced := lastSynced(h, bases) // offset after the last sync-committed append
		h.disk.crash(rng)
		h.disk.rng = nil
		survived := validPrefix(h.disk)
		r := h.reopen()
		if r.Code != wire.OK {
			t.Fatalf("seed %d: recovered %+v", seed, r)
		}
		n := h.log.committedNext
		if n < synced || n != survived {
			t.Fatalf("seed %d: recovered up to %d; %d were synced, %d survived", seed, n, synced, survived)
		}
		t.Logf("seed %d: synced %d recovered %d cut %d dropped %d", seed, synced, n, r.CutBytes, r.DroppedSegments)
		checkRecovered(t, h, n)
	}
}

// lastSynced is the offset after the last append whose commit implied a
// sync: a Committed for a sync append, and everything before it.
func lastSynced(h *harness, ends map[uint64]uint64) uint64 {
	var end uint64
	for _, e := range h.events {
		if c, ok := e.(Committed); ok && h.syncTokens[c.Token] {
			end = max(end, ends[c.Token])
		}
	}
	return end
}

// validPrefix counts, independently of the scanner, the messages of the
// complete valid records that a crash left on disk, segment after segment
// while offsets continue.
func validPrefix(d *fakeDisk) uint64 {
	var next uint64
	for _, e := range d.list(testDir) {
		start, ext, ok := parseSegmentName(e.Name)
		if !ok || ext != extLog || start != next {
			continue
		}
		b := d.get(testDir + "/" + e.Name)
		for len(b) >= batch.HeaderBytes {
			hd := batch.ParseHeader(b)
			if hd.Length > uint64(len(b)) {
				break
			}
			if _, code := batch.Validate(b[:hd.Length]); code != wire.OK || hd.BaseOffset != next {
				break
			}
			next += uint64(hd.Count)
			b = b[hd.Length:]
		}
	}
	return next
}

// A full recovery checks every record, not only those after the last
// index entry: a record that rotted early in a segment cuts the log there,
// where a boot's tail scan would not see it.
func TestRecoverFullyCutsEarlyDamage(t *testing.T) {
	h := newHarness(t, testConfig())
	for range 20 { // one chunk, so one index entry, per batch
		h.fill(1, 2, true)
		h.step()
	}
	img := h.disk.get(seg0Log)
	img[300] ^= 0xFF // in the first records, far below the last index entry
	h.disk.put(seg0Log, img)
	if r := h.reopen(); r.CurrentOffset != 39 {
		t.Fatalf("the tail scan saw the damage: %+v", r)
	}
	h.log = New(h.cfg, h.disk)
	h.events = nil
	h.log.RecoverFully(0)
	h.step()
	for _, e := range h.events {
		if r, ok := e.(Recovered); ok && (r.CurrentOffset >= 39 || r.CutBytes == 0) {
			t.Fatalf("full recovery kept the damaged record: %+v", r)
		}
	}
}

// A log broken by a failed write answered its uncommitted appends with
// the failure, though their records may have reached the disk; it cuts
// them at once, and if that fails, reopened, it cuts them then, so a send
// that got an error did not happen, and appends go on at the committed
// end (issue 11 item 6).
func TestReopenCutsFailedAppends(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(10, 2, true)
	h.disk.fault = func(r storage.Request) storage.Result {
		if r.File == seg0Index && r.Op == storage.OpWrite || r.Op == storage.OpTruncate {
			// The records are written, the log breaks, and its cut back
			// to the committed bytes fails too (or a crash came first).
			return storage.ResultIOError
		}
		return storage.ResultOK
	}
	h.fill(3, 2, true)
	failed, written := 0, false
	for _, e := range h.events {
		switch e := e.(type) {
		case Failed:
			failed++
		case WriteFailed:
			written = e.Code == wire.CannotSaveMessagesToSegment
		}
	}
	if failed != 3 || !written || !h.log.Broken() || h.log.ReopenPoint().CommittedNext != 20 {
		t.Fatalf("failed %d, reported %t, broken %t, committed %d", failed, written, h.log.Broken(), h.log.ReopenPoint().CommittedNext)
	}
	if n := len(recordEnds(h.disk.get(seg0Log))); n != 13 {
		t.Fatalf("%d records on disk, want the 3 failed ones written too", n)
	}
	h.disk.fault = nil
	committed := h.log.ReopenPoint().CommittedNext
	h.log = New(h.cfg, h.disk)
	h.events = nil
	h.log.Reopen(0, ReopenPoint{CommittedNext: committed})
	h.step()
	checkRecovered(t, h, 20)
}

// A reopen whose read of a committed record does not check out (a
// transient read fault) reads it again and keeps it; it used to cut
// acknowledged messages (swarm seed 197).
// covers VSR-28
func TestReopenKeepsCommittedOnBadRead(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(10, 2, true)
	from := h.log.ReopenPoint()
	good := append([]byte(nil), h.disk.get(seg0Log)...)
	h.disk.garble = garbleReads(seg0Log, uint64(recordEnds(good)[6]+100), reopenRereadsMax)
	h.log = New(h.cfg, h.disk)
	h.events = nil
	h.log.Reopen(0, from)
	h.step()
	h.disk.garble = nil
	checkRecovered(t, h, 20)
}

// garbleReads flips a bit at byte at of file path in the first n reads that
// cover it: what a transient read fault looks like.
func garbleReads(path string, at uint64, n int) func(storage.Request, []byte) {
	return func(r storage.Request, data []byte) {
		if r.File == path && n > 0 && at >= r.Offset && at < r.Offset+uint64(len(data)) {
			n--
			data[at-r.Offset] ^= 1
		}
	}
}

// lastRecovered is the last Recovered event the harness saw.
func lastRecovered(h *harness) Recovered {
	var r Recovered
	for _, e := range h.events {
		if rec, ok := e.(Recovered); ok {
			r = rec
		}
	}
	return r
}

// A sealed segment cut at rest excuses the offsets it lost, not a bad read
// of another segment: a reopen that also read the active segment's
// committed records wrong keeps them. It used to weigh the files' sizes
// all together, so the sealed segment's shortfall let it cut acknowledged
// records of the active one (swarm seed 318696043: an append acknowledged
// as persisted lost, its offsets assigned again).
// covers VSR-28
func TestReopenCutAtRestDoesNotExcuseBadRead(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 1500
	h := newHarness(t, cfg)
	h.fill(21, 2, true) // the last record in the active segment
	from := h.log.ReopenPoint()
	sealed := h.log.segmentPath(h.log.segments[1].start, extLog)
	active := h.log.segmentPath(h.log.active().start, extLog)
	img := h.disk.get(sealed)
	h.disk.put(sealed, img[:recordEnds(img)[0]+7])
	good := append([]byte(nil), h.disk.get(active)...)
	h.disk.garble = garbleReads(active, uint64(len(good)-10), 1)
	h.log = New(h.cfg, h.disk)
	h.events = nil
	h.log.Reopen(0, from)
	h.step()
	if r := lastRecovered(h); r.Code != wire.OK || len(r.Damaged) != 1 || r.CurrentOffset != 41 ||
		string(h.disk.get(active)) != string(good) {
		t.Fatalf("reopen over a bad read and a sealed segment cut at rest: %+v; active file %d bytes, was %d",
			r, len(h.disk.get(active)), len(good))
	}
}

// readShort weighs each segment on its own: a bad read that outlasts the
// rereads fails the reopen even where another segment was cut at rest.
func TestReopenReadShortPerSegment(t *testing.T) {
	r := &recovery{
		committed: []SegmentBytes{{Start: 0, Bytes: 100}, {Start: 10, Bytes: 200}},
		segs:      []*recSeg{{start: 0, pos: 50, logBytes: 60}, {start: 10, pos: 150, logBytes: 200}},
	}
	if !r.readShort() {
		t.Fatal("a segment short of its committed bytes in a file as large: not read short")
	}
	r.segs[1].rotten, r.segs[1].rereadPos = true, 150
	if r.readShort() {
		t.Fatal("a shortfall every reread confirmed: read short")
	}
	r.segs[1].rotten, r.segs[1].pos = false, 200
	if r.readShort() {
		t.Fatal("only a file cut at rest: read short")
	}
}

// A log broken by a failed write truncates its files back to what it
// committed: a write queued behind the failed one may have landed past a
// hole, and a boot trusts the records before the last index entry (swarm
// seed 172 served zeros after a kill).
func TestFailedWriteCutsUncommitted(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(10, 2, true)
	size := len(h.disk.get(seg0Log))
	h.disk.fault = func(r storage.Request) storage.Result {
		if r.File == seg0Index && r.Op == storage.OpWrite {
			return storage.ResultIOError
		}
		return storage.ResultOK
	}
	h.fill(3, 2, true)
	if got := len(h.disk.get(seg0Log)); got != size || len(h.disk.get(seg0Index)) != indexEntryBytes {
		t.Fatalf("log %d bytes (committed %d), index %d bytes", got, size, len(h.disk.get(seg0Index)))
	}
}

// A reopen that finds a sealed segment damaged which the broken log
// served whole reads it again: a read fault (swarm seed 55) passes and
// nothing is lost; rot at rest fails every reread and is taken as a boot
// takes it, kept as found, instead of failing every reopen while the
// partition refuses sends for good (swarm seed 318696105).
func TestReopenTellsReadFaultFromRot(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 1500
	h := newHarness(t, cfg)
	h.fill(20, 2, true)
	from := h.log.ReopenPoint()
	path := h.log.segmentPath(h.log.segments[1].start, extLog)
	good := append([]byte(nil), h.disk.get(path)...)
	at := recordEnds(good)[0] + 100
	h.disk.garble = garbleReads(path, uint64(at), 3)
	h.log = New(h.cfg, h.disk)
	h.events = nil
	h.log.Reopen(0, from)
	h.step()
	h.disk.garble = nil
	checkRecovered(t, h, 40)

	from = h.log.ReopenPoint()
	bad := append([]byte(nil), h.disk.get(path)...)
	bad[at] ^= 1
	h.disk.put(path, bad)
	h.log = New(h.cfg, h.disk)
	h.events = nil
	h.log.Reopen(0, from)
	h.step()
	if r := lastRecovered(h); r.Code != wire.OK || len(r.Damaged) != 1 || r.CurrentOffset != 41 {
		t.Fatalf("reopen over rot at rest: %+v", r)
	}
}

// A reopen that finds a sealed segment's file cut shorter than what the
// broken log committed (truncated at rest under the running log) takes it
// as a boot would, instead of failing for ever (swarm seed 130); a read
// fault leaves the files as large and fails (TestReopenFailsOnNewDamage).
func TestReopenTakesFileCutAtRest(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 1500
	h := newHarness(t, cfg)
	h.fill(20, 2, true)
	from := h.log.ReopenPoint()
	path := h.log.segmentPath(h.log.segments[1].start, extLog)
	img := h.disk.get(path)
	h.disk.put(path, img[:recordEnds(img)[0]+7])
	h.log = New(h.cfg, h.disk)
	h.events = nil
	h.log.Reopen(0, from)
	h.step()
	for _, e := range h.events {
		if r, ok := e.(Recovered); ok && (r.Code != wire.OK || len(r.Damaged) != 1 || r.CurrentOffset != 39) {
			t.Fatalf("reopen over a file cut at rest: %+v", r)
		}
	}
}

// A reopen that finds a record of the last segment rotted at rest keeps
// that segment as found, sealed and damaged, and goes on in a new segment
// at the broken log's committed end: the acknowledged offsets it lost are
// not assigned again (a cut tail would have given them to new appends,
// two messages acknowledged at one offset), and a later boot keeps it so.
// covers VSR-28
func TestReopenKeepsRottenTailAsFound(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 1500
	h := newHarness(t, cfg)
	h.fill(23, 2, true) // three records in the active segment
	from := h.log.ReopenPoint()
	start := h.log.active().start
	active := h.log.segmentPath(start, extLog)
	img := append([]byte(nil), h.disk.get(active)...)
	ends := recordEnds(img)
	if len(ends) < 2 {
		t.Fatalf("active segment holds %d records", len(ends))
	}
	img[ends[0]+20] ^= 1 // the second record rots
	h.disk.put(active, img)
	h.log = New(h.cfg, h.disk)
	h.events = nil
	h.log.Reopen(0, from)
	h.step()
	r := lastRecovered(h)
	if r.Code != wire.OK || len(r.Damaged) != 1 || r.Damaged[0].EndOffset != 46 || r.CurrentOffset != 45 {
		t.Fatalf("reopen over a rotten record of the last segment: %+v", r)
	}
	_, base := h.append(2, true)
	h.step()
	if base != 46 {
		t.Fatalf("append after the reopen at %d, want 46", base)
	}
	h.log = New(h.cfg, h.disk)
	h.events = nil
	h.log.Recover(0)
	h.step()
	if r := lastRecovered(h); r.Code != wire.OK || len(r.Damaged) != 1 || r.CurrentOffset != 47 {
		t.Fatalf("boot after the reopen: %+v", r)
	}
}
