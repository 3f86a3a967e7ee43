package wire

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"testing"
)

func encodeRoutes(routes []PartitionRoute) []byte {
	w := Writer{}
	EncodePartitionRoutes(&w, routes)
	return w.Buf
}

// The reply layout we chose, byte by byte (DESIGN.md "Wire layouts we chose").
// covers PLACE-20
func TestPartitionRoutesPinnedLayout(t *testing.T) {
	got := hex.EncodeToString(encodeRoutes([]PartitionRoute{{0, 0, 0}, {1, 2, 7}}))
	want := "02000000" + "00000000" + "00" + "00000000" + "01000000" + "02" + "07000000"
	if got != want {
		t.Fatalf("encoding\n got %s\nwant %s", got, want)
	}
}

// covers PLACE-20
func TestPartitionRoutesRoundTrip(t *testing.T) {
	for _, routes := range [][]PartitionRoute{{}, {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, {{9, 255, 1 << 31}}} {
		back, code := DecodePartitionRoutes(encodeRoutes(routes))
		if code != OK || !reflect.DeepEqual(back, routes) {
			t.Fatalf("%+v: %+v %v", routes, back, code)
		}
	}
	// The request is a TopicRef; the identifier vectors fit it.
	q := TopicRef{StreamID: NamedID("Hello"), TopicID: NumericID(123)}
	w := Writer{}
	q.Encode(&w)
	if back, code := DecodeTopicRef(w.Buf); code != OK || back != q {
		t.Fatalf("request: %+v %v", back, code)
	}
	if v := dataVector(t, 22); !bytes.Equal(w.Buf[:len(v)], v) {
		t.Fatalf("stream identifier %x, vector %x", w.Buf[:len(v)], v)
	}
}

// covers PLACE-20
func TestPartitionRoutesMalformed(t *testing.T) {
	valid := encodeRoutes([]PartitionRoute{{0, 0, 0}, {1, 0, 0}})
	cases := map[string][]byte{
		"empty":       {},
		"short count": {1, 0},
		"count high":  valid[:len(valid)-9],
		"short route": valid[:len(valid)-1],
		"trailing":    append(bytes.Clone(valid), 0),
		"huge count":  {0xff, 0xff, 0xff, 0xff},
	}
	for name, b := range cases {
		if _, code := DecodePartitionRoutes(b); code != InvalidCommand {
			t.Errorf("%s: %v, want 3", name, code)
		}
	}
}

func FuzzDecodePartitionRoutes(f *testing.F) {
	f.Add(encodeRoutes([]PartitionRoute{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}))
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		routes, code := DecodePartitionRoutes(b)
		if code != OK {
			if code != InvalidCommand {
				t.Fatalf("failure %d, want 3", code)
			}
			return
		}
		if again := encodeRoutes(routes); !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs:\n%x\n%x", again, b)
		}
	})
}
