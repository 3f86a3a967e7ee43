package wire

import (
	"bytes"
	"testing"
)

// framingRoundTrip checks that a successful decode re-encodes to a form that
// decodes again and re-encodes to the same bytes (the canonical form).
func framingRoundTrip[T any](t *testing.T, decode func([]byte) (T, Code), encode func(*Writer, T), b []byte) {
	t.Helper()
	v, code := decode(b)
	if code != OK {
		if code != InvalidCommand {
			t.Fatalf("decode failed with %v, want InvalidCommand", code)
		}
		return
	}
	var w1, w2 Writer
	encode(&w1, v)
	v2, code := decode(w1.Buf)
	if code != OK {
		t.Fatalf("re-encoded form does not decode: %v\n%x", code, w1.Buf)
	}
	encode(&w2, v2)
	if !bytes.Equal(w1.Buf, w2.Buf) {
		t.Fatalf("not canonical\n%x\n%x", w1.Buf, w2.Buf)
	}
}

// patchVersion returns body with the packed protocol version at offset 0
// replaced by v (the vectors carry 0.11.0).
func patchVersion(body []byte, v ProtocolVersion) []byte {
	b := bytes.Clone(body)
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	return b
}

// covers TRAN-1, TRAN-7, TRAN-8
func TestLoginPasswordVector(t *testing.T) {
	body := framingVector(t, "04-login-register-body.hex")
	p, creds, code := DecodeLoginPrefix(body)
	want := LoginPrefix{Version: PackProtocolVersion(0, 11, 0), SDKName: "go-sdk", SDKVersion: "0.9.0-edge.1"}
	if code != OK || p != want {
		t.Fatalf("prefix %+v %v", p, code)
	}
	// The snapshot SDK speaks 0.11.0: refused before the credentials are read.
	if ProtocolVersionAccepted(p.Version) {
		t.Fatal("0.11.0 must be refused")
	}
	l, code := DecodeLoginPassword(creds)
	if code != OK || l != (LoginPassword{Username: "iggy", Password: "secret"}) || !l.LengthsValid() {
		t.Fatalf("shape A %+v %v", l, code)
	}
	if _, code := DecodeLoginToken(creds); code == OK {
		t.Fatal("shape A body must not decode as shape B")
	}
	var w Writer
	p.Encode(&w)
	l.Encode(&w)
	if !bytes.Equal(w.Buf, body) {
		t.Fatalf("re-encoded\n%x\n%x", w.Buf, body)
	}
	target := patchVersion(body, ProtocolVersionMin)
	if p, _, _ := DecodeLoginPrefix(target); !ProtocolVersionAccepted(p.Version) {
		t.Fatal("0.12.0 must pass the gate")
	}
}

// covers TRAN-1, TRAN-7
func TestLoginTokenVector(t *testing.T) {
	body := framingVector(t, "06-login-register-pat-body.hex")
	p, creds, code := DecodeLoginPrefix(body)
	if code != OK || p.SDKName != "go-sdk" {
		t.Fatalf("prefix %+v %v", p, code)
	}
	// The server tries shape A first; this body fails it and decodes as B.
	if _, code := DecodeLoginPassword(creds); code == OK {
		t.Fatal("shape B body decoded as shape A")
	}
	l, code := DecodeLoginToken(creds)
	if code != OK || l != (LoginToken{Token: "token-value"}) {
		t.Fatalf("shape B %+v %v", l, code)
	}
	var w Writer
	p.Encode(&w)
	l.Encode(&w)
	if !bytes.Equal(w.Buf, body) {
		t.Fatalf("re-encoded\n%x\n%x", w.Buf, body)
	}
}

// covers TRAN-7
func TestLoginPrefixMalformed(t *testing.T) {
	bodies := [][]byte{
		nil,                              // vector 03: Register with no body
		{0, 0x30, 0, 0},                  // no sdk name
		{0, 0x30, 0, 0, 0},               // zero-length sdk name
		{0, 0x30, 0, 0, 1, 'g', 0},       // zero-length sdk version
		{0, 0x30, 0, 0, 1, 'g', 5, 'a'},  // truncated sdk version
		{0, 0x30, 0, 0, 1, 0xff, 1, 'a'}, // invalid UTF-8
		framingVector(t, "35-login-user-legacy-body.hex"), // not a Register body
	}
	for i, b := range bodies {
		if _, _, code := DecodeLoginPrefix(b); code != InvalidCommand {
			t.Errorf("body %d: %v", i, code)
		}
	}
}

// covers TRAN-1
func TestLoginLengthRules(t *testing.T) {
	tests := []struct {
		l    LoginPassword
		want bool
	}{
		{LoginPassword{Username: "abc", Password: "abc"}, true},
		{LoginPassword{Username: "ab", Password: "abc"}, false},
		{LoginPassword{Username: string(make([]byte, 51)), Password: "abc"}, false},
		{LoginPassword{Username: "abc", Password: "ab"}, false},
		{LoginPassword{Username: "abc", Password: string(make([]byte, 101))}, false},
		{LoginPassword{Username: string(make([]byte, 50)), Password: string(make([]byte, 100))}, true},
	}
	for i, tt := range tests {
		if tt.l.LengthsValid() != tt.want {
			t.Errorf("case %d", i)
		}
	}
}

// The Register reply carries the signed-in user's id.
// covers TRAN-1, AUTH-11
func TestRegisterReplyVector(t *testing.T) {
	payload := framingVector(t, "08-register-reply-payload.hex")
	r, code := DecodeRegisterReply(payload)
	want := RegisterReply{UserID: 7, Session: 128, Protocol: PackProtocolVersion(0, 11, 0), ServerVersion: "0.11.0-edge.1"}
	if code != OK || r != want {
		t.Fatalf("%+v %v", r, code)
	}
	var w Writer
	r.Encode(&w)
	if !bytes.Equal(w.Buf, payload) {
		t.Fatalf("re-encoded\n%x\n%x", w.Buf, payload)
	}
	zeroSession := bytes.Clone(payload)
	clear(zeroSession[4:12])
	for _, bad := range [][]byte{payload[:16], payload[:len(payload)-1], zeroSession} {
		if _, code := DecodeRegisterReply(bad); code != InvalidCommand {
			t.Errorf("%x: %v", bad, code)
		}
	}
}

// covers TRAN-7
func FuzzDecodeLogin(f *testing.F) {
	addFramingSeeds(f, "04-login-register-body.hex", "06-login-register-pat-body.hex", "35-login-user-legacy-body.hex")
	f.Fuzz(func(t *testing.T, body []byte) {
		p, creds, code := DecodeLoginPrefix(body)
		if code != OK {
			if code != InvalidCommand {
				t.Fatalf("prefix %v", code)
			}
			return
		}
		_ = ProtocolVersionAccepted(p.Version)
		enc := func(w *Writer, v LoginPassword) { v.Encode(w) }
		framingRoundTrip(t, DecodeLoginPassword, enc, creds)
		framingRoundTrip(t, DecodeLoginToken, func(w *Writer, v LoginToken) { v.Encode(w) }, creds)
		framingRoundTrip(t, func(b []byte) (LoginPrefix, Code) {
			p, _, c := DecodeLoginPrefix(b)
			return p, c
		}, func(w *Writer, v LoginPrefix) { v.Encode(w) }, body)
	})
}

// covers TRAN-1, AUTH-11
func FuzzDecodeRegisterReply(f *testing.F) {
	addFramingSeeds(f, "08-register-reply-payload.hex")
	f.Fuzz(func(t *testing.T, b []byte) {
		framingRoundTrip(t, DecodeRegisterReply, func(w *Writer, v RegisterReply) { v.Encode(w) }, b)
	})
}
