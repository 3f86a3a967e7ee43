package wire

import "encoding/binary"

// UserHeadersBytesMax bounds one message's user headers block (§5.7).
const UserHeadersBytesMax = 100_000

// headerFieldBytesMax bounds a user header key or value (1..255 bytes).
const headerFieldBytesMax = 255

// CheckUserHeaders checks one message's user headers block as the reference
// deserializer does (MSG-15): entries of [kind u8][len u32][bytes] in key,
// value pairs, each kind non-zero, each length 1..255 and the size a fixed
// kind requires, consuming the block exactly. A bad key is 4018
// InvalidHeaderKey, a bad or missing value 4019 InvalidHeaderValue, a block
// over 100,000 bytes 4017 TooBigUserHeaders. An empty block is valid.
func CheckUserHeaders(b []byte) Code {
	if len(b) > UserHeadersBytesMax {
		return TooBigUserHeaders
	}
	for len(b) > 0 {
		var ok bool
		if b, ok = headerField(b); !ok {
			return InvalidHeaderKey
		}
		if b, ok = headerField(b); !ok {
			return InvalidHeaderValue
		}
	}
	return OK
}

// headerField consumes one [kind][len][bytes] field from b.
func headerField(b []byte) ([]byte, bool) {
	if len(b) < 5 || b[0] == 0 {
		return nil, false
	}
	kind, n := ValueKind(b[0]), binary.LittleEndian.Uint32(b[1:])
	if n == 0 || n > headerFieldBytesMax || uint64(n) > uint64(len(b)-5) {
		return nil, false
	}
	if fixed := kind.FixedSize(); fixed != 0 && int(n) != fixed {
		return nil, false
	}
	return b[5+n:], true
}
