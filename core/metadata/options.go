package metadata

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// Options blocks are the TLV of protocol-data.md 0.2 with String keys. The
// node validates keys and values against the catalogs before logging; this
// package only needs their structure, canonical order (ascending key bytes,
// no duplicates) and the few keys an update may touch.

const (
	kindString = 2
	kindUint64 = 12
	// entryHeadBytes is kind u8 + length u32, before each key and each value.
	entryHeadBytes = 5
)

// fixedValueBytes gives the value size a typed kind requires (0 = any).
var fixedValueBytes = [16]int{3: 1, 4: 1, 5: 2, 6: 4, 7: 8, 8: 16, 9: 1, 10: 2, 11: 4, 12: 8, 13: 16, 14: 4, 15: 8}

// option is one key/value entry; key and value alias the block they came from.
type option struct {
	key   []byte
	kind  uint8
	value []byte
}

// parseOptions splits a block into entries, or reports it malformed or not
// canonical.
func parseOptions(b []byte) ([]option, bool) {
	if len(b) > optionsBytesMax {
		return nil, false
	}
	var out []option
	for len(b) > 0 {
		if len(out) >= optionsEntriesMax {
			return nil, false
		}
		keyKind, key, rest, ok := splitItem(b)
		if !ok || keyKind != kindString || !utf8.Valid(key) {
			return nil, false
		}
		kind, value, rest, ok := splitItem(rest)
		if !ok || int(kind) < len(fixedValueBytes) && fixedValueBytes[kind] != 0 && fixedValueBytes[kind] != len(value) {
			return nil, false
		}
		if len(out) > 0 && bytes.Compare(out[len(out)-1].key, key) >= 0 {
			return nil, false
		}
		out = append(out, option{key: key, kind: kind, value: value})
		b = rest
	}
	return out, true
}

// splitItem reads [kind u8 != 0][len u32 in 1..255][bytes].
func splitItem(b []byte) (uint8, []byte, []byte, bool) {
	if len(b) < entryHeadBytes || b[0] == 0 {
		return 0, nil, nil, false
	}
	n := binary.LittleEndian.Uint32(b[1:entryHeadBytes])
	if n < 1 || n > 255 || uint64(n) > uint64(len(b)-entryHeadBytes) {
		return 0, nil, nil, false
	}
	end := entryHeadBytes + int(n)
	return b[0], b[entryHeadBytes:end], b[end:], true
}

func validOptions(b []byte) bool {
	_, ok := parseOptions(b)
	return ok
}

// encodeOptions writes entries (already sorted) as a fresh block.
func encodeOptions(opts []option) []byte {
	var out []byte
	for _, o := range opts {
		out = append(out, kindString)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(o.key)))
		out = append(out, o.key...)
		out = append(out, o.kind)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(o.value)))
		out = append(out, o.value...)
	}
	return out
}

// findOption returns the entry with key, if any.
func findOption(opts []option, key string) (option, bool) {
	for _, o := range opts {
		if string(o.key) == key {
			return o, true
		}
	}
	return option{}, false
}

// withOption returns opts with key set to o (replacing or inserting in order).
func withOption(opts []option, o option) []option {
	out := make([]option, 0, len(opts)+1)
	placed := false
	for _, x := range opts {
		c := bytes.Compare(x.key, o.key)
		if c > 0 && !placed {
			out = append(out, o)
			placed = true
		}
		if c != 0 {
			out = append(out, x)
		}
	}
	if !placed {
		out = append(out, o)
	}
	return out
}

// withoutOption returns opts without key.
func withoutOption(opts []option, key []byte) []option {
	out := make([]option, 0, len(opts))
	for _, x := range opts {
		if !bytes.Equal(x.key, key) {
			out = append(out, x)
		}
	}
	return out
}

// uint64Value reads a canonical Uint64 entry.
func (o option) uint64Value() (uint64, bool) {
	if o.kind != kindUint64 || len(o.value) != 8 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(o.value), true
}

// CanonicalOptions validates a block's structure and returns it with its
// entries sorted by key, as the log and the snapshot require. It fails on a
// malformed block or a duplicate key.
func CanonicalOptions(b []byte) ([]byte, bool) {
	var opts []option
	for len(b) > 0 {
		if len(opts) >= optionsEntriesMax {
			return nil, false
		}
		keyKind, key, rest, ok := splitItem(b)
		if !ok || keyKind != kindString {
			return nil, false
		}
		kind, value, rest, ok := splitItem(rest)
		if !ok {
			return nil, false
		}
		opts = append(opts, option{key: key, kind: kind, value: value})
		b = rest
	}
	sorted := make([]option, 0, len(opts))
	for _, o := range opts {
		if _, dup := findOption(sorted, string(o.key)); dup {
			return nil, false
		}
		sorted = withOption(sorted, o)
	}
	out := encodeOptions(sorted)
	return out, validOptions(out)
}
