package batch

import (
	"bytes"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// wrapValue and unwrapValue stand in for sealing: a marker byte per part
// and the message id's first byte before the value.
func wrapValue(dst []byte, id [16]byte, part Part, v []byte) ([]byte, wire.Code) {
	return append(append(dst, 'S', byte(part), id[0]), v...), wire.OK
}

func unwrapValue(dst []byte, id [16]byte, part Part, v []byte) ([]byte, wire.Code) {
	if len(v) < 3 || v[0] != 'S' || v[1] != byte(part) || v[2] != id[0] {
		return nil, wire.CannotDecryptData
	}
	return append(dst, v[3:]...), wire.OK
}

// A transformed record is a valid record with the values replaced and the
// header kept; the inverse transform gives back the original bytes.
func TestTransformRoundTrip(t *testing.T) {
	msgs := []Message{
		{ID: [16]byte{7}, OriginTimestamp: 100, Payload: []byte("first")},
		{ID: [16]byte{8}, OriginTimestamp: 130, Payload: []byte("second"), Headers: []byte{1, 2, 3}},
		{ID: [16]byte{9}, OriginTimestamp: 120},
	}
	rec, code := Build(msgs)
	if code != wire.OK {
		t.Fatal(code)
	}
	sealed, code := Transform(rec, wrapValue)
	if code != wire.OK {
		t.Fatal(code)
	}
	if _, code := Validate(sealed); code != wire.OK {
		t.Fatalf("transformed record invalid: %v", code)
	}
	fs := FramesOf(sealed)
	for i := 0; ; i++ {
		fr, ok := fs.Next()
		if !ok {
			break
		}
		want, _ := wrapValue(nil, msgs[i].ID, PartPayload, msgs[i].Payload)
		if !bytes.Equal(fr.Payload, want) || (len(msgs[i].Headers) > 0) != (len(fr.Headers) > 0) {
			t.Fatalf("frame %d: payload %q headers %q", i, fr.Payload, fr.Headers)
		}
	}
	opened, code := Transform(sealed, unwrapValue)
	if code != wire.OK || !bytes.Equal(opened, rec) {
		t.Fatalf("inverse: %v, equal %v", code, bytes.Equal(opened, rec))
	}
	if _, code := Transform(rec, unwrapValue); code != wire.CannotDecryptData {
		t.Fatalf("a value the function refuses: %v", code)
	}
}

// Transform is safe on any bytes: it never panics, and what it accepts and
// returns is a valid record.
func FuzzTransform(f *testing.F) {
	rec, _ := Build([]Message{{Payload: []byte("x"), Headers: []byte{1}}})
	f.Add(rec)
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, code := Validate(b); code != wire.OK {
			return
		}
		out, code := Transform(b, wrapValue)
		if code != wire.OK {
			return
		}
		if _, code := Validate(out); code != wire.OK {
			t.Fatalf("transform of a valid record is invalid: %v", code)
		}
	})
}
