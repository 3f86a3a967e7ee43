//go:build amd64 && !purego

#include "textflag.h"

// func polyvalCLMUL(s *[16]byte, h *[16]byte, in []byte)
//
// The same arithmetic as dot in polyval.go: a Karatsuba product on
// PCLMULQDQ, then two Montgomery steps by x^63 + x^62 + x^57.
TEXT ·polyvalCLMUL(SB), NOSPLIT, $0-40
	MOVQ s+0(FP), AX
	MOVQ h+8(FP), BX
	MOVQ in_base+16(FP), SI
	MOVQ in_len+24(FP), CX
	MOVOU (AX), X0           // accumulator
	MOVOU (BX), X1           // key
	PSHUFD $0x4e, X1, X2
	PXOR X1, X2              // X2.lo = key.lo ^ key.hi
	MOVQ $0xc200000000000000, DX
	MOVQ DX, X7              // reduction constant in the low word

loop:
	CMPQ CX, $16
	JB done
	MOVOU (SI), X3
	PXOR X3, X0
	MOVOU X0, X4
	PCLMULQDQ $0x00, X1, X4  // lo * lo
	MOVOU X0, X5
	PCLMULQDQ $0x11, X1, X5  // hi * hi
	PSHUFD $0x4e, X0, X6
	PXOR X0, X6
	PCLMULQDQ $0x00, X2, X6  // (lo^hi) * (lo^hi)
	PXOR X4, X6
	PXOR X5, X6              // the middle term
	MOVOU X6, X3
	PSLLDQ $8, X3
	PSRLDQ $8, X6
	PXOR X3, X4              // words 0, 1
	PXOR X6, X5              // words 2, 3
	MOVOU X4, X3
	PCLMULQDQ $0x00, X7, X3
	PSHUFD $0x4e, X4, X4
	PXOR X3, X4              // word 0 cleared, swapped down
	MOVOU X4, X3
	PCLMULQDQ $0x00, X7, X3
	PSHUFD $0x4e, X4, X4
	PXOR X3, X4
	PXOR X5, X4
	MOVOU X4, X0
	ADDQ $16, SI
	SUBQ $16, CX
	JMP loop

done:
	MOVOU X0, (AX)
	RET
