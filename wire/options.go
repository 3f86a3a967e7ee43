package wire

import (
	"bytes"
	"sort"
	"unicode/utf8"

	"github.com/iggygo/iggy/internal/assert"
)

// ValueKind is a HeaderKind code (protocol-data.md 0.2). Message user headers
// and resource options share these codes.
type ValueKind uint8

const (
	KindRaw     ValueKind = 1
	KindString  ValueKind = 2
	KindBool    ValueKind = 3
	KindInt8    ValueKind = 4
	KindInt16   ValueKind = 5
	KindInt32   ValueKind = 6
	KindInt64   ValueKind = 7
	KindInt128  ValueKind = 8
	KindUint8   ValueKind = 9
	KindUint16  ValueKind = 10
	KindUint32  ValueKind = 11
	KindUint64  ValueKind = 12
	KindUint128 ValueKind = 13
	KindFloat32 ValueKind = 14
	KindFloat64 ValueKind = 15
)

// FixedSize is the value size a kind requires, or 0 when any size 1..255 fits
// (Raw, String) or the kind is unknown (16..255 are structurally valid).
func (k ValueKind) FixedSize() int {
	switch k {
	case KindBool, KindInt8, KindUint8:
		return 1
	case KindInt16, KindUint16:
		return 2
	case KindInt32, KindUint32, KindFloat32:
		return 4
	case KindInt64, KindUint64, KindFloat64:
		return 8
	case KindInt128, KindUint128:
		return 16
	}
	return 0
}

// Limits of one options block (protocol-data.md 1.2 and 11).
const (
	OptionsPairsMax      = 1024
	OptionsSizeBytesMax  = 100_000
	optionFieldBytesMax  = 255
	optionTLVHeaderBytes = 1 + 4
)

// Option is one key/value entry of an options block. The key is always a
// String-kind key (the block validator enforces it); the value keeps the kind
// and bytes it was sent with.
type Option struct {
	Key   string
	Kind  ValueKind
	Value []byte
}

// Options is an options block in entry order. Request encoders keep that
// order (the SDK vectors pin it); response encoders sort by key bytes.
type Options []Option

// Get returns the entry for key.
func (o Options) Get(key string) (Option, bool) {
	for _, e := range o {
		if e.Key == key {
			return e, true
		}
	}
	return Option{}, false
}

// Sorted returns a copy ordered by key bytes ascending, the order the server
// writes, so no insertion or map order reaches the wire.
func (o Options) Sorted() Options {
	s := make(Options, len(o))
	copy(s, o)
	sort.Slice(s, func(i, j int) bool { return s[i].Key < s[j].Key })
	return s
}

// EncodedSize is the byte size of the block without a length prefix.
func (o Options) EncodedSize() int {
	n := 0
	for _, e := range o {
		n += 2*optionTLVHeaderBytes + len(e.Key) + len(e.Value)
	}
	return n
}

// Check reports whether o can be encoded as a block another node will accept:
// 3 for a malformed entry or duplicate key, 4043 when over the limits.
func (o Options) Check() Code {
	if len(o) > OptionsPairsMax || o.EncodedSize() > OptionsSizeBytesMax {
		return OptionsBlockTooLarge
	}
	seen := make(map[string]struct{}, len(o))
	for _, e := range o {
		if !optionFieldValid(len(e.Key)) || !optionFieldValid(len(e.Value)) || e.Kind == 0 ||
			!utf8.ValidString(e.Key) {
			return InvalidCommand
		}
		if _, dup := seen[e.Key]; dup {
			return InvalidCommand
		}
		seen[e.Key] = struct{}{}
	}
	return OK
}

func optionFieldValid(n int) bool { return n >= 1 && n <= optionFieldBytesMax }

// DecodeOptions parses a whole block (the request form, which runs to the end
// of the body). Every structural or content violation is 3 InvalidCommand,
// as the reference wire validator refuses it before admission: kind 0, a
// length outside 1..255, an overrun, an odd item count, a key that is not a
// UTF-8 String, a duplicate key, more than 1024 pairs or 100,000 bytes.
// Values are copied, so the result may outlive b.
func DecodeOptions(b []byte) (Options, Code) {
	if len(b) > OptionsSizeBytesMax {
		return nil, InvalidCommand
	}
	if len(b) == 0 {
		return nil, OK
	}
	// Each pair takes at least 12 bytes, so this bounds the allocation by
	// the input as well as by the pair limit.
	pairsMax := min(len(b)/(2*optionTLVHeaderBytes+2), OptionsPairsMax)
	out := make(Options, 0, pairsMax)
	r := NewReader(b)
	for r.Len() > 0 {
		if len(out) == OptionsPairsMax {
			return nil, InvalidCommand
		}
		keyKind, key := optionTLV(r)
		valueKind, value := optionTLV(r)
		if r.Err() != OK {
			return nil, InvalidCommand
		}
		if ValueKind(keyKind) != KindString || !utf8.Valid(key) {
			return nil, InvalidCommand
		}
		out = append(out, Option{Key: string(key), Kind: ValueKind(valueKind),
			Value: bytes.Clone(value)})
	}
	if optionsHaveDuplicate(out) {
		return nil, InvalidCommand
	}
	return out, OK
}

// optionTLV reads one [kind u8][len u32][bytes] item with kind ≠ 0 and len 1..255.
func optionTLV(r *Reader) (uint8, []byte) {
	kind := r.U8()
	n := r.U32()
	if r.Err() == OK && (kind == 0 || !optionFieldValid(int(n))) {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return 0, nil
	}
	return kind, r.Bytes(int(n))
}

func optionsHaveDuplicate(o Options) bool {
	keys := make([]string, len(o))
	for i, e := range o {
		keys[i] = e.Key
	}
	sort.Strings(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			return true
		}
	}
	return false
}

// OptionsToEnd reads the request form: a block that takes the rest of the body.
func (r *Reader) OptionsToEnd() Options {
	if r.Err() != OK {
		return nil
	}
	o, c := DecodeOptions(r.Rest())
	r.Fail(c)
	return o
}

// OptionsPrefixed reads the response form: [len u32][block].
func (r *Reader) OptionsPrefixed() Options {
	n := r.U32()
	if r.Err() == OK && uint64(n) > uint64(r.Len()) {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return nil
	}
	o, c := DecodeOptions(r.Bytes(int(n)))
	r.Fail(c)
	return o
}

// OptionsInOrder writes the request form in o's own order; the caller has
// checked o (Options.Check) when it comes from outside.
func (w *Writer) OptionsInOrder(o Options) {
	for _, e := range o {
		if !(optionFieldValid(len(e.Key)) && optionFieldValid(len(e.Value)) && e.Kind != 0) {
			assert.Failf("option %q: kind %d, key %d bytes, value %d bytes", e.Key, e.Kind, len(e.Key), len(e.Value))
		}
		w.U8(uint8(KindString))
		w.U32(uint32(len(e.Key)))
		w.Buf = append(w.Buf, e.Key...)
		w.U8(uint8(e.Kind))
		w.U32(uint32(len(e.Value)))
		w.Buf = append(w.Buf, e.Value...)
	}
}

// OptionsPrefixed writes the response form, entries sorted by key bytes.
func (w *Writer) OptionsPrefixed(o Options) {
	w.U32(uint32(o.EncodedSize()))
	w.OptionsInOrder(o.Sorted())
}
