package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/iggygo/iggy/adapters/config"
)

// clock is a test clock the token checks read.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func testJWT() config.JWT {
	return config.JWT{Algorithm: "HS256", Issuer: "iggy.apache.org", Audience: "iggy.apache.org",
		ValidIssuers: []string{"iggy.apache.org"}, ValidAudiences: []string{"iggy.apache.org"},
		AccessTokenExpiry: config.Expiry{Kind: config.ExpiryDuration, Duration: time.Minute},
		ClockSkew:         5 * time.Second, EncodingSecret: "0123456789abcdef0123456789abcdef"}
}

func TestTokensExpireAfterTheirLifetimePlusSkew(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	iss, err := newTokenIssuer(testJWT(), clk.now)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := iss.mint(tokenAccess, "sid1", tokenUser{id: 7, name: "u7"})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Expiry != clk.t.Add(time.Minute).Unix() {
		t.Fatalf("expiry %d", tok.Expiry)
	}
	c, err := iss.verify(tok.Token)
	if err != nil || c.Session != "sid1" || c.Kind != tokenAccess || c.Subject != "7" {
		t.Fatalf("verify: %+v %v", c, err)
	}
	clk.t = clk.t.Add(time.Minute + 4*time.Second) // inside the leeway
	if _, err := iss.verify(tok.Token); err != nil {
		t.Fatalf("inside the skew: %v", err)
	}
	clk.t = clk.t.Add(2 * time.Second)
	if _, err := iss.verify(tok.Token); err == nil {
		t.Fatal("an expired token passed")
	}
	if !iss.expiry(tok.Expiry).Before(clk.t) {
		t.Fatal("expiry() must bound the last instant a token passes")
	}
	refresh, _ := iss.mint(tokenRefresh, "sid1", tokenUser{id: 7, name: "u7"})
	if refresh.Expiry-clk.t.Unix() < int64(refreshLifetimeMin/time.Second)-10 {
		t.Fatalf("refresh token lives %d s", refresh.Expiry-clk.t.Unix())
	}
}

// Tokens of any earlier format (no kind or session claim), other secrets,
// issuers, audiences or algorithms are refused.
// covers AUTH-8
func TestTokensOfOtherFormatsAreRefused(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	cfg := testJWT()
	iss, err := newTokenIssuer(cfg, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	sign := func(method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(method, claims).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := func() jwt.MapClaims {
		return jwt.MapClaims{"jti": "x", "sub": "0", "aud": "iggy.apache.org", "iss": "iggy.apache.org",
			"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix(), "sid": "s", "kind": "access", "usr": "root"}
	}
	secret := []byte(cfg.EncodingSecret)
	if _, err := iss.verify(sign(jwt.SigningMethodHS256, secret, base())); err != nil {
		t.Fatalf("control token refused: %v", err)
	}
	legacy, noName := base(), base()
	delete(legacy, "sid")
	delete(legacy, "kind")
	delete(noName, "usr")
	wrongIss, wrongAud, noExp, badSub := base(), base(), base(), base()
	wrongIss["iss"], wrongAud["aud"], badSub["sub"] = "evil", "evil", "root"
	delete(noExp, "exp")
	for name, tok := range map[string]string{
		"earlier format": sign(jwt.SigningMethodHS256, secret, legacy),
		"no username":    sign(jwt.SigningMethodHS256, secret, noName),
		"other secret":   sign(jwt.SigningMethodHS256, []byte("another secret of enough length!"), base()),
		"other alg":      sign(jwt.SigningMethodHS512, secret, base()),
		"issuer":         sign(jwt.SigningMethodHS256, secret, wrongIss),
		"audience":       sign(jwt.SigningMethodHS256, secret, wrongAud),
		"no exp":         sign(jwt.SigningMethodHS256, secret, noExp),
		"subject":        sign(jwt.SigningMethodHS256, secret, badSub),
		"none alg":       sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, base()),
		"garbage":        "a.b.c",
	} {
		if _, err := iss.verify(tok); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestRandomSecretWhenNoneConfigured(t *testing.T) {
	cfg := testJWT()
	cfg.EncodingSecret = ""
	a, _, err := jwtKeys(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := jwtKeys(cfg)
	if len(a) < randomSecretLenMin || len(a) > randomSecretLenMax || string(a) == string(b) {
		t.Fatalf("random secrets %q %q", a, b)
	}
	if strings.Trim(string(a), secretAlphabet) != "" {
		t.Fatalf("secret %q is not alphanumeric", a)
	}
	cfg.UseBase64Secret, cfg.EncodingSecret = true, "c2VjcmV0"
	enc, dec, err := jwtKeys(cfg)
	if err != nil || string(enc) != "secret" || string(dec) != "secret" {
		t.Fatalf("base64 secret: %q %q %v", enc, dec, err)
	}
}

func TestNeverExpiringTokens(t *testing.T) {
	cfg := testJWT()
	cfg.AccessTokenExpiry = config.Expiry{Kind: config.ExpiryNever}
	now := time.Unix(1_800_000_000, 0)
	iss, _ := newTokenIssuer(cfg, func() time.Time { return now })
	tok, _ := iss.mint(tokenAccess, "s", tokenUser{id: 1, name: "u1"})
	if tok.Expiry != now.Unix()+int64(neverExpireLifetime/time.Second) {
		t.Fatalf("never-expire exp %d", tok.Expiry)
	}
}
