//go:build amd64 && !purego

package gcmsiv

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// hasAESNI says whether the CTR and key derivation may use the assembly.
var hasAESNI = cpu.X86.HasAES && cpu.X86.HasSSE41

//go:noescape
func ctrAESNI(rounds int, rk *byte, ctr *[16]byte, dst, src *byte, blocks int)

// xorKeyStream XORs the whole blocks of src with s's CTR stream from ctr
// into dst, advancing ctr.
func (s *schedule) xorKeyStream(ctr *[16]byte, dst, src []byte) {
	n := len(src) / blockSize
	if n == 0 {
		return
	}
	_ = dst[n*blockSize-1]
	ctrAESNI(s.rounds, &s.rk[0], ctr, unsafe.SliceData(dst), unsafe.SliceData(src), n)
}
