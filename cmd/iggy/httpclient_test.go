package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

func reply(status int, body string) *http.Response {
	return &http.Response{StatusCode: status, Body: io.NopCloser(strings.NewReader(body))}
}

// An error body's id is the Iggy code the CLI prints, except the
// hand-built errors whose id is the status (http.md 2).
func TestHTTPReplyError(t *testing.T) {
	err := replyError("POST", "/streams", reply(400, `{"id":1012,"code":"stream_name_already_exists","reason":"Stream name already exists.","field":"name"}`))
	if code, ok := iggyCode(err); !ok || code != wire.StreamNameAlreadyExists || exitCode(err) != exitRefused {
		t.Fatalf("typed 400: %v (code %v, %v)", err, code, ok)
	}
	if err := replyError("GET", "/streams/x", reply(404, `{"id":404,"code":"not_found","reason":"Resource not found","field":null}`)); !errors.Is(err, errAbsent) {
		t.Fatalf("a GET of nothing: %v, want absent", err)
	}
	err = replyError("DELETE", "/streams/x", reply(404, `{"id":404,"code":"not_found","reason":"Resource not found","field":null}`))
	if code, _ := iggyCode(err); code != wire.ResourceNotFound {
		t.Fatalf("a DELETE of nothing: %v", err)
	}
	err = replyError("POST", "/streams/1/topics/1/messages", reply(503, `{"id":503,"code":"server_busy","reason":"busy","field":null}`))
	if _, ok := iggyCode(err); ok || !strings.Contains(err.Error(), "server_busy") {
		t.Fatalf("a hand-built 503: %v", err)
	}
	err = replyError("POST", "/streams", reply(415, "Expected request with `Content-Type: application/json`"))
	if _, ok := iggyCode(err); ok || !strings.Contains(err.Error(), "415") {
		t.Fatalf("a plain-text rejection: %v", err)
	}
	var refused *client.Error
	if errors.As(replyError("GET", "/x", reply(400, `{"id":3}`)), &refused) {
		t.Fatal("a body without a code string read as an Iggy error")
	}
}

// Polled headers come back as the TLV block the binary client returns, so
// one view serves both transports.
func TestHTTPHeadersBlock(t *testing.T) {
	sent := headersBody(map[string]client.HeaderValue{"source": {Kind: wire.KindString, Value: []byte("cli")},
		"n": {Kind: wire.KindUint32, Value: []byte{7, 0, 0, 0}}})
	raw, err := json.Marshal(sent)
	if err != nil {
		t.Fatal(err)
	}
	block, err := headersBlock(raw)
	if err != nil {
		t.Fatal(err)
	}
	m, err := client.ReceivedMessage{Headers: block}.HeaderMap()
	if err != nil || string(m["source"].Value) != "cli" || m["n"].Kind != wire.KindUint32 {
		t.Fatalf("headers %v, %v", m, err)
	}
	if b, err := headersBlock([]byte(`[]`)); err != nil || len(b) != 0 {
		t.Fatalf("no headers: %v %v", b, err)
	}
	if _, err := headersBlock([]byte(`[{"key":{"kind":"string","value":"YQ=="},"value":{"kind":"nope","value":"YQ=="}}]`)); err == nil {
		t.Fatal("an unknown kind was accepted")
	}
}

func TestHTTPMessageID(t *testing.T) {
	id := messageID(json.Number("258"))
	if id[0] != 2 || id[1] != 1 || uuidText(id) != "02010000-0000-0000-0000-000000000000" {
		t.Fatalf("id 258: %x", id)
	}
	if messageID(json.Number("-1")) != ([16]byte{}) || messageID(json.Number("340282366920938463463374607431768211456")) != ([16]byte{}) {
		t.Fatal("an id out of u128 range was kept")
	}
}

// FuzzHTTPHeadersBlock: a polled user_headers value never panics.
func FuzzHTTPHeadersBlock(f *testing.F) {
	for _, s := range []string{`[]`, `null`, `"AAEC"`, `[{"key":{"kind":"string","value":"YQ=="},"value":{"kind":"uint8","value":"AQ=="}}]`,
		`[{"key":{"kind":"string","value":""},"value":{"kind":"string","value":""}}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if b, err := headersBlock(raw); err == nil {
			_, _ = client.ReceivedMessage{Headers: b}.HeaderMap()
		}
	})
}
