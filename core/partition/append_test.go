package partition

import (
	"testing"

	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// covers MSG-13
func TestAppendCommitsInOffsetOrder(t *testing.T) {
	h := newHarness(t, testConfig())
	var tokens []uint64
	for i := range 3 {
		tok, base := h.append(i+1, false)
		if want := []uint64{0, 1, 3}[i]; base != want {
			t.Fatalf("append %d: base %d, want %d", i, base, want)
		}
		tokens = append(tokens, tok)
	}
	if len(h.committed()) != 0 {
		t.Fatal("committed before the flush")
	}
	h.step()
	var got []uint64
	for _, e := range h.events {
		if c, ok := e.(Committed); ok {
			got = append(got, c.Token)
		}
	}
	if len(got) != 3 || got[0] != tokens[0] || got[1] != tokens[1] || got[2] != tokens[2] {
		t.Fatalf("commit order %v, want %v", got, tokens)
	}
	if h.log.CurrentOffset() != 5 || h.log.Empty() {
		t.Fatalf("current offset %d", h.log.CurrentOffset())
	}
	st := h.log.Stats()
	if st.MessagesCount != 6 || st.SegmentsCount != 1 || st.CurrentOffset != 5 || st.SizeBytes == 0 {
		t.Fatalf("stats %+v", st)
	}
	// The first segment starts at offset 0 with a zero-padded 20-digit name.
	log := h.disk.get(testDir + "/00000000000000000000.log")
	if uint64(len(log)) != st.SizeBytes {
		t.Fatalf("log file %d bytes, stats %d", len(log), st.SizeBytes)
	}
	hd, code := batch.Validate(log[:batch.ParseHeader(log).Length])
	if code != wire.OK || hd.PartitionID != 2 || hd.BaseOffset != 0 || hd.BaseTimestamp != h.now {
		t.Fatalf("stored record: code %d header %+v", code, hd)
	}
}

// One flush is one vectored write, one index entry and, when any append
// asked for it, one fdatasync (group commit).
func TestFlushGroupCommit(t *testing.T) {
	h := newHarness(t, testConfig())
	h.disk.log = nil
	h.append(1, false)
	h.append(2, true)
	h.append(1, false)
	h.step()
	var ops []storage.Op
	for _, r := range h.disk.log {
		ops = append(ops, r.Op)
	}
	want := []storage.Op{storage.OpWrite, storage.OpWrite, storage.OpSync}
	if len(ops) != len(want) || ops[0] != want[0] || ops[1] != want[1] || ops[2] != want[2] {
		t.Fatalf("requests %v, want %v", ops, want)
	}
	if w := h.disk.log[0]; len(w.Data) != 3 || w.File != testDir+"/00000000000000000000.log" {
		t.Fatalf("log write %+v", w)
	}
	if idx := h.disk.get(testDir + "/00000000000000000000.index"); len(idx) != indexEntryBytes {
		t.Fatalf("index holds %d bytes after one flush", len(idx))
	}
}

// A sync append commits only once its fdatasync completed; a plain one as
// soon as its write did.
func TestSyncAppendWaitsForSync(t *testing.T) {
	for _, sync := range []bool{false, true} {
		h := newHarness(t, testConfig())
		tok, _ := h.append(1, sync)
		h.log.Flush()
		// Run only the .log write.
		for i, r := range h.disk.queue {
			if r.Op == storage.OpWrite && r.File == testDir+"/00000000000000000000.log" {
				h.disk.queue = append(h.disk.queue[:i], h.disk.queue[i+1:]...)
				h.log.Complete(h.disk.exec(r))
				break
			}
		}
		h.events = append(h.events, h.log.TakeEvents()...)
		if _, ok := h.committed()[tok]; ok == sync {
			t.Fatalf("sync=%v: committed after the write: %v", sync, ok)
		}
		h.step()
		if p := h.poll(StrategyFirst, 0, 10); len(messages(t, p)) != 1 {
			t.Fatalf("sync=%v: poll after all completions: %+v", sync, p)
		}
	}
}

// base_timestamp is the append time, never going backwards.
func TestTimestampsMonotonic(t *testing.T) {
	h := newHarness(t, testConfig())
	h.append(1, false)
	h.now -= 500 // the clock stepped back
	h.append(1, false)
	h.step()
	msgs := messages(t, h.poll(StrategyFirst, 0, 10))
	if msgs[0].timestamp != msgs[1].timestamp || msgs[0].timestamp != h.now+500 {
		t.Fatalf("timestamps %d %d", msgs[0].timestamp, msgs[1].timestamp)
	}
}

// The segment rolls once it reaches the size cap; the next segment's files
// are created only after the old one was synced (STOR-45).
func TestRollSealsBeforeCreate(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 2000
	h := newHarness(t, cfg)
	h.disk.log = nil
	h.fill(20, 3, false) // 20 records of ~420 bytes
	st := h.log.Stats()
	if st.SegmentsCount < 4 || st.MessagesCount != 60 {
		t.Fatalf("stats %+v", st)
	}
	synced := make(map[string]bool)
	for _, r := range h.disk.log {
		switch r.Op {
		case storage.OpSync:
			synced[r.File] = true
		case storage.OpCreate:
			prev := h.log.segments[h.log.segmentIndex(mustStart(t, r.File))-1]
			if !synced[h.log.segmentPath(prev.start, extLog)] || !synced[h.log.segmentPath(prev.start, extIndex)] {
				t.Fatalf("%s created before segment %d was sealed", r.File, prev.start)
			}
		}
	}
	for i, s := range h.log.segments {
		if i < len(h.log.segments)-1 && (s.state != segSealed || s.sizeBytes < cfg.SegmentSizeBytes) {
			t.Fatalf("segment %d: state %d size %d", s.start, s.state, s.sizeBytes)
		}
		if i > 0 && s.start != h.log.segments[i-1].next {
			t.Fatal("segments not contiguous")
		}
	}
	expectRun(t, messages(t, h.poll(StrategyFirst, 0, 100)), 0, 60)
}

func mustStart(t *testing.T, path string) uint64 {
	start, _, ok := parseSegmentName(path[len(testDir)+1:])
	if !ok {
		t.Fatalf("not a segment path: %s", path)
	}
	return start
}

// With the disk reordering requests across files (but FIFO per file), the
// log still commits every append in order and reads back everything.
func TestReorderedDisk(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentSizeBytes = 3000
	cfg.CacheBytesMax = 1000
	for seed := range uint64(20) {
		h := newHarness(t, cfg)
		h.disk.rng = newRand(seed)
		for i := range 30 {
			h.append(1+i%4, i%3 == 0)
			if i%5 == 0 {
				h.log.Flush()
				for range h.disk.rng.IntN(4) {
					h.disk.step(h.log)
				}
			}
		}
		h.step()
		if n := len(h.committed()); n != 30 {
			t.Fatalf("seed %d: %d commits", seed, n)
		}
		expectRun(t, messages(t, h.poll(StrategyFirst, 0, 1000)), 0, int(h.seq))
	}
}

func TestWriteFailureBreaksLog(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(1, 1, false)
	h.disk.fault = func(r storage.Request) storage.Result {
		if r.Op == storage.OpWrite {
			return storage.ResultIOError
		}
		return storage.ResultOK
	}
	tok, _ := h.append(1, true)
	h.step()
	failed := false
	for _, e := range h.events {
		if f, ok := e.(Failed); ok && f.Token == tok && f.Code == wire.CannotSaveMessagesToSegment {
			failed = true
		}
	}
	if !failed || h.log.CanAppend(100) != wire.CannotSaveMessagesToSegment {
		t.Fatalf("failed %v, CanAppend %d", failed, h.log.CanAppend(100))
	}
	// Committed data still serves.
	expectRun(t, messages(t, h.poll(StrategyFirst, 0, 10)), 0, 1)
}

func TestAppendBounds(t *testing.T) {
	h := newHarness(t, testConfig())
	for range appendsQueuedMax {
		h.append(1, false)
	}
	if h.log.CanAppend(10) != wire.TransientNotAccepted {
		t.Fatal("queue bound not enforced")
	}
	h.step()
	if h.log.CanAppend(10) != wire.OK {
		t.Fatal("queue not released by commits")
	}
}
