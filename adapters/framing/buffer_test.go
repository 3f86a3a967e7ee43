package framing

import (
	"testing"

	"github.com/iggygo/iggy/wire"
)

// NewBuffer hands out a whole, writable buffer of the size asked, and two
// buffers never share memory (the node keeps slices of each frame).
func TestNewBufferSizesAndOwnership(t *testing.T) {
	for _, size := range []int{wire.HeaderSize, wire.HeaderSize + 1, 4096, 1 << 20, 1<<20 + 7} {
		a, b := NewBuffer(size), NewBuffer(size)
		if len(a) != size || cap(a) != size || len(b) != size {
			t.Fatalf("size %d: got len %d cap %d", size, len(a), cap(a))
		}
		for i := range a {
			a[i], b[i] = 0xAA, 0x55
		}
		for i := range a {
			if a[i] != 0xAA {
				t.Fatalf("size %d: byte %d of the first buffer changed: the buffers overlap", size, i)
			}
		}
	}
}

func TestNewBufferRefusesSizesOutsideAFrame(t *testing.T) {
	for _, size := range []int{0, wire.HeaderSize - 1, wire.FrameSizeMax + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("size %d: want a panic (sizes are checked before)", size)
				}
			}()
			NewBuffer(size)
		}()
	}
}
