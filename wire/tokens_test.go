package wire

import (
	"bytes"
	"reflect"
	"testing"
)

// covers TRAN-1
func TestCreatePAT(t *testing.T) {
	c := CreatePATRequest{Name: "ci-token", Expiry: PATExpiryNever}
	var w Writer
	c.Encode(&w)
	if !bytes.Equal(w.Buf, append([]byte{8, 'c', 'i', '-', 't', 'o', 'k', 'e', 'n'}, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)) {
		t.Fatalf("%x", w.Buf)
	}
	got, code := DecodeCreatePAT(w.Buf)
	if code != OK || got != c {
		t.Fatalf("%+v %v", got, code)
	}
	for _, bad := range [][]byte{nil, {0, 0, 0, 0, 0, 0, 0, 0, 0}, w.Buf[:len(w.Buf)-1]} {
		if _, code := DecodeCreatePAT(bad); code != InvalidCommand {
			t.Errorf("%x: %v", bad, code)
		}
	}
}

// covers TRAN-1
func TestCreatePATReply(t *testing.T) {
	token := "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2dw=="
	var w Writer
	CreatePATReply{Token: token}.Encode(&w)
	if w.Buf[0] != byte(len(token)) {
		t.Fatalf("%x", w.Buf)
	}
	// The reply is result-framed: [count=0][token WireName].
	frame := joinParts(ResultFrame(ReplyHeader{Request: 2, Operation: OpCreatePersonalAccessToken}, w.Buf))
	h, _ := DecodeReplyHeader(frame)
	body, code := SplitReplyBody(h, frame[HeaderSize:])
	if code != OK || body.Result != OK {
		t.Fatalf("%+v %v", body, code)
	}
	got, code := DecodeCreatePATReply(body.Payload)
	if code != OK || got.Token != token {
		t.Fatalf("%+v %v", got, code)
	}
}

// covers TRAN-1
func TestDeletePAT(t *testing.T) {
	var w Writer
	EncodeDeletePAT(&w, "old")
	name, code := DecodeDeletePAT(w.Buf)
	if code != OK || name != "old" {
		t.Fatalf("%q %v", name, code)
	}
	if _, code := DecodeDeletePAT([]byte{0}); code != InvalidCommand {
		t.Fatal("empty name accepted")
	}
}

// covers TRAN-1
func TestPATList(t *testing.T) {
	tokens := []PATInfo{{Name: "a", ExpiryAt: PATExpiryAtNever}, {Name: "bb", ExpiryAt: 1_700_000_000_000_000}}
	var w Writer
	EncodePATs(&w, tokens)
	if len(w.Buf) != (1+1+8)+(1+2+8) {
		t.Fatalf("%x", w.Buf)
	}
	got, code := DecodePATs(w.Buf)
	if code != OK || !reflect.DeepEqual(got, tokens) {
		t.Fatalf("%+v %v", got, code)
	}
	if _, code := DecodePATs(w.Buf[:len(w.Buf)-3]); code != InvalidCommand {
		t.Fatal("partial record accepted")
	}
	if got, code := DecodePATs(nil); code != OK || len(got) != 0 {
		t.Fatal("an empty body is an empty list")
	}
}

// covers TRAN-1
func FuzzDecodeCreatePAT(f *testing.F) {
	f.Add([]byte{3, 'p', 'a', 't', 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, DecodeCreatePAT, func(w *Writer, v CreatePATRequest) { v.Encode(w) }, b)
		framingRoundTrip(t, DecodeDeletePAT, EncodeDeletePAT, b)
		framingRoundTrip(t, DecodeCreatePATReply, func(w *Writer, v CreatePATReply) { v.Encode(w) }, b)
		framingRoundTrip(t, DecodePATs, EncodePATs, b)
	})
}
