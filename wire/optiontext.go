package wire

import (
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"strings"
)

// valueKindNames are the value kind names of http.md 5.3, indexed by kind code.
var valueKindNames = []string{
	KindRaw: "raw", KindString: "string", KindBool: "bool", KindInt8: "int8",
	KindInt16: "int16", KindInt32: "int32", KindInt64: "int64", KindInt128: "int128",
	KindUint8: "uint8", KindUint16: "uint16", KindUint32: "uint32", KindUint64: "uint64",
	KindUint128: "uint128", KindFloat32: "float32", KindFloat64: "float64",
}

// Name is the kind's name ("string", "uint32", ...), or "" for a code with none.
func (k ValueKind) Name() string {
	if int(k) < len(valueKindNames) {
		return valueKindNames[k]
	}
	return ""
}

// ValueKindNamed is the kind called name; false for none.
func ValueKindNamed(name string) (ValueKind, bool) {
	for k, n := range valueKindNames {
		if n != "" && n == name {
			return ValueKind(k), true
		}
	}
	return 0, false
}

// Unsigned reports an unsigned integer kind of at most 64 bits.
func (k ValueKind) Unsigned() bool {
	return k == KindUint8 || k == KindUint16 || k == KindUint32 || k == KindUint64
}

// OptionText is a value's string form: text as is, booleans and unsigned
// numbers in decimal, u64::MAX as unlimited (expiry and size), anything
// else in base64.
func OptionText(e Option) string {
	v := e.Value
	switch {
	case e.Kind == KindString && !strings.ContainsRune(string(v), 0):
		return string(v)
	case e.Kind == KindBool && len(v) == 1:
		return strconv.FormatBool(v[0] != 0)
	case e.Kind.Unsigned() && len(v) == e.Kind.FixedSize():
		var b [8]byte
		copy(b[:], v)
		n := binary.LittleEndian.Uint64(b[:])
		if e.Kind == KindUint64 && n == Unlimited {
			return "unlimited"
		}
		return strconv.FormatUint(n, 10)
	}
	return base64.StdEncoding.EncodeToString(v)
}
