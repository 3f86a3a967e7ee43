//go:build !amd64 || purego

package gcmsiv

// polyvalBlocks folds whole 16-byte blocks of in into s under the key h.
func polyvalBlocks(s *[16]byte, h *[16]byte, in []byte) { polyvalGeneric(s, h, in) }

const hasCLMUL = false
