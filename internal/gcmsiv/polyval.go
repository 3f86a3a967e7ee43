package gcmsiv

import (
	"encoding/binary"
	"math/bits"
)

// fieldElement is an element of POLYVAL's field GF(2^128) in RFC 8452's
// little-endian order: lo holds the coefficients of x^0..x^63.
type fieldElement struct{ lo, hi uint64 }

func loadElement(b []byte) fieldElement {
	return fieldElement{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])}
}

func (e fieldElement) store(b []byte) {
	binary.LittleEndian.PutUint64(b, e.lo)
	binary.LittleEndian.PutUint64(b[8:], e.hi)
}

// polyReduce is x^63 + x^62 + x^57: the low terms of POLYVAL's polynomial
// x^128 + x^127 + x^126 + x^121 + 1, shifted down by 64, as one word.
const polyReduce = 0xc200000000000000

// clmulLow is the low 64 bits of the carry-less product of x and y, in
// constant time: integer products of operands masked to every fourth bit
// keep each sum below 16 at any position that matters, so no carry reaches
// the next bit of the same residue class (BearSSL's ctmul64 idea).
func clmulLow(x, y uint64) uint64 {
	const m0, m1, m2, m3 = 0x1111111111111111, 0x2222222222222222, 0x4444444444444444, 0x8888888888888888
	x0, x1, x2, x3 := x&m0, x&m1, x&m2, x&m3
	y0, y1, y2, y3 := y&m0, y&m1, y&m2, y&m3
	z0 := (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1)
	z1 := (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2)
	z2 := (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3)
	z3 := (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0)
	return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3)
}

// clmul is the 128-bit carry-less product of x and y; the high half is the
// low half of the bit-reversed operands' product, reversed and shifted.
func clmul(x, y uint64) (lo, hi uint64) {
	lo = clmulLow(x, y)
	hi = bits.Reverse64(clmulLow(bits.Reverse64(x), bits.Reverse64(y))) >> 1
	return lo, hi
}

// dot is POLYVAL's product a·b·x^-128 (RFC 8452 section 3): a Karatsuba
// carry-less product, then two Montgomery steps that each clear the lowest
// word by adding a multiple of the polynomial and divide by x^64.
func dot(a, b fieldElement) fieldElement {
	c0, c1 := clmul(a.lo, b.lo)
	c2, c3 := clmul(a.hi, b.hi)
	m0, m1 := clmul(a.lo^a.hi, b.lo^b.hi)
	m0 ^= c0 ^ c2
	m1 ^= c1 ^ c3
	c1 ^= m0
	c2 ^= m1
	t0, t1 := clmul(c0, polyReduce)
	c1 ^= t0
	c2 ^= t1 ^ c0
	t0, t1 = clmul(c1, polyReduce)
	c2 ^= t0
	c3 ^= t1 ^ c1
	return fieldElement{c2, c3}
}

// polyvalGeneric folds whole 16-byte blocks of in into the accumulator s
// under the key h.
func polyvalGeneric(s *[16]byte, h *[16]byte, in []byte) {
	acc, key := loadElement(s[:]), loadElement(h[:])
	for ; len(in) >= blockSize; in = in[blockSize:] {
		x := loadElement(in)
		acc = dot(fieldElement{acc.lo ^ x.lo, acc.hi ^ x.hi}, key)
	}
	acc.store(s[:])
}
