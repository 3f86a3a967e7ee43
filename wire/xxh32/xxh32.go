// Package xxh32 is the 32-bit xxHash (XXH32), written from the published
// algorithm description. Iggy uses it with seed 0 to map a message key to a
// partition and a string consumer id to its numeric offset key (MSG-16).
package xxh32

import (
	"encoding/binary"
	"math/bits"
)

const (
	prime1 uint32 = 0x9E3779B1
	prime2 uint32 = 0x85EBCA77
	prime3 uint32 = 0xC2B2AE3D
	prime4 uint32 = 0x27D4EB2F
	prime5 uint32 = 0x165667B1

	// stripeBytes is the input consumed per round by the four accumulators.
	stripeBytes = 16
)

// Hash returns XXH32 of b with the given seed.
func Hash(b []byte, seed uint32) uint32 {
	n := len(b)
	var acc uint32
	if n >= stripeBytes {
		v1 := seed + prime1 + prime2
		v2 := seed + prime2
		v3 := seed
		v4 := seed - prime1
		for len(b) >= stripeBytes {
			v1 = round(v1, binary.LittleEndian.Uint32(b[0:]))
			v2 = round(v2, binary.LittleEndian.Uint32(b[4:]))
			v3 = round(v3, binary.LittleEndian.Uint32(b[8:]))
			v4 = round(v4, binary.LittleEndian.Uint32(b[12:]))
			b = b[stripeBytes:]
		}
		acc = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) +
			bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		acc = seed + prime5
	}
	// The length is mixed in modulo 2^32, as the reference does.
	acc += uint32(n)
	for len(b) >= 4 {
		acc += binary.LittleEndian.Uint32(b) * prime3
		acc = bits.RotateLeft32(acc, 17) * prime4
		b = b[4:]
	}
	for _, c := range b {
		acc += uint32(c) * prime5
		acc = bits.RotateLeft32(acc, 11) * prime1
	}
	return avalanche(acc)
}

func round(v, lane uint32) uint32 {
	v += lane * prime2
	v = bits.RotateLeft32(v, 13)
	return v * prime1
}

func avalanche(h uint32) uint32 {
	h ^= h >> 15
	h *= prime2
	h ^= h >> 13
	h *= prime3
	h ^= h >> 16
	return h
}
