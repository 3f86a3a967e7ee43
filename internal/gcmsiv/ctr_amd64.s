//go:build amd64 && !purego

#include "textflag.h"

// func ctrAESNI(rounds int, rk *byte, ctr *[16]byte, dst, src *byte, blocks int)
//
// XORs blocks 16-byte blocks of src with AES(rk, counter) into dst, the
// counter's first 32-bit word counting up little-endian (RFC 8452's CTR,
// which PADDD of {1,0,0,0} is exactly), four blocks at a time so the AES
// units pipeline. The counter is written back.
TEXT ·ctrAESNI(SB), NOSPLIT, $0-48
	MOVQ rounds+0(FP), R8
	MOVQ rk+8(FP), AX
	MOVQ ctr+16(FP), BX
	MOVQ dst+24(FP), DI
	MOVQ src+32(FP), SI
	MOVQ blocks+40(FP), CX
	MOVOU (BX), X0
	MOVQ $1, DX
	MOVQ DX, X15

loop4:
	CMPQ CX, $4
	JB loop1
	MOVOU X0, X1
	PADDD X15, X0
	MOVOU X0, X2
	PADDD X15, X0
	MOVOU X0, X3
	PADDD X15, X0
	MOVOU X0, X4
	PADDD X15, X0
	MOVOU (AX), X5
	PXOR X5, X1
	PXOR X5, X2
	PXOR X5, X3
	PXOR X5, X4
	LEAQ 16(AX), R10
	MOVQ R8, R11
	DECQ R11

rounds4:
	MOVOU (R10), X5
	AESENC X5, X1
	AESENC X5, X2
	AESENC X5, X3
	AESENC X5, X4
	ADDQ $16, R10
	DECQ R11
	JNZ rounds4
	MOVOU (R10), X5
	AESENCLAST X5, X1
	AESENCLAST X5, X2
	AESENCLAST X5, X3
	AESENCLAST X5, X4
	MOVOU (SI), X6
	PXOR X6, X1
	MOVOU X1, (DI)
	MOVOU 16(SI), X6
	PXOR X6, X2
	MOVOU X2, 16(DI)
	MOVOU 32(SI), X6
	PXOR X6, X3
	MOVOU X3, 32(DI)
	MOVOU 48(SI), X6
	PXOR X6, X4
	MOVOU X4, 48(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $4, CX
	JMP loop4

loop1:
	TESTQ CX, CX
	JZ done
	MOVOU X0, X1
	PADDD X15, X0
	MOVOU (AX), X5
	PXOR X5, X1
	LEAQ 16(AX), R10
	MOVQ R8, R11
	DECQ R11

rounds1:
	MOVOU (R10), X5
	AESENC X5, X1
	ADDQ $16, R10
	DECQ R11
	JNZ rounds1
	MOVOU (R10), X5
	AESENCLAST X5, X1
	MOVOU (SI), X6
	PXOR X6, X1
	MOVOU X1, (DI)
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ CX
	JMP loop1

done:
	MOVOU X0, (BX)
	RET
