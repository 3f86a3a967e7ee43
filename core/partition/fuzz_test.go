package partition

import (
	"testing"

	"github.com/iggygo/iggy/wire/batch"
)

// sampleSegment returns the .log and .index bytes of a small real segment.
func sampleSegment(t testing.TB) (log, index []byte) {
	h := newHarness(t, testConfig())
	for range 3 {
		h.fill(2, 2, true)
	}
	return append([]byte(nil), h.disk.get(seg0Log)...), append([]byte(nil), h.disk.get(seg0Index)...)
}

// The scanner never panics, accepts only a prefix of whole records, and
// whatever it accepts is contiguous from the expected offset.
func FuzzScanRecords(f *testing.F) {
	log, _ := sampleSegment(f)
	f.Add(log, uint64(0))
	f.Add(log[:len(log)-7], uint64(0))
	f.Add(append(log, 0, 0, 0), uint64(0))
	f.Add([]byte{}, uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, expect uint64) {
		var positions []int
		r := scanRecords(data, expect, 0, func(pos int, h batch.Header) { positions = append(positions, pos) })
		if r.validBytes > len(data) || len(positions) != r.records {
			t.Fatalf("scan accepted %d of %d bytes, %d records, %d visits", r.validBytes, len(data), r.records, len(positions))
		}
		next, pos := expect, 0
		for _, p := range positions {
			h := batch.ParseHeader(data[p:])
			if p != pos || h.BaseOffset != next {
				t.Fatalf("record at %d not contiguous", p)
			}
			pos += int(h.Length)
			next += uint64(h.Count)
		}
		if pos != r.validBytes || next != r.next {
			t.Fatalf("scan result %+v disagrees with its records", r)
		}
	})
}

// The index reader never panics and keeps only ordered, in-range entries.
func FuzzParseIndex(f *testing.F) {
	_, index := sampleSegment(f)
	f.Add(index, uint64(0), uint64(1<<20))
	f.Add(append(index, 1, 2, 3), uint64(0), uint64(100))
	f.Add([]byte{}, uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, b []byte, start, logBytes uint64) {
		entries := parseIndex(b, start, logBytes)
		if len(entries) > len(b)/indexEntryBytes {
			t.Fatal("more entries than the bytes hold")
		}
		for i, e := range entries {
			if e.offset < start || e.position >= logBytes {
				t.Fatalf("entry %d out of range: %+v", i, e)
			}
			if i > 0 && (e.offset <= entries[i-1].offset || e.position <= entries[i-1].position || e.timestamp < entries[i-1].timestamp) {
				t.Fatalf("entry %d out of order", i)
			}
		}
	})
}

// Recovery over arbitrary segment bytes never panics, keeps a valid
// prefix, and leaves files and memory in agreement.
func FuzzRecover(f *testing.F) {
	log, index := sampleSegment(f)
	f.Add(log, index)
	f.Add(log[:len(log)-100], index)
	f.Add(append(log, log[:300]...), index[:10])
	f.Add([]byte("garbage"), []byte{})
	f.Fuzz(func(t *testing.T, log, index []byte) {
		h := &harness{t: t, cfg: testConfig(), disk: newFakeDisk(), now: 1 << 40}
		h.disk.put(seg0Log, log)
		h.disk.put(seg0Index, index)
		h.reopen()
		s := h.log.segments[0]
		if got := len(h.disk.get(seg0Log)); uint64(got) != s.sizeBytes || got > len(log) {
			t.Fatalf("log %d bytes, memory %d", got, s.sizeBytes)
		}
		if got := len(h.disk.get(seg0Index)); got != len(s.index)*indexEntryBytes {
			t.Fatalf("index %d bytes, %d entries", got, len(s.index))
		}
		if !h.log.Empty() {
			p := h.poll(StrategyFirst, 0, 1<<20)
			if n := uint64(len(messages(t, p))); n != h.log.committedNext && p.MessagesCount != 0 {
				t.Fatalf("read back %d of %d", n, h.log.committedNext)
			}
		}
	})
}
