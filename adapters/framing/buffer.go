package framing

import (
	"strings"
	"unsafe"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// NewBuffer returns a fresh buffer of size bytes for one request frame,
// WITHOUT zeroing it: its bytes are whatever the memory held before. The
// caller must overwrite every byte before anything reads the buffer (a frame
// is read whole or dropped). A 1 MiB frame zeroed by make() only to be
// overwritten by the socket read cost about an eighth of the server's CPU on
// the producer path (profile of issue 5: memclrNoHeapPointers under
// mallocgcLarge).
//
// The buffer is new and owned by the caller like make()'s: the node may keep
// slices of it for as long as it wants, and the GC frees it after the last.
// Go has no public allocation without zeroing except strings.Builder's
// growth (internal/bytealg.MakeNoZero); the Builder and the one-byte string
// taken from it are dropped here, so nothing else sees the memory mutate.
func NewBuffer(size int) []byte {
	if size < wire.HeaderSize || size > wire.FrameSizeMax {
		assert.Failf("frame buffer size %d", size)
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteByte(0) // a non-empty String() points at the allocation
	if b.Cap() < size {
		assert.Failf("strings.Builder grew to %d, want %d", b.Cap(), size)
	}
	return unsafe.Slice(unsafe.StringData(b.String()), size)
}
