//go:build !amd64 || purego

package gcmsiv

const hasAESNI = false

func (s *schedule) xorKeyStream(ctr *[16]byte, dst, src []byte) {
	panic("gcmsiv: no AES-NI path on this platform")
}
