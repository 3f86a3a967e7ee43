package httpapi

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/iggygo/iggy/adapters/config"
)

// jwksServer serves a key set and counts the fetches.
type jwksServer struct {
	*httptest.Server
	fetches atomic.Int32
	rsaKey  *rsa.PrivateKey
	ecKey   *ecdsa.PrivateKey
}

func newJWKSServer(t *testing.T) *jwksServer {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	j := &jwksServer{rsaKey: rk, ecKey: ek}
	b64 := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	pt, _ := ek.PublicKey.Bytes() // 0x04 || x || y
	set := map[string]any{"keys": []map[string]string{
		{"kty": "RSA", "kid": "rsa1", "use": "sig", "n": b64(rk.N.Bytes()), "e": b64(big.NewInt(int64(rk.E)).Bytes())},
		{"kty": "EC", "kid": "ec1", "crv": "P-256", "x": b64(pt[1:33]), "y": b64(pt[33:])},
		{"kty": "oct", "kid": "sym", "k": "c2VjcmV0"},
	}}
	body, _ := json.Marshal(set)
	j.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		j.fetches.Add(1)
		_, _ = w.Write(body)
	}))
	t.Cleanup(j.Close)
	return j
}

func (j *jwksServer) sign(t *testing.T, method jwt.SigningMethod, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	tok.Header["kid"] = kid
	var key any = j.rsaKey
	if _, ok := method.(*jwt.SigningMethodECDSA); ok {
		key = j.ecKey
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A trusted issuer's token, checked against its JWKS, acts as the
// configured username; other audiences, issuers and algorithms are refused.
// covers AUTH-9
func TestTrustedIssuerTokens(t *testing.T) {
	j := newJWKSServer(t)
	clk := &clock{t: time.Now()}
	ti := newTrustedIssuers(config.JWT{ClockSkew: time.Second, TrustedIssuers: []config.TrustedIssuer{
		{Issuer: "https://Auth.Example.com/realm", Audience: "iggy", JWKSURL: j.URL, Username: "svc"}}}, clk.now)
	claims := func() jwt.MapClaims {
		return jwt.MapClaims{"iss": "https://auth.example.COM/realm", "aud": "iggy", "sub": "ignored",
			"exp": clk.t.Add(time.Hour).Unix(), "nbf": clk.t.Add(-time.Minute).Unix()}
	}
	for _, tok := range []string{j.sign(t, jwt.SigningMethodRS256, "rsa1", claims()), j.sign(t, jwt.SigningMethodES256, "ec1", claims())} {
		id, err := ti.verify(tok)
		if err != nil || id.username != "svc" {
			t.Fatalf("verify: %+v %v", id, err)
		}
	}
	if j.fetches.Load() != 1 {
		t.Fatalf("%d JWKS fetches, want 1 (keys are cached)", j.fetches.Load())
	}
	wrongAud, wrongIss, future := claims(), claims(), claims()
	wrongAud["aud"], wrongIss["iss"], future["nbf"] = "other", "https://evil.example.com/realm", clk.t.Add(time.Hour).Unix()
	for name, tok := range map[string]string{
		"audience":   j.sign(t, jwt.SigningMethodRS256, "rsa1", wrongAud),
		"issuer":     j.sign(t, jwt.SigningMethodRS256, "rsa1", wrongIss),
		"not before": j.sign(t, jwt.SigningMethodRS256, "rsa1", future),
		"wrong kid":  j.sign(t, jwt.SigningMethodES256, "rsa1", claims()),
	} {
		if _, err := ti.verify(tok); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	hmac := jwt.NewWithClaims(jwt.SigningMethodHS256, claims())
	hmac.Header["kid"] = "sym"
	hs, _ := hmac.SignedString([]byte("secret"))
	if _, err := ti.verify(hs); err == nil {
		t.Error("an HMAC token passed as a trusted issuer's")
	}
	// An unknown kid refetches the set, at most once per interval.
	before := j.fetches.Load()
	_, _ = ti.verify(j.sign(t, jwt.SigningMethodRS256, "unknown", claims()))
	if got := j.fetches.Load() - before; got != 0 {
		t.Fatalf("%d fetches within the interval of the last one, want 0", got)
	}
	clk.t = clk.t.Add(jwksRefetchInterval + time.Second)
	for range 3 {
		_, _ = ti.verify(j.sign(t, jwt.SigningMethodRS256, "unknown", claims()))
	}
	if got := j.fetches.Load() - before; got != 1 {
		t.Fatalf("%d fetches after the interval, want 1", got)
	}
}

func TestParseJWKSSkipsUnusableKeys(t *testing.T) {
	keys, err := parseJWKS([]byte(`{"keys":[{"kty":"RSA","kid":"small","n":"AQAB","e":"AQAB"},
		{"kty":"EC","kid":"offcurve","crv":"P-256","x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","y":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{"kty":"RSA","kid":"enc","use":"enc","n":"AQAB","e":"AQAB"}]}`))
	if err != nil || len(keys) != 0 {
		t.Fatalf("keys %v err %v", keys, err)
	}
	if _, err := parseJWKS([]byte(`not json`)); err == nil {
		t.Fatal("garbage accepted")
	}
}
