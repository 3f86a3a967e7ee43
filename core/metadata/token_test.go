package metadata

import (
	"math"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// covers AUTH-11
func TestPersonalAccessTokens(t *testing.T) {
	h := newHarness(t)
	u := h.user("bob", nil)
	r := h.ok(u, &CreatePersonalAccessToken{Name: "ci", TokenHash: "h1", LifetimeMicros: 1_000_000})
	if r.Token.UserID != u || r.Token.ExpiryAtMicros != h.now+1_000_000 {
		t.Fatalf("token %+v", r.Token)
	}
	h.ok(u, &CreatePersonalAccessToken{Name: "a-forever", TokenHash: "h2"})
	h.ok(u, &CreatePersonalAccessToken{Name: "max", TokenHash: "h3", LifetimeMicros: math.MaxUint64})
	if n := h.s.TokenCount(u); n != 3 {
		t.Fatalf("count %d", n)
	}
	var names []string
	for _, tok := range h.s.Tokens(u) {
		names = append(names, tok.Name)
		if tok.Name != "ci" && tok.ExpiryAtMicros != 0 {
			t.Fatalf("%s expires at %d, want never", tok.Name, tok.ExpiryAtMicros)
		}
	}
	if len(names) != 3 || names[0] != "a-forever" || names[1] != "ci" || names[2] != "max" {
		t.Fatalf("names %v", names)
	}
	if tok, ok := h.s.TokenByHash("h1"); !ok || tok.Name != "ci" || tok.UserID != u {
		t.Fatal("lookup by hash")
	}
	// Names are unique per user, not across users.
	h.code(u, &CreatePersonalAccessToken{Name: "ci", TokenHash: "h4"}, wire.PersonalAccessTokenAlreadyExists)
	h.code(RootUserID, &CreatePersonalAccessToken{Name: "x", TokenHash: "h1"}, wire.PersonalAccessTokenAlreadyExists)
	h.ok(RootUserID, &CreatePersonalAccessToken{Name: "ci", TokenHash: "h5"})
	h.code(u, &CreatePersonalAccessToken{Name: "late", TokenHash: "h6", LifetimeMicros: math.MaxUint64 - 1}, wire.InvalidPersonalAccessTokenExpiry)
	// Deletion is scoped to the caller's own tokens.
	h.ok(u, &DeletePersonalAccessToken{Name: "ci"})
	if _, ok := h.s.TokenByHash("h1"); ok {
		t.Fatal("deleted token still found")
	}
	if _, ok := h.s.TokenByHash("h5"); !ok {
		t.Fatal("root's token of the same name was deleted")
	}
	h.code(u, &DeletePersonalAccessToken{Name: "ci"}, wire.ResourceNotFound)
	h.code(77, &CreatePersonalAccessToken{Name: "x", TokenHash: "h7"}, wire.Unauthorized)
	if h.s.TokenCount(77) != 0 || h.s.Tokens(77) != nil {
		t.Fatal("tokens of a missing user")
	}
}

// covers AUTH-14
func TestDeleteExpiredTokens(t *testing.T) {
	h := newHarness(t)
	u := h.user("bob", nil)
	h.ok(u, &CreatePersonalAccessToken{Name: "short", TokenHash: "h1", LifetimeMicros: 1500})
	h.ok(u, &CreatePersonalAccessToken{Name: "long", TokenHash: "h2", LifetimeMicros: 1 << 40})
	h.ok(u, &CreatePersonalAccessToken{Name: "never", TokenHash: "h3"})
	tok, _ := h.s.TokenByHash("h1")
	if tok.Expired(tok.ExpiryAtMicros-1) || !tok.Expired(tok.ExpiryAtMicros) {
		t.Fatal("Expired")
	}
	h.code(u, &DeleteExpiredTokens{}, wire.Unauthorized)
	h.ok(RootUserID, &DeleteExpiredTokens{})
	if n := h.s.TokenCount(u); n != 2 {
		t.Fatalf("count %d, want 2", n)
	}
	if _, ok := h.s.TokenByHash("h1"); ok {
		t.Fatal("expired token kept")
	}
}
