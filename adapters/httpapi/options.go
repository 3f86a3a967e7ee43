package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"strconv"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/rest"
)

// Option values over HTTP (RES-24): strings in config-file syntax travel as
// String values the node parses; numbers and booleans travel in the key's
// own kind when the catalog gives one; a Raw key takes base64. The adapter
// only encodes: every rule about keys and values is the node's.

// optionValue turns one JSON member into an option entry. ok is false for
// null (a null never sets nor resets, RES-20). An object or an array is a
// nested member: InvalidCommand naming it (RES-22).
func optionValue(cat *wire.Catalog, key string, raw json.RawMessage) (wire.Option, bool, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		return wire.Option{}, false, nil
	}
	var kind wire.ValueKind
	var value []byte
	switch raw[0] {
	case '{', '[':
		return wire.Option{}, false, invalidCommand(key)
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return wire.Option{}, false, invalidCommand(key)
		}
		kind, value = wire.KindString, []byte(s)
		if spec, ok := cat.Spec(key); ok && spec.Kind == wire.KindRaw {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return wire.Option{}, false, fromCode(wire.InvalidOptionValue, key)
			}
			kind, value = wire.KindRaw, b
		}
	case 't', 'f':
		kind, value = wire.KindBool, []byte{0}
		if raw[0] == 't' {
			value[0] = 1
		}
	default:
		kind, value = numberValue(cat, key, string(raw))
	}
	if len(key) < 1 || len(key) > nameBytesMax || len(value) < 1 || len(value) > nameBytesMax {
		return wire.Option{}, false, fromCode(wire.InvalidOptionValue, key)
	}
	return wire.Option{Key: key, Kind: kind, Value: value}, true, nil
}

// numberValue encodes a JSON number in the key's unsigned kind when it fits;
// anything else (a negative, a fraction, an unknown key) goes as its text,
// for the node to refuse or parse.
func numberValue(cat *wire.Catalog, key, text string) (wire.ValueKind, []byte) {
	spec, ok := cat.Spec(key)
	if !ok {
		return wire.KindString, []byte(text)
	}
	bits := map[wire.ValueKind]int{wire.KindUint8: 8, wire.KindUint16: 16, wire.KindUint32: 32, wire.KindUint64: 64}[spec.Kind]
	v, err := strconv.ParseUint(text, 10, 64)
	if bits == 0 || err != nil || (bits < 64 && v >= 1<<bits) {
		return wire.KindString, []byte(text)
	}
	b := binary.LittleEndian.AppendUint64(nil, v)
	return spec.Kind, b[:bits/8]
}

// optionsObject reads a create body's nested options object (RES-17).
func optionsObject(cat *wire.Catalog, o object) (wire.Options, *apiError) {
	if !o.present("options") {
		return nil, nil
	}
	inner, e := parseObject(o["options"])
	if e != nil {
		return nil, invalidCommand("options")
	}
	var out wire.Options
	for _, k := range inner.sortedKeys() {
		opt, ok, e := optionValue(cat, k, inner[k])
		if e != nil {
			return nil, e
		}
		if ok {
			out = append(out, opt)
		}
	}
	if code := out.Check(); code != wire.OK {
		return nil, fromCode(code, "options")
	}
	return out, nil
}

// optionViews renders a resource's explicit and derived blocks.
func optionViews(explicit, derived wire.Options) map[string]rest.Option {
	out := make(map[string]rest.Option, len(explicit)+len(derived))
	for _, e := range derived {
		out[e.Key] = rest.Option{Value: wire.OptionText(e), Provenance: "derived"}
	}
	for _, e := range explicit {
		out[e.Key] = rest.Option{Value: wire.OptionText(e), Explicit: true, Provenance: "explicit"}
	}
	return out
}

// kindName names k, or "unknown_<n>" outside the table.
func kindName(k wire.ValueKind) string {
	if n := k.Name(); n != "" {
		return n
	}
	return "unknown_" + strconv.Itoa(int(k))
}
