package vsr

import "testing"

// The prepares kept for peers' repairs past the checkpoint obey a byte
// budget as well as an op count: the oldest go first, never one above the
// checkpoint. A peer that needs an evicted one gets a state transfer.
// covers VSR-20, VSR-21
func TestWindowEvictsPastItsByteBudget(t *testing.T) {
	w := window{}
	for op := uint64(1); op <= 10; op++ {
		w.append(Prepare{Op: op, Body: make([]byte, 100-PrepareHeaderSize)})
	}
	w.evict(8, 1000, 350)
	if w.base != 7 || w.bytesAfter(w.base) != 300 {
		t.Fatalf("base %d holding %d bytes, want base 7 holding 300", w.base, w.bytesAfter(w.base))
	}
	w.evict(8, 1000, 50)
	if w.base != 8 {
		t.Fatalf("evicted to %d past the checkpoint 8", w.base)
	}
}
