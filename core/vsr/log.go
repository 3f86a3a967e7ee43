package vsr

import (
	"slices"

	"github.com/iggygo/iggy/internal/assert"
)

// logOpsMax is the hard bound on the prepares a replica keeps in memory.
// The soft bound is Config.WindowOps; past it the oldest committed,
// applied and checkpointed prepares are dropped, so what stays is what a
// peer may still need for repair: everything after the newest checkpoint.
// A caller that checkpoints at least every WindowOps ops stays far below.
const logOpsMax = 1 << 20

// window is the tail of a replica's log held in memory: the prepares of
// ops base+1..head, served to peers for repair and view changes without
// reading the journal back.
type window struct {
	base         uint64 // op before entries[0]
	baseChecksum uint64 // checksum of the prepare of op base
	baseKnown    bool   // false when restarted without it (standalone)
	entries      []Prepare
	// ends[i] is the encoded size of the prepares up to entries[i], counted
	// from an arbitrary origin (baseEnd at base), so the bytes between two
	// ops cost one subtraction (VSR-17).
	ends    []uint64
	baseEnd uint64
}

func (w *window) head() uint64 { return w.base + uint64(len(w.entries)) }

// get returns the prepare of op if held.
func (w *window) get(op uint64) (*Prepare, bool) {
	if op <= w.base || op > w.head() {
		return nil, false
	}
	return &w.entries[op-w.base-1], true
}

// checksumAt returns the checksum of op's prepare (0 for op 0) if known.
func (w *window) checksumAt(op uint64) (uint64, bool) {
	if op == w.base {
		return w.baseChecksum, w.baseKnown
	}
	if p, ok := w.get(op); ok {
		return p.Checksum, true
	}
	return 0, false
}

// has reports whether op's prepare is known to have checksum c.
func (w *window) has(op, c uint64) bool {
	got, ok := w.checksumAt(op)
	return ok && got == c
}

func (w *window) headChecksum() uint64 {
	c, _ := w.checksumAt(w.head())
	return c
}

func (w *window) append(p Prepare) {
	if p.Op != w.head()+1 {
		assert.Failf("log: op %d after %d", p.Op, w.head())
	}
	if len(w.entries) >= logOpsMax {
		assert.Failf("log: %d prepares in memory", len(w.entries))
	}
	w.ends = append(w.ends, w.endAt(w.head())+uint64(PrepareHeaderSize+len(p.Body)))
	w.entries = append(w.entries, p)
}

// endAt is the running size at op, clamped to the ops held.
func (w *window) endAt(op uint64) uint64 {
	if op <= w.base || len(w.ends) == 0 {
		return w.baseEnd
	}
	return w.ends[min(op, w.head())-w.base-1]
}

// bytesAfter is the encoded size of the prepares held after op.
func (w *window) bytesAfter(op uint64) uint64 {
	return w.endAt(w.head()) - w.endAt(op)
}

// truncate drops the prepares after op.
func (w *window) truncate(op uint64) {
	if op < w.base {
		assert.Failf("log: truncate to %d below base %d", op, w.base)
	}
	if op < w.head() {
		clear(w.entries[op-w.base:])
		w.entries = w.entries[:op-w.base]
		w.ends = w.ends[:op-w.base]
	}
}

// evict drops prepares at or below upTo from the front while more than
// keep are held, or more than keepBytes of them (0: no byte bound).
func (w *window) evict(upTo uint64, keep int, keepBytes uint64) {
	n := 0
	for w.base+uint64(n)+1 <= upTo && (len(w.entries)-n > keep || keepBytes > 0 && w.heldAfter(n) > keepBytes) {
		n++
	}
	if n == 0 {
		return
	}
	last := w.entries[n-1]
	clear(w.entries[:n])
	w.entries = w.entries[n:]
	w.baseEnd = w.ends[n-1]
	w.ends = w.ends[n:]
	w.base, w.baseChecksum, w.baseKnown = last.Op, last.Checksum, true
}

// heldAfter is the encoded size of the prepares held once the first n go.
func (w *window) heldAfter(n int) uint64 {
	if n == 0 {
		return w.endAt(w.head()) - w.baseEnd
	}
	return w.endAt(w.head()) - w.ends[n-1]
}

// reset empties the log at a checkpoint.
func (w *window) reset(op, checksum uint64) {
	clear(w.entries)
	*w = window{base: op, baseChecksum: checksum, baseKnown: true}
}

// copyRange returns a copy of the prepares of ops first..last (clamped to
// what is held): messages outlive truncations of the window, bodies are
// never changed so they are shared.
func (w *window) copyRange(first, last uint64) []Prepare {
	first = max(first, w.base+1)
	last = min(last, w.head())
	if first > last {
		return nil
	}
	return slices.Clone(w.entries[first-w.base-1 : last-w.base])
}
