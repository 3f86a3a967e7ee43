package node

import (
	"encoding/binary"
	"testing"
)

// FuzzDecodeReport: a readiness report from a peer is decoded whole or
// refused, never half.
func FuzzDecodeReport(f *testing.F) {
	one := []byte{1, 1, 0, 0, 0}
	for _, v := range []uint64{7, 8, 9} {
		one = binary.LittleEndian.AppendUint32(one, uint32(v))
	}
	one = append(one, make([]byte, reportGroupBytes-12)...)
	f.Add(one)
	f.Add([]byte{0, 0, 0, 0, 0})
	f.Add([]byte{2, 0, 0, 0, 0})
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := decodeReport(b)
		if err != nil {
			return
		}
		count := int(binary.LittleEndian.Uint32(b[1:]))
		if len(b) != reportHeaderBytes+count*reportGroupBytes || len(rep.groups) > count {
			t.Fatalf("%d bytes decoded as %d groups of %d", len(b), len(rep.groups), count)
		}
	})
}
