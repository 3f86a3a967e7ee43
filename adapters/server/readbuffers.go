package server

import (
	"math/bits"
	"sync"
	"unsafe"
	"weak"

	"github.com/iggygo/iggy/internal/assert"
)

// Bounds of the read buffer pool.
const (
	// readBufferBytesMin is the smallest buffer lent: smaller reads are
	// cheap to allocate and not worth tracking.
	readBufferBytesMin = 64 << 10
	// readBufferBytesMax is the largest buffer lent; larger reads allocate.
	readBufferBytesMax = 16 << 20
	// readBuffersFreeBytesMax bounds the idle buffers kept for reuse; a
	// buffer returned past it is left to the GC.
	readBuffersFreeBytesMax = 128 << 20
	// readBuffersLentMax bounds the lent buffers tracked at once (a poll in
	// flight holds one or two); past it reads allocate.
	readBuffersLentMax = 4096
	// readBuffersPruneMin: the lent set is pruned of freed buffers when it
	// doubles since the last prune, and not below this length, so match
	// (linear in it) stays cheap.
	readBuffersPruneMin = 64
	// classStepsPerOctave: buffer sizes are rounded up to a quarter of the
	// power of two below them, so a buffer wastes at most 25%.
	classStepsPerOctave = 4
)

// readBuffers lends buffers for the node's ReplyOnly disk reads and takes
// them back once the reply that carries their bytes has been written.
// It is what keeps polls from allocating and zeroing a fresh buffer per
// read (DESIGN.md, "Buffers and their lifetimes").
//
// A lent buffer is tracked weakly: the node may drop a read's data (a poll
// that failed, a closed connection, a transport that does not report
// writes), and then the GC frees the buffer as it would any other. Only a
// buffer matched to a reply whose write is reported comes back.
//
// lend, match and the lent set are the loop's (one goroutine); give back
// is called by connection writers, so the free lists have a mutex.
type readBuffers struct {
	lent    []lentBuffer
	pruneAt int // prune the lent set when it reaches this length

	mu        sync.Mutex
	free      map[int][][]byte // by capacity (a size class)
	freeBytes int
}

// lentBuffer is one buffer lent to a read and not yet matched to a reply.
type lentBuffer struct {
	ref   weak.Pointer[byte] // the buffer's first byte; nil once the GC freed it
	start uintptr
	size  int
}

func newReadBuffers() *readBuffers {
	return &readBuffers{free: make(map[int][][]byte), pruneAt: readBuffersPruneMin}
}

// classBytes is the capacity of the buffer lent for a read of n bytes.
func classBytes(n int) int {
	if n <= readBufferBytesMin {
		return readBufferBytesMin
	}
	octave := 1 << (bits.Len(uint(n-1)) - 1) // octave < n <= 2*octave
	step := octave / classStepsPerOctave
	return (n + step - 1) / step * step
}

// lend returns a buffer of at least n bytes to read into, or nil when the
// read should allocate its own (too small, too large, too many lent).
func (b *readBuffers) lend(n uint64) []byte {
	if n < readBufferBytesMin/2 || n > readBufferBytesMax {
		return nil
	}
	if len(b.lent) >= b.pruneAt {
		b.prune()
		b.pruneAt = max(readBuffersPruneMin, 2*len(b.lent))
		if len(b.lent) >= readBuffersLentMax {
			return nil
		}
	}
	size := classBytes(int(n))
	buf := b.take(size)
	if buf == nil {
		buf = make([]byte, size)
	}
	if cap(buf) != size {
		assert.Failf("read buffer of %d bytes in class %d", cap(buf), size)
	}
	b.lent = append(b.lent, lentBuffer{ref: weak.Make(&buf[0]), start: uintptr(unsafe.Pointer(&buf[0])), size: size})
	return buf
}

func (b *readBuffers) take(size int) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	list := b.free[size]
	if len(list) == 0 {
		return nil
	}
	buf := list[len(list)-1]
	list[len(list)-1] = nil
	b.free[size] = list[:len(list)-1]
	b.freeBytes -= size
	return buf
}

// match finds the lent buffers the reply parts point into and stops
// tracking them: from now on the reply owns them, and they come back
// through giveBack once it is written. A part points into a lent buffer
// only when the buffer is still alive (the part keeps it alive), so a
// freed buffer whose address was reused cannot be matched by mistake.
func (b *readBuffers) match(parts [][]byte) [][]byte {
	if len(b.lent) == 0 {
		return nil
	}
	var owned [][]byte
	for _, part := range parts {
		if len(part) == 0 {
			continue
		}
		at := uintptr(unsafe.Pointer(&part[0]))
		for i := 0; i < len(b.lent); i++ {
			l := b.lent[i]
			if at < l.start || at >= l.start+uintptr(l.size) {
				continue
			}
			p := l.ref.Value()
			if p == nil {
				continue // freed; the address now belongs to another object
			}
			owned = append(owned, unsafe.Slice(p, l.size))
			b.lent[i] = b.lent[len(b.lent)-1]
			b.lent = b.lent[:len(b.lent)-1]
			break
		}
	}
	return owned
}

// prune forgets lent buffers the GC has freed (their reads were dropped).
func (b *readBuffers) prune() {
	kept := b.lent[:0]
	for _, l := range b.lent {
		if l.ref.Value() != nil {
			kept = append(kept, l)
		}
	}
	clear(b.lent[len(kept):])
	b.lent = kept
}

// giveBack returns buffers whose reply has been written: nothing refers to
// their bytes any more. Called by connection writers.
func (b *readBuffers) giveBack(bufs [][]byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, buf := range bufs {
		size := cap(buf)
		if b.freeBytes+size > readBuffersFreeBytesMax {
			continue // left to the GC
		}
		b.free[size] = append(b.free[size], buf[:size])
		b.freeBytes += size
	}
}
