package partition

import (
	"math"
	"testing"

	"github.com/iggygo/iggy/wire"
)

func segmentedHarness(t *testing.T, cfg Config) *harness {
	cfg.SegmentSizeBytes = 1500
	h := newHarness(t, cfg)
	h.fill(20, 2, false) // about 6 segments, batch i stamped now0 + 10*i
	if len(h.log.segments) < 4 {
		t.Fatalf("want several segments, got %d", len(h.log.segments))
	}
	return h
}

// DeleteSegments deletes the oldest sealed segments, never the active one.
func TestDeleteSegments(t *testing.T) {
	h := segmentedHarness(t, testConfig())
	total := len(h.log.segments)
	second := h.log.segments[1]
	if n := h.log.DeleteSegments(1); n != 1 || h.log.segments[0] != second {
		t.Fatalf("deleted %d", n)
	}
	h.step()
	if h.disk.files[seg0Log] != nil || h.disk.files[seg0Index] != nil {
		t.Fatal("segment 0 files still there")
	}
	expectRun(t, messages(t, h.poll(StrategyFirst, 0, 100)), second.start, int(h.seq-second.start))
	expectRun(t, messages(t, h.poll(StrategyOffset, 0, 3)), second.start, 3)
	if n := h.log.DeleteSegments(100); n != total-2 || len(h.log.segments) != 1 {
		t.Fatalf("deleted %d of %d, %d left", n, total-2, len(h.log.segments))
	}
	st := h.log.Stats()
	if st.CurrentOffset != 39 || st.MessagesCount != 40-h.log.active().start {
		t.Fatalf("stats %+v", st)
	}
	if h.log.DeleteSegments(5) != 0 {
		t.Fatal("deleted the active segment")
	}
}

// Sealed segments expire when their newest batch is older than the expiry;
// the active segment never does (§10.4).
func TestRetentionExpiry(t *testing.T) {
	cfg := testConfig()
	cfg.MessageExpiryMicros = 1000
	h := segmentedHarness(t, cfg)
	s0, s1 := h.log.segments[0], h.log.segments[1]
	if n := h.log.Tick(s0.committedMaxTs + 999); n != 0 {
		t.Fatalf("expired %d too early", n)
	}
	if n := h.log.Tick(s0.committedMaxTs + 1000); n != 1 || h.log.segments[0] != s1 {
		t.Fatalf("expired %d", n)
	}
	sealed := len(h.log.segments) - 1
	if n := h.log.Tick(math.MaxUint64); n != sealed || len(h.log.segments) != 1 {
		t.Fatalf("expired %d of %d", n, sealed)
	}
	h.step()
	expectRun(t, messages(t, h.poll(StrategyFirst, 0, 100)), h.log.active().start, int(h.seq-h.log.active().start))
}

func TestRetentionNeverExpires(t *testing.T) {
	for _, expiry := range []uint64{0, math.MaxUint64} {
		cfg := testConfig()
		cfg.MessageExpiryMicros = expiry
		h := segmentedHarness(t, cfg)
		if n := h.log.Tick(math.MaxUint64); n != 0 {
			t.Fatalf("expiry %d: deleted %d", expiry, n)
		}
	}
}

// The size cap deletes the oldest sealed segments until the partition fits.
func TestRetentionSizeCap(t *testing.T) {
	cfg := testConfig()
	cfg.MaxSizeBytes = 4000
	h := segmentedHarness(t, cfg)
	before := h.log.Stats().SizeBytes
	sizes := make([]uint64, len(h.log.segments))
	for i, s := range h.log.segments {
		sizes[i] = s.sizeBytes
	}
	n := h.log.Tick(0)
	after := h.log.Stats().SizeBytes
	// Deleted just enough: one segment fewer would still be over the cap.
	if n == 0 || after > cfg.MaxSizeBytes || after+sizes[n-1] <= cfg.MaxSizeBytes {
		t.Fatalf("deleted %d, size %d -> %d", n, before, after)
	}
	// Only the active segment left over the cap: it stays.
	cfg.MaxSizeBytes = 1
	h = segmentedHarness(t, cfg)
	h.log.Tick(0)
	if len(h.log.segments) != 1 {
		t.Fatalf("%d segments left", len(h.log.segments))
	}
}

// A poll reading a segment that retention deletes meanwhile starts over
// at the new log start.
func TestPollRacesRetention(t *testing.T) {
	cfg := testConfig()
	cfg.CacheBytesMax = 0
	h := segmentedHarness(t, cfg)
	h.log.Poll(99, StrategyOffset, 0, 3)
	h.log.DeleteSegments(1)
	h.step()
	start := h.log.segments[0].start
	for _, e := range h.events {
		if p, ok := e.(PollDone); ok && p.ID == 99 {
			expectRun(t, messages(t, p), start, 3)
			return
		}
	}
	t.Fatal("poll not answered")
}

// Purge leaves one empty segment at offset 0 and no offsets; appends in
// flight fail and offset writes in flight are refused (CGRP-8).
// covers CGRP-8
func TestPurge(t *testing.T) {
	h := segmentedHarness(t, testConfig())
	h.log.StoreOffset(Consumer, 1, 5, false)
	h.step()
	tok, _ := h.append(1, false)
	otok := h.log.StoreOffset(Group, 2, 3, false)
	h.log.Purge(0)
	h.step()
	failed := map[uint64]bool{}
	for _, e := range h.events {
		if f, ok := e.(Failed); ok && f.Code == wire.TransientNotCommitted {
			failed[f.Token] = true
		}
	}
	if !failed[tok] || !failed[otok] {
		t.Fatalf("in-flight work not refused: %v", failed)
	}
	if !h.log.Empty() || len(h.log.segments) != 1 || h.log.Stats().SizeBytes != 0 {
		t.Fatalf("not empty after purge: %+v", h.log.Stats())
	}
	if _, ok := h.log.Offset(Consumer, 1); ok {
		t.Fatal("offset survived the purge")
	}
	for path := range h.disk.files {
		if path != seg0Log && path != seg0Index {
			t.Fatalf("file %s survived the purge", path)
		}
	}
	h.seq = 0
	checkRecovered(t, h, 0)
	if r := h.reopen(); r.CurrentOffset != 1 {
		t.Fatalf("recovered after purge %+v", r)
	}
}

// Polls waiting for the disk when a purge comes are answered empty.
func TestPurgeAnswersPendingPolls(t *testing.T) {
	cfg := testConfig()
	cfg.CacheBytesMax = 0
	h := segmentedHarness(t, cfg)
	h.log.Poll(7, StrategyFirst, 0, 5)
	h.log.Poll(3, StrategyFirst, 0, 5)
	h.log.Purge(0)
	h.step()
	var ids []uint64
	for _, e := range h.events {
		if p, ok := e.(PollDone); ok {
			if p.MessagesCount != 0 {
				t.Fatalf("poll %d answered with data after purge", p.ID)
			}
			ids = append(ids, p.ID)
		}
	}
	if len(ids) != 2 || ids[0] != 3 || ids[1] != 7 {
		t.Fatalf("answered %v, want [3 7] in id order", ids)
	}
}

// A poll that collected records from one segment and then finds the next
// one deleted ends with what it has rather than leave a gap.
func TestPollAcrossDeletedSegment(t *testing.T) {
	cfg := testConfig()
	cfg.CacheBytesMax = 0
	h := segmentedHarness(t, cfg)
	h.log.Poll(1, StrategyFirst, 0, 1000)
	h.log.Flush()
	h.disk.step(h.log) // the first segment's read completes
	h.log.DeleteSegments(2)
	h.step()
	for _, e := range h.events {
		if p, ok := e.(PollDone); ok && p.ID == 1 {
			msgs := messages(t, p)
			if len(msgs) == 0 || msgs[0].offset != 0 {
				t.Fatalf("poll returned %d messages", len(msgs))
			}
			expectRun(t, msgs, 0, len(msgs))
			return
		}
	}
	t.Fatal("poll not answered")
}

// covers CGRP-5
// Stored offsets hold back no retention: an external group's offset at the
// start of the log (as a consumer's or a group's would) does not keep an
// expired segment.
func TestRetentionIgnoresStoredOffsets(t *testing.T) {
	cfg := testConfig()
	cfg.MessageExpiryMicros = 1000
	h := segmentedHarness(t, cfg)
	for _, k := range []OffsetKind{External, Group, Consumer} {
		h.log.StoreOffset(k, 1, 0, true)
	}
	h.step()
	s1 := h.log.segments[1]
	if n := h.log.Tick(h.log.segments[0].committedMaxTs + 1000); n != 1 || h.log.segments[0] != s1 {
		t.Fatalf("expired %d with offsets stored at 0", n)
	}
}
