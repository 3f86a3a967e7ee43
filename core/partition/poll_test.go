package partition

import (
	"testing"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// pollCases runs the same polls against a log served from the cache and
// one served from disk.
func pollConfigs() map[string]Config {
	cached := testConfig()
	disk := testConfig()
	disk.CacheBytesMax = 0
	disk.SegmentSizeBytes = 1500 // several segments
	return map[string]Config{"cache": cached, "disk": disk}
}

// covers MSG-10, MSG-13
func TestPollOffsetFirstLast(t *testing.T) {
	for name, cfg := range pollConfigs() {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, cfg)
			h.fill(10, 3, false) // offsets 0..29 in batches of 3
			expectRun(t, messages(t, h.poll(StrategyFirst, 0, 5)), 0, 5)
			expectRun(t, messages(t, h.poll(StrategyOffset, 4, 7)), 4, 7) // sliced at both ends
			expectRun(t, messages(t, h.poll(StrategyNext, 28, 7)), 28, 2)
			expectRun(t, messages(t, h.poll(StrategyLast, 0, 4)), 26, 4)
			expectRun(t, messages(t, h.poll(StrategyLast, 0, 100)), 0, 30)
			expectRun(t, messages(t, h.poll(StrategyOffset, 0, 1000)), 0, 30)
			for _, p := range []PollDone{h.poll(StrategyOffset, 30, 5), h.poll(StrategyFirst, 0, 0)} {
				if p.MessagesCount != 0 || len(p.Records) != 0 || p.CurrentOffset != 29 || p.Code != wire.OK {
					t.Fatalf("want an empty reply, got %+v", p)
				}
			}
		})
	}
}

// A sliced record keeps base_offset; its first delta can be above 0 (§5.6).
func TestPollSlicedRecordKeepsBaseOffset(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(1, 5, false)
	p := h.poll(StrategyOffset, 2, 2)
	if len(p.Records) != 2 || len(p.Records[0]) != batch.HeaderBytes {
		t.Fatalf("want a header and frames, got %d parts", len(p.Records))
	}
	hd := batch.ParseHeader(p.Records[0])
	if hd.BaseOffset != 0 || hd.Count != 2 || hd.Length != uint64(batch.HeaderBytes+len(p.Records[1])) {
		t.Fatalf("sliced header %+v", hd)
	}
	expectRun(t, messages(t, p), 2, 2)
}

// A timestamp poll starts at the first batch with base_timestamp >= value.
// covers MSG-11
func TestPollTimestamp(t *testing.T) {
	for name, cfg := range pollConfigs() {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, cfg)
			t0 := h.now
			h.fill(10, 2, false) // batch i stamped t0 + 10*i
			for i := range uint64(10) {
				msgs := messages(t, h.poll(StrategyTimestamp, t0+10*i-5, 3))
				expectRun(t, msgs, 2*i, int(min(3, 20-2*i)))
				if msgs[0].timestamp != t0+10*i {
					t.Fatalf("timestamp %d, want %d", msgs[0].timestamp, t0+10*i)
				}
			}
			expectRun(t, messages(t, h.poll(StrategyTimestamp, 0, 100)), 0, 20)
			if p := h.poll(StrategyTimestamp, t0+1000, 3); p.MessagesCount != 0 {
				t.Fatalf("future timestamp: %+v", p)
			}
		})
	}
}

// The cache keeps a bounded suffix; older offsets are read from disk.
func TestPollCacheBoundary(t *testing.T) {
	cfg := testConfig()
	cfg.CacheBytesMax = 3000
	h := newHarness(t, cfg)
	h.fill(40, 2, false)
	if h.log.cache.bytes > cfg.CacheBytesMax || len(h.log.cache.view()) == 0 {
		t.Fatalf("cache holds %d bytes", h.log.cache.bytes)
	}
	first := h.log.cache.view()[0].base
	reads := len(h.disk.log)
	expectRun(t, messages(t, h.poll(StrategyOffset, first, 100)), first, int(h.seq-first))
	if len(h.disk.log) != reads {
		t.Fatal("a cached poll read the disk")
	}
	expectRun(t, messages(t, h.poll(StrategyOffset, first-3, 10)), first-3, 10)
	if len(h.disk.log) == reads {
		t.Fatal("an uncached poll did not read the disk")
	}
}

// A disk poll is bounded by ReadBytesMax but returns at least one record.
func TestPollByteBound(t *testing.T) {
	cfg := testConfig()
	cfg.CacheBytesMax = 0
	h := newHarness(t, cfg)
	for range 3 {
		big, _ := batch.Build([]batch.Message{{Payload: make([]byte, readBytesMin)}})
		h.log.Append(big, h.now, false)
	}
	h.step()
	p := h.poll(StrategyFirst, 0, 10)
	if p.MessagesCount != 1 {
		t.Fatalf("want exactly one oversized record, got %d", p.MessagesCount)
	}
}

// A corrupt record on disk fails the poll instead of serving it
// (validate_checksum).
func TestPollDetectsCorruption(t *testing.T) {
	cfg := testConfig()
	cfg.CacheBytesMax = 0
	h := newHarness(t, cfg)
	h.fill(2, 2, false)
	h.disk.get(testDir + "/00000000000000000000.log")[batch.HeaderBytes+batch.FrameHeaderBytes] ^= 1
	if p := h.poll(StrategyFirst, 0, 10); p.Code != wire.CannotReadMessage || p.MessagesCount != 0 {
		t.Fatalf("poll of corrupt data: %+v", p)
	}
}

// A record whose count field reads as 0 (a corrupted read) is not taken
// for a record before the wanted offsets: the poll fails instead of
// answering nothing where messages are, with checksums on or off
// (swarm seed 60757).
func TestPollDetectsCorruptCountOfSkippedRecord(t *testing.T) {
	for _, skip := range []bool{false, true} {
		cfg := testConfig()
		cfg.CacheBytesMax, cfg.SkipReadChecksums = 0, skip
		h := newHarness(t, cfg)
		h.fill(2, 1, false) // two records of one message each, in one chunk at most
		log := h.disk.get(testDir + "/00000000000000000000.log")
		second := batch.ParseHeader(log).Length
		const countField = 48 // wire/batch's offCount
		log[second+countField] = 0
		if p := h.poll(StrategyOffset, 1, 10); p.Code != wire.CannotReadMessage {
			t.Fatalf("skip checksums %t: poll from offset 1 over a zero count: %+v", skip, p)
		}
	}
}

func TestPollBound(t *testing.T) {
	cfg := testConfig()
	cfg.CacheBytesMax = 0
	h := newHarness(t, cfg)
	h.fill(1, 1, false)
	for i := range pollsPendingMax {
		h.log.Poll(uint64(i), StrategyFirst, 0, 1)
	}
	if h.log.CanPoll() != wire.TransientNotAccepted {
		t.Fatal("poll bound not enforced")
	}
	h.step()
	if h.log.CanPoll() != wire.OK {
		t.Fatal("polls not released")
	}
}

// A record that rotted at rest fails every poll that reads it with 4011,
// and the place (file, byte range) is reported once, not per poll (issue
// 11: a corrupt byte made a whole batch unreadable with no log line).
func TestPollReportsDamageOnce(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(10, 2, true)
	h.reopen() // an empty cache: polls read the disk
	img := h.disk.get(seg0Log)
	ends := recordEnds(img)
	img[ends[3]+100] ^= 0x40 // inside the fifth record (offsets 8, 9)
	h.disk.put(seg0Log, img)
	for range 3 {
		if p := h.poll(StrategyOffset, 8, 2); p.Code != wire.CannotReadMessage {
			t.Fatalf("poll of a rotted record: %+v", p)
		}
	}
	reports := damageReports(h.events)
	want := Damaged{Path: seg0Log, FromByte: uint64(ends[3]), ToByte: uint64(ends[4])}
	if len(reports) != 1 || reports[0] != want {
		t.Fatalf("reported %+v, want once %+v", reports, want)
	}
	expectRun(t, messages(t, h.poll(StrategyOffset, 0, 8)), 0, 8)
}

// A segment file cut shorter than its committed bytes under a running log
// (truncated at rest) fails the poll with 4011 and reports the place; a
// poll used to read the same short answer again for ever (swarm seed 8).
func TestPollOfTruncatedFileAnswers(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(10, 2, true)
	h.reopen() // an empty cache: polls read the disk
	img := h.disk.get(seg0Log)
	ends := recordEnds(img)
	h.disk.put(seg0Log, img[:ends[5]+30])
	h.pollID++
	h.log.Poll(h.pollID, StrategyOffset, 0, 20)
	for range 100 {
		if !h.disk.step(h.log) {
			break
		}
	}
	events := h.log.TakeEvents()
	var done *PollDone
	for _, e := range events {
		if p, ok := e.(PollDone); ok {
			done = &p
		}
	}
	reports := damageReports(events)
	if done == nil || done.Code != wire.CannotReadMessage {
		t.Fatalf("poll of a truncated file: %+v", done)
	}
	if len(reports) != 1 || reports[0].FromByte != uint64(ends[5]+30) || reports[0].ToByte != uint64(len(img)) {
		t.Fatalf("reported %+v", reports)
	}
}

// damageReports picks the Damaged events.
func damageReports(events []Event) []Damaged {
	var out []Damaged
	for _, e := range events {
		if d, ok := e.(Damaged); ok {
			out = append(out, d)
		}
	}
	return out
}
