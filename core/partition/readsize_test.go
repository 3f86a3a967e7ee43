package partition

import (
	"testing"

	"github.com/iggygo/iggy/io/storage"
)

// A poll of a few messages from disk reads about their bytes, up to the
// index entry past the last one wanted, not ReadBytesMax.
// covers MSG-13
func TestPollReadsOnlyWhatItWants(t *testing.T) {
	cfg := testConfig()
	cfg.ReadBytesMax = 8 << 20
	cfg.CacheBytesMax = 1 // nothing cached: every poll reads the segment
	h := newHarness(t, cfg)
	for range 200 { // one flush, so one index entry, per batch of 10
		h.append(10, false)
		h.step()
	}
	h.disk.log = nil
	expectRun(t, messages(t, h.poll(StrategyOffset, 0, 10)), 0, 10)
	var read uint64
	for _, r := range h.disk.log {
		if r.Op == storage.OpRead {
			read += r.Len
		}
	}
	batchBytes := h.log.Stats().SizeBytes / 200
	if read == 0 || read > 2*batchBytes {
		t.Fatalf("a poll of one batch read %d bytes; one batch is %d", read, batchBytes)
	}
}
