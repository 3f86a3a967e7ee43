package wire

import (
	"encoding/binary"
	"testing"
)

// field encodes one [kind][len][bytes] user header field.
func field(kind byte, b []byte) []byte {
	out := []byte{kind}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(b)))
	return append(out, b...)
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// covers MSG-15
func TestCheckUserHeaders(t *testing.T) {
	key, str := field(byte(KindString), []byte("k")), field(byte(KindString), []byte("v"))
	cases := []struct {
		name  string
		block []byte
		want  Code
	}{
		{"empty", nil, OK},
		{"one pair", cat(key, str), OK},
		{"fixed sizes", cat(field(byte(KindInt32), []byte{1, 2, 3, 4}), field(byte(KindUint64), make([]byte, 8))), OK},
		{"unknown kind is structural", cat(key, field(200, []byte{7})), OK},
		{"garbage", []byte{0xff, 0xff, 0xff}, InvalidHeaderKey},
		{"key kind 0", cat(field(0, []byte("k")), str), InvalidHeaderKey},
		{"empty key", cat(field(byte(KindString), nil), str), InvalidHeaderKey},
		{"key of the wrong fixed size", cat(field(byte(KindInt16), []byte{1}), str), InvalidHeaderKey},
		{"key without value", key, InvalidHeaderValue},
		{"value kind 0", cat(key, field(0, []byte("v"))), InvalidHeaderValue},
		{"value of 256 bytes", cat(key, field(byte(KindRaw), make([]byte, 256))), InvalidHeaderValue},
		{"bool of 2 bytes", cat(key, field(byte(KindBool), []byte{0, 1})), InvalidHeaderValue},
		{"value overruns", cat(key, field(byte(KindString), []byte("value"))[:7]), InvalidHeaderValue},
		{"too big", make([]byte, UserHeadersBytesMax+1), TooBigUserHeaders},
	}
	for _, c := range cases {
		if got := CheckUserHeaders(c.block); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// A block the check accepts decodes as pairs that tile it exactly; nothing
// panics on any input.
func FuzzCheckUserHeaders(f *testing.F) {
	f.Add([]byte{0xff, 0xff, 0xff})
	f.Add(cat(field(byte(KindString), []byte("k")), field(byte(KindInt8), []byte{1})))
	f.Fuzz(func(t *testing.T, b []byte) {
		if CheckUserHeaders(b) != OK {
			return
		}
		fields := 0
		for rest := b; len(rest) > 0; fields++ {
			n := binary.LittleEndian.Uint32(rest[1:])
			rest = rest[5+n:]
		}
		if fields%2 != 0 {
			t.Fatalf("accepted %d fields, an odd count", fields)
		}
	})
}
