package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"

	"github.com/iggygo/iggy/wire"
)

// userHeadersBytesMax bounds one message's encoded user headers (http.md 5.1).
const userHeadersBytesMax = 100_000

// headerFieldJSON is a header key or value: its kind and raw bytes.
type headerFieldJSON struct {
	Kind  string `json:"kind"`
	Value string `json:"value"` // base64 of the raw bytes
}

type headerJSON struct {
	Key   headerFieldJSON `json:"key"`
	Value headerFieldJSON `json:"value"`
}

// userHeaders reads a message's user_headers member: absent or null is
// none, a string is a base64 block sent as is (e.g. client-encrypted), an
// array is encoded as the TLV block. A malformed entry is a plain 422, a
// block over the limit 400/4017.
func userHeaders(raw json.RawMessage) ([]byte, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		return nil, nil
	}
	var block []byte
	if raw[0] == '"' {
		b, e := base64Member(raw, "user_headers")
		if e != nil {
			return nil, e
		}
		block = b
	} else {
		var fields []headerJSON
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, shapeError("user_headers", "expected an array of {key, value} or a base64 string")
		}
		opts, e := headerOptions(fields)
		if e != nil {
			return nil, e
		}
		if opts.EncodedSize() > userHeadersBytesMax {
			return nil, fromCode(wire.TooBigUserHeaders, "")
		}
		if opts.Check() != wire.OK {
			return nil, shapeError("user_headers", "duplicate or malformed header")
		}
		block = encode(func(w *wire.Writer) { w.OptionsInOrder(opts) })
	}
	if len(block) > userHeadersBytesMax {
		return nil, fromCode(wire.TooBigUserHeaders, "")
	}
	return block, nil
}

// headerOptions checks each field: String keys, known value kinds, and
// values of the kind's size (1..255 bytes for raw and string).
func headerOptions(fields []headerJSON) (wire.Options, *apiError) {
	opts := make(wire.Options, 0, len(fields))
	for _, f := range fields {
		if f.Key.Kind != "string" {
			return nil, shapeError("user_headers", "header keys must be of kind string")
		}
		key, err1 := base64.StdEncoding.DecodeString(f.Key.Value)
		value, err2 := base64.StdEncoding.DecodeString(f.Value.Value)
		kind, known := wire.ValueKindNamed(f.Value.Kind)
		if err1 != nil || err2 != nil || !known || !utf8.Valid(key) || !fieldSizeValid(len(key), 0) ||
			!fieldSizeValid(len(value), kind.FixedSize()) {
			return nil, shapeError("user_headers", "malformed header field")
		}
		opts = append(opts, wire.Option{Key: string(key), Kind: kind, Value: value})
	}
	return opts, nil
}

func fieldSizeValid(n, fixed int) bool {
	if fixed > 0 {
		return n == fixed
	}
	return n >= 1 && n <= nameBytesMax
}

// headersView renders a polled message's block: the decoded fields, [] for
// none, or the block in base64 when it does not decode (http.md 5.2).
func headersView(block []byte) any {
	if len(block) == 0 {
		return []headerJSON{}
	}
	opts, code := wire.DecodeOptions(block)
	if code != wire.OK {
		return base64.StdEncoding.EncodeToString(block)
	}
	out := make([]headerJSON, 0, len(opts))
	for _, o := range opts {
		out = append(out, headerJSON{
			Key:   headerFieldJSON{Kind: "string", Value: base64.StdEncoding.EncodeToString([]byte(o.Key))},
			Value: headerFieldJSON{Kind: kindName(o.Kind), Value: base64.StdEncoding.EncodeToString(o.Value)},
		})
	}
	return out
}
