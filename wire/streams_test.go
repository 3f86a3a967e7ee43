package wire

import (
	"bytes"
	"reflect"
	"testing"
)

// dataRoundTrip checks that a value decoded from b encodes to bytes that
// decode again, and that a second encode changes nothing more: response
// encoders may normalize once (options blocks are written sorted by key).
// The fuzz targets run it on every input.
func dataRoundTrip[T any](t *testing.T, decode func([]byte) (T, Code), encode func(T, *Writer), b []byte) {
	t.Helper()
	v, code := decode(b)
	if code != OK {
		return
	}
	once, code := decode(encodeWith(encode, v))
	if code != OK {
		t.Fatalf("re-encoded value does not decode: %v\n%+v", code, v)
	}
	twice, code := decode(encodeWith(encode, once))
	if code != OK || !reflect.DeepEqual(once, twice) {
		t.Fatalf("round trip: %v\n%+v\n%+v", code, once, twice)
	}
}

// dataRequestRoundTrip is the strict form for request bodies, whose encoders
// keep every field as decoded (options in their own order).
func dataRequestRoundTrip[T any](t *testing.T, decode func([]byte) (T, Code), encode func(T, *Writer), b []byte) {
	t.Helper()
	v, code := decode(b)
	if code != OK {
		return
	}
	again, code := decode(encodeWith(encode, v))
	if code != OK || !reflect.DeepEqual(v, again) {
		t.Fatalf("round trip: %v\n%+v\n%+v", code, v, again)
	}
}

// dataExact checks that b decodes without error and re-encodes to exactly b.
func dataExact[T any](t *testing.T, decode func([]byte) (T, Code), encode func(T, *Writer), b []byte) T {
	t.Helper()
	v, code := decode(b)
	if code != OK {
		t.Fatalf("decode: %v", code)
	}
	w := &Writer{}
	encode(v, w)
	if !bytes.Equal(w.Buf, b) {
		t.Fatalf("re-encode differs:\n got %x\nwant %x", w.Buf, b)
	}
	return v
}

func encStreamRef(q StreamRef, w *Writer)              { q.Encode(w) }
func encCreateStream(q CreateStreamRequest, w *Writer) { q.Encode(w) }
func encUpdateStream(q UpdateStreamRequest, w *Writer) { q.Encode(w) }
func encStreamResponse(s StreamResponse, w *Writer)    { s.Encode(w) }
func encStreams(s []StreamResponse, w *Writer)         { EncodeStreams(w, s) }
func encStreamDetailsFound(d StreamDetails, w *Writer) { d.Encode(w) }
func decStreamResponse(b []byte) (StreamResponse, Code) {
	return readWhole(b, (*Reader).StreamResponse)
}
func decStreamDetailsFound(b []byte) (StreamDetails, Code) { return foundOnly(DecodeStreamDetails(b)) }

// readWhole runs one record reader over b and refuses trailing bytes.
func readWhole[T any](b []byte, read func(*Reader) T) (T, Code) {
	r := NewReader(b)
	v := read(r)
	return v, finish(r)
}

// foundOnly turns a "not found" empty reply into an error, for round trips.
func foundOnly[T any](v T, found bool, code Code) (T, Code) {
	if code == OK && !found {
		code = InvalidCommand
	}
	return v, code
}

func TestStreamRequestVectors(t *testing.T) {
	q := dataExact(t, DecodeCreateStreamRequest, encCreateStream, dataVector(t, 42))
	if q.Name != "test" || len(q.Options) != 0 {
		t.Fatalf("42: %+v", q)
	}
	q = dataExact(t, DecodeCreateStreamRequest, encCreateStream, dataVector(t, 43))
	if q.Name != "test_stream" {
		t.Fatalf("43: %+v", q)
	}
	q = dataExact(t, DecodeCreateStreamRequest, encCreateStream, frameBody(dataVector(t, 44)))
	if q.Name != "orders" {
		t.Fatalf("44: %+v", q)
	}
	u := dataExact(t, DecodeUpdateStreamRequest, encUpdateStream, dataVector(t, 46))
	if u.StreamID != NamedID("stream") || u.Name != "update_stream" || len(u.Options) != 0 {
		t.Fatalf("46: %+v", u)
	}
	ref := dataExact(t, DecodeStreamRef, encStreamRef, dataVector(t, 28))
	if ref.StreamID != NumericID(1) {
		t.Fatalf("28: %+v", ref)
	}
}

func TestStreamRequestErrors(t *testing.T) {
	bad := map[string][]byte{
		"empty":              nil,
		"zero-length name":   {0},
		"short name":         {5, 'a', 'b'},
		"bad utf8 name":      {1, 0xff},
		"options structural": concat([]byte{1, 'a'}, rawTLV(2, 1, []byte("k"))),
	}
	for name, b := range bad {
		if _, code := DecodeCreateStreamRequest(b); code != InvalidCommand {
			t.Errorf("create %s: %v", name, code)
		}
	}
	if _, code := DecodeUpdateStreamRequest([]byte{3, 4, 0, 0, 0, 0, 1, 'a'}); code != InvalidCommand {
		t.Errorf("update with identifier kind 3: %v", code)
	}
	if _, code := DecodeStreamRef([]byte{1, 3, 0, 0, 0}); code != InvalidCommand {
		t.Errorf("numeric identifier of length 3: %v", code)
	}
}

// covers RES-14
func TestStreamResponseVectors(t *testing.T) {
	s := dataExact(t, decStreamResponse, encStreamResponse, dataVector(t, 47))
	want := StreamResponse{ID: 42, CreatedAtMicros: 1710000000, TopicsCount: 5, SizeBytes: 2048,
		MessagesCount: 100, Name: "my-stream"}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("47: %+v", s)
	}
	s = dataExact(t, decStreamResponse, encStreamResponse, dataVector(t, 48))
	if s.ID != 7 || s.CreatedAtMicros != 500 || s.Name != "with-options" ||
		!optionsEqual(s.Options, Options{optStr("future_key", "value")}) {
		t.Fatalf("48: %+v", s)
	}
	list := dataExact(t, DecodeStreams, encStreams, dataVector(t, 49))
	if len(list) != 3 || list[0].Name != "stream-one" || list[1].Name != "s2" || list[2].Name != "third" ||
		list[0].TopicsCount != 2 || list[2].SizeBytes != 1024 || list[2].MessagesCount != 10 {
		t.Fatalf("49: %+v", list)
	}
	if got, code := DecodeStreams(nil); code != OK || len(got) != 0 {
		t.Fatalf("zero streams: %v %v", code, got)
	}
	// The CreateStream reply: result section count 0, then the StreamResponse.
	body := frameBody(dataVector(t, 45))
	if !bytes.Equal(body[:4], []byte{0, 0, 0, 0}) {
		t.Fatalf("45: result section %x", body[:4])
	}
	s = dataExact(t, decStreamResponse, encStreamResponse, body[4:])
	if s.ID != 9 || s.CreatedAtMicros != 1700000000 || s.Name != "orders" || s.TopicsCount != 0 {
		t.Fatalf("45: %+v", s)
	}
}

func TestStreamDetails(t *testing.T) {
	d := StreamDetails{
		Stream: StreamResponse{ID: 1, TopicsCount: 2, Name: "s"},
		Topics: []TopicHeader{
			{ID: 0, Name: "a", Explicit: Options{optStr("k", "v")}},
			{ID: 1, Name: "b", Derived: Options{optStr("k", "v")}},
		},
	}
	w := &Writer{}
	d.Encode(w)
	got, found, code := DecodeStreamDetails(w.Buf)
	if code != OK || !found || !reflect.DeepEqual(got, d) {
		t.Fatalf("round trip: %v %v\n%+v", code, found, got)
	}
	if _, _, code := DecodeStreamDetails(w.Buf[:len(w.Buf)-1]); code != InvalidCommand {
		t.Fatalf("truncated: %v", code)
	}
	if _, _, code := DecodeStreamDetails(append(w.Buf, 0)); code != InvalidCommand {
		t.Fatalf("trailing byte: %v", code)
	}
	if _, found, code := DecodeStreamDetails(nil); code != OK || found {
		t.Fatal("empty body must be not found")
	}
	// A topics_count the body cannot hold fails before any allocation.
	w = &Writer{}
	StreamResponse{TopicsCount: 0xffffffff, Name: "s"}.Encode(w)
	if _, _, code := DecodeStreamDetails(w.Buf); code != InvalidCommand {
		t.Fatalf("huge topics_count: %v", code)
	}
}

func FuzzStreamRequests(f *testing.F) {
	for _, n := range []int{28, 42, 43, 46} {
		f.Add(dataVectorSeed(f, n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dataRequestRoundTrip(t, DecodeStreamRef, encStreamRef, b)
		dataRequestRoundTrip(t, DecodeCreateStreamRequest, encCreateStream, b)
		dataRequestRoundTrip(t, DecodeUpdateStreamRequest, encUpdateStream, b)
	})
}
