package crypto

import (
	"encoding/base64"
	"testing"
)

func TestHashTokenKnownVectors(t *testing.T) {
	vectors := map[string]string{
		"":    "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
		"abc": "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85",
	}
	for in, want := range vectors {
		if got := HashToken(in); got != want {
			t.Errorf("HashToken(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestNewTokenShape(t *testing.T) {
	seen := map[string]bool{}
	for range 32 {
		tok := NewToken()
		if len(tok) != TokenLen || TokenLen != 68 {
			t.Fatalf("token %q has length %d, want 68", tok, len(tok))
		}
		raw, err := base64.StdEncoding.DecodeString(tok)
		if err != nil || len(raw) != TokenRandomBytes {
			t.Fatalf("token %q is not padded base64 of 50 bytes: %v", tok, err)
		}
		if seen[tok] {
			t.Fatal("token repeated")
		}
		seen[tok] = true
		if h := HashToken(tok); len(h) != TokenHashLen {
			t.Fatalf("token hash %q has length %d", h, len(h))
		}
	}
}
