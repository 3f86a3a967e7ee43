package wire

import (
	"bytes"
	"reflect"
	"testing"
)

var goldenCursor = ChangeCursor{History: 0x1122334455667788, Seq: 5, Op: 9}

var goldenChangesRequest = ChangesRequest{Start: ChangeStartCursor, Groups: 1<<GroupStreams | 1<<GroupTopics,
	FromMicros: 1000, ToMicros: 2000, Limit: 50, Token: goldenCursor.String()}

var goldenChangesReply = ChangesReply{Status: ChangeStatusOK, HasMore: true, Cursor: goldenCursor.String(),
	Records: []ChangeRecord{{Seq: 5, Op: 9, TimeMicros: 1500, Group: GroupStreams, HasUser: true, UserID: 0,
		Kind: "stream.created", Body: []byte(`{"stream":{"id":1,"created_op":9,"name":"s"}}`)}}}

// covers MCL-5, MCL-15
func TestChangesVectors(t *testing.T) {
	b := ownVector(t, "metadata-changes-request-body.hex")
	q, code := DecodeChangesRequest(b)
	if code != OK || q != goldenChangesRequest {
		t.Fatalf("request %+v %v", q, code)
	}
	w := &Writer{}
	EncodeChangesRequest(w, q)
	if !bytes.Equal(w.Buf, b) {
		t.Fatal("request re-encodes differently")
	}
	b = ownVector(t, "metadata-changes-reply-body.hex")
	p, code := DecodeChangesReply(b)
	if code != OK || !reflect.DeepEqual(p, goldenChangesReply) {
		t.Fatalf("reply %+v %v", p, code)
	}
	w = &Writer{}
	EncodeChangesReply(w, p)
	if !bytes.Equal(w.Buf, b) {
		t.Fatal("reply re-encodes differently")
	}
	if goldenCursor.String() != "mc1_887766554433221105000000000000000900000000000000" {
		t.Fatalf("cursor %s", goldenCursor)
	}
}

// covers MCL-14, MCL-15, MCL-16, MCL-17
func TestChangesRequestRules(t *testing.T) {
	ok := ChangesRequest{Start: ChangeStartEarliest, Limit: 1}
	cases := []struct {
		name string
		q    ChangesRequest
		want Code
	}{
		{"limit 1", ok, OK},
		{"limit 1000", ChangesRequest{Start: ChangeStartEarliest, Limit: 1000}, OK},
		{"limit 0", ChangesRequest{Start: ChangeStartEarliest}, InvalidCommand},
		{"limit 1001", ChangesRequest{Start: ChangeStartEarliest, Limit: 1001}, InvalidCommand},
		{"range with latest", ChangesRequest{Start: ChangeStartLatest, Limit: 1, FromMicros: 1}, InvalidCommand},
		{"range with current", ChangesRequest{Start: ChangeStartCurrent, Limit: 1, ToMicros: 1}, InvalidCommand},
		{"range with earliest", ChangesRequest{Start: ChangeStartEarliest, Limit: 1, FromMicros: 1, ToMicros: 2}, OK},
		{"inverted range", ChangesRequest{Start: ChangeStartEarliest, Limit: 1, FromMicros: 3, ToMicros: 2}, InvalidCommand},
		{"cursor missing", ChangesRequest{Start: ChangeStartCursor, Limit: 1}, InvalidCommand},
		{"cursor upper case", ChangesRequest{Start: ChangeStartCursor, Limit: 1, Token: "mc1_" + "8877665544332211050000000000000009000000000000AA"}, InvalidCommand},
		{"page token as cursor", ChangesRequest{Start: ChangeStartCursor, Limit: 1, Token: StatePageToken{Anchor: goldenCursor}.String()}, InvalidCommand},
		{"cursor with earliest", ChangesRequest{Start: ChangeStartEarliest, Limit: 1, Token: goldenCursor.String()}, InvalidCommand},
		{"unknown group", ChangesRequest{Start: ChangeStartEarliest, Limit: 1, Groups: 1 << 8}, InvalidCommand},
		{"unknown start", ChangesRequest{Start: 4, Limit: 1}, InvalidCommand},
		{"current topics without streams", ChangesRequest{Start: ChangeStartCurrent, Limit: 1, Groups: 1 << GroupTopics}, InvalidCommand},
		{"current members without groups", ChangesRequest{Start: ChangeStartCurrent, Limit: 1, Groups: 1<<GroupStreams | 1<<GroupTopics | 1<<GroupConsumerGroupMembers}, InvalidCommand},
		{"current streams and topics", ChangesRequest{Start: ChangeStartCurrent, Limit: 1, Groups: 1<<GroupStreams | 1<<GroupTopics}, OK},
		{"history topics alone", ChangesRequest{Start: ChangeStartEarliest, Limit: 1, Groups: 1 << GroupTopics}, OK},
	}
	for _, c := range cases {
		w := &Writer{}
		EncodeChangesRequest(w, c.q)
		if _, code := DecodeChangesRequest(w.Buf); code != c.want {
			t.Errorf("%s: %v, want %v", c.name, code, c.want)
		}
	}
}

// covers MCL-15
func TestChangeTokensRoundTrip(t *testing.T) {
	c, ok := ParseChangeCursor(goldenCursor.String())
	if !ok || c != goldenCursor {
		t.Fatal("cursor round trip")
	}
	pt := StatePageToken{Anchor: goldenCursor, Phase: 1, Major: 3, Minor: 4, Item: 5}
	if back, ok := ParseStatePageToken(pt.String()); !ok || back != pt {
		t.Fatal("page token round trip")
	}
	for _, bad := range []string{"", "mc1_", "mc2_" + goldenCursor.String()[4:], goldenCursor.String() + "00", " " + goldenCursor.String()} {
		if _, ok := ParseChangeCursor(bad); ok {
			t.Errorf("accepted %q", bad)
		}
	}
}

func FuzzChangesRequest(f *testing.F) {
	w := &Writer{}
	EncodeChangesRequest(w, goldenChangesRequest)
	f.Add(w.Buf)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		q, code := DecodeChangesRequest(b)
		if code != OK {
			return
		}
		w := &Writer{}
		EncodeChangesRequest(w, q)
		if !bytes.Equal(w.Buf, b) {
			t.Fatalf("accepted a non-canonical request %x", b)
		}
	})
}

func FuzzChangeTokens(f *testing.F) {
	f.Add(goldenCursor.String())
	f.Add(StatePageToken{Anchor: goldenCursor}.String())
	f.Add("mc1_zz")
	f.Fuzz(func(t *testing.T, s string) {
		if c, ok := ParseChangeCursor(s); ok && c.String() != s {
			t.Fatalf("cursor %q is not the one issued: %q", s, c.String())
		}
		if p, ok := ParseStatePageToken(s); ok && p.String() != s {
			t.Fatalf("page token %q is not the one issued: %q", s, p.String())
		}
	})
}

func FuzzChangesReply(f *testing.F) {
	w := &Writer{}
	EncodeChangesReply(w, goldenChangesReply)
	f.Add(w.Buf)
	f.Fuzz(func(t *testing.T, b []byte) {
		p, code := DecodeChangesReply(b)
		if code != OK {
			return
		}
		w := &Writer{}
		EncodeChangesReply(w, p)
		if !bytes.Equal(w.Buf, b) {
			t.Fatalf("reply re-encodes differently")
		}
	})
}
