package server

import (
	"runtime"
	"testing"
)

// Sizes are rounded up by at most a quarter, never down.
func TestClassBytesBounds(t *testing.T) {
	for n := 1; n <= readBufferBytesMax; n += 4093 {
		c := classBytes(n)
		if c < n || (n > readBufferBytesMin && c > n+n/4+1) {
			t.Fatalf("class of %d is %d", n, c)
		}
		if classBytes(c) != c {
			t.Fatalf("class %d is not its own class (%d)", c, classBytes(c))
		}
	}
}

// A buffer comes back for reuse only through a reply that was matched and
// then reported written; a part outside any lent buffer matches nothing.
func TestLendMatchGiveBack(t *testing.T) {
	b := newReadBuffers()
	buf := b.lend(1 << 20)
	if len(buf) < 1<<20 {
		t.Fatalf("lent %d bytes", len(buf))
	}
	other := make([]byte, 100)
	if owned := b.match([][]byte{other}); owned != nil {
		t.Fatalf("matched a foreign part: %d", len(owned))
	}
	parts := [][]byte{other, buf[10:20], buf[500:600]} // two slices of one buffer
	owned := b.match(parts)
	if len(owned) != 1 || &owned[0][0] != &buf[0] || cap(owned[0]) != cap(buf) {
		t.Fatalf("matched %d buffers", len(owned))
	}
	if again := b.match(parts); again != nil {
		t.Fatal("a buffer was matched to two replies")
	}
	if next := b.lend(1 << 20); &next[0] == &buf[0] {
		t.Fatal("a buffer was lent again before its reply was written")
	}
	b.giveBack(owned)
	if next := b.lend(1 << 20); &next[0] != &buf[0] {
		t.Fatal("a written buffer was not reused")
	}
}

// A read whose data the node dropped is forgotten once the GC frees it.
func TestDroppedBufferIsPruned(t *testing.T) {
	b := newReadBuffers()
	for range readBuffersPruneMin {
		_ = b.lend(1 << 20) // dropped at once
	}
	runtime.GC()
	b.prune()
	if len(b.lent) != 0 {
		t.Fatalf("%d freed buffers still tracked", len(b.lent))
	}
}

// Reads too small or too large to pool allocate their own buffer.
func TestLendRefusesOutOfRange(t *testing.T) {
	b := newReadBuffers()
	if b.lend(100) != nil || b.lend(readBufferBytesMax+1) != nil {
		t.Fatal("lent a buffer out of range")
	}
}
