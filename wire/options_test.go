package wire

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iggygo/iggy/internal/testenv"
)

// dataVectorsDir is the golden vector directory: from this package up to the
// repo root, then the sibling shared/ checkout.
var dataVectorsDir = filepath.Join("..", "..", "shared", "spec", "vectors")

// dataVector returns the bytes of vector number n (NN-*.hex), skipping the
// test when the shared checkout is absent (failing it under CI=true).
func dataVector(tb testing.TB, n int) []byte {
	tb.Helper()
	if _, err := os.Stat(dataVectorsDir); err != nil {
		testenv.VectorsMissing(tb, dataVectorsDir, err)
	}
	matches, err := filepath.Glob(filepath.Join(dataVectorsDir, twoDigits(n)+"-*.hex"))
	if err != nil || len(matches) != 1 {
		tb.Fatalf("vector %02d: %v %v", n, matches, err)
	}
	text, err := os.ReadFile(matches[0])
	if err != nil {
		tb.Fatalf("vector %02d: %v", n, err)
	}
	b, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
	if err != nil {
		tb.Fatalf("vector %02d: %v", n, err)
	}
	return b
}

// dataVectorSeed is dataVector for fuzz seeds: nil when the vectors are absent.
func dataVectorSeed(f *testing.F, n int) []byte {
	if _, err := os.Stat(dataVectorsDir); err != nil {
		return nil
	}
	return dataVector(f, n)
}

func twoDigits(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }

// frameBody strips the 256-byte frame header of a request or reply frame vector.
func frameBody(frame []byte) []byte { return frame[256:] }

// The cross-SDK golden block (protocol-data.md 1.3).
func TestOptionsGoldenBlock(t *testing.T) {
	b := dataVector(t, 24)
	o, code := DecodeOptions(b)
	if code != OK {
		t.Fatalf("decode: %v", code)
	}
	want := Options{
		{Key: "enforce_fsync", Kind: KindBool, Value: []byte{1}},
		{Key: "segment_size", Kind: KindUint64, Value: u64Bytes(1 << 30)},
	}
	if !optionsEqual(o, want) {
		t.Fatalf("got %+v", o)
	}
	w := &Writer{}
	w.OptionsInOrder(o)
	if !bytes.Equal(w.Buf, b) {
		t.Fatalf("re-encode differs:\n%x\n%x", w.Buf, b)
	}
	// The response form is the same bytes behind a u32 length, sorted.
	w = &Writer{}
	w.OptionsPrefixed(Options{want[1], want[0]})
	if !bytes.Equal(w.Buf[4:], b) || int(w.Buf[0]) != len(b) {
		t.Fatalf("prefixed form: %x", w.Buf)
	}
	r := NewReader(w.Buf)
	if got := r.OptionsPrefixed(); r.Err() != OK || !optionsEqual(got, want) || r.Len() != 0 {
		t.Fatalf("prefixed decode: %v %+v", r.Err(), got)
	}
}

func optionsEqual(a, b Options) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Kind != b[i].Kind || !bytes.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

func rawTLV(kind uint8, n uint32, data []byte) []byte {
	w := &Writer{}
	w.U8(kind)
	w.U32(n)
	w.Bytes(data)
	return w.Buf
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// Structural and content rules of protocol-data.md 0.2 and 1.2.
func TestOptionsStructuralErrors(t *testing.T) {
	key := rawTLV(2, 1, []byte("k"))
	val := rawTLV(2, 1, []byte("v"))
	long := bytes.Repeat([]byte("k"), 256)
	cases := map[string][]byte{
		"odd item count":      key,
		"zero key kind":       concat(rawTLV(0, 1, []byte("k")), val),
		"zero value kind":     concat(key, rawTLV(0, 1, []byte("v"))),
		"zero length":         concat(rawTLV(2, 0, nil), val),
		"length 256":          concat(rawTLV(2, 256, long), val),
		"overrun":             concat(key, rawTLV(2, 5, []byte("v"))),
		"trailing byte":       concat(key, val, []byte{2}),
		"numeric key kind":    concat(rawTLV(11, 1, []byte("k")), val),
		"invalid utf8 key":    concat(rawTLV(2, 1, []byte{0xff}), val),
		"duplicate key":       concat(key, val, key, val),
		"truncated length":    {2, 1, 0},
		"huge length":         concat([]byte{2, 0xff, 0xff, 0xff, 0xff}, []byte("k")),
		"over 100,000 bytes":  bytes.Repeat(concat(key, val), OptionsSizeBytesMax/12+1),
		"over 1024 pairs":     manyPairs(OptionsPairsMax + 1),
		"unknown kind no len": {200},
	}
	for name, b := range cases {
		if _, code := DecodeOptions(b); code != InvalidCommand {
			t.Errorf("%s: got %v, want InvalidCommand", name, code)
		}
	}
	if o, code := DecodeOptions(manyPairs(OptionsPairsMax)); code != OK || len(o) != OptionsPairsMax {
		t.Errorf("1024 pairs: %v %d", code, len(o))
	}
	if o, code := DecodeOptions(nil); code != OK || len(o) != 0 {
		t.Errorf("empty block: %v %v", code, o)
	}
	// Unknown value kinds are structurally valid (forward compatibility).
	if _, code := DecodeOptions(concat(key, rawTLV(200, 2, []byte("xx")))); code != OK {
		t.Errorf("unknown value kind: %v", code)
	}
}

func manyPairs(n int) []byte {
	var out []byte
	for i := range n {
		k := []byte{byte('a' + i%26), byte('a' + i/26%26), byte('a' + i/676)}
		out = append(out, concat(rawTLV(2, 3, k), rawTLV(1, 1, []byte{1}))...)
	}
	return out
}

func TestOptionsCheckAndSort(t *testing.T) {
	o := Options{{Key: "b", Kind: KindRaw, Value: []byte{1}}, {Key: "a", Kind: KindRaw, Value: []byte{2}}}
	if o.Check() != OK {
		t.Fatal("valid block refused")
	}
	if s := o.Sorted(); s[0].Key != "a" || o[0].Key != "b" {
		t.Fatal("Sorted must sort a copy")
	}
	dup := append(o, Option{Key: "a", Kind: KindRaw, Value: []byte{3}})
	if dup.Check() != InvalidCommand {
		t.Fatal("duplicate accepted")
	}
	if (Options{{Key: "", Kind: KindRaw, Value: []byte{1}}}).Check() != InvalidCommand {
		t.Fatal("empty key accepted")
	}
	big := make(Options, OptionsPairsMax+1)
	for i := range big {
		big[i] = Option{Key: string(rune('a' + i%26)), Kind: KindRaw, Value: []byte{1}}
	}
	if big.Check() != OptionsBlockTooLarge {
		t.Fatal("oversized block accepted")
	}
}

func FuzzDecodeOptions(f *testing.F) {
	f.Add(dataVectorSeed(f, 24))
	f.Add([]byte{})
	f.Add(manyPairs(3))
	f.Fuzz(func(t *testing.T, b []byte) {
		o, code := DecodeOptions(b)
		if code != OK {
			return
		}
		if o.Check() != OK {
			t.Fatalf("decoded block fails Check: %+v", o)
		}
		w := &Writer{}
		w.OptionsInOrder(o)
		if !bytes.Equal(w.Buf, b) {
			t.Fatalf("re-encode differs")
		}
	})
}
