//go:build amd64 && !purego

package gcmsiv

import "golang.org/x/sys/cpu"

// hasCLMUL says whether polyvalBlocks may use the assembly.
var hasCLMUL = cpu.X86.HasPCLMULQDQ && cpu.X86.HasSSE41

//go:noescape
func polyvalCLMUL(s *[16]byte, h *[16]byte, in []byte)

// polyvalBlocks folds whole 16-byte blocks of in into s under the key h.
func polyvalBlocks(s *[16]byte, h *[16]byte, in []byte) {
	if hasCLMUL {
		polyvalCLMUL(s, h, in)
		return
	}
	polyvalGeneric(s, h, in)
}
