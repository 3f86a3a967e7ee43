package httpapi

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/iggygo/iggy/adapters/config"
)

// Bounds of the JWKS fetches (http.md 3.3).
const (
	jwksRefetchInterval = 10 * time.Second // at most one fetch per issuer per interval
	jwksFetchTimeout    = 5 * time.Second
	jwksBodyBytesMax    = 1 << 20
	jwksKeysMax         = 64
)

// externalMethods are the asymmetric algorithms a trusted issuer may sign with.
var externalMethods = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"}

// trustedIssuer is one [[http.jwt.trusted_issuers]] entry and its key cache.
type trustedIssuer struct {
	issuer   string // normalized
	audience string
	username string
	jwksURL  string

	mu        sync.Mutex // one fetch at a time; concurrent misses share it
	keys      map[string]any
	lastFetch time.Time
}

// trustedIssuers verifies tokens of external issuers (AUTH-9).
type trustedIssuers struct {
	list   []*trustedIssuer
	skew   time.Duration
	now    func() time.Time
	client *http.Client
}

func newTrustedIssuers(c config.JWT, now func() time.Time) *trustedIssuers {
	t := &trustedIssuers{skew: c.ClockSkew, now: now, client: &http.Client{Timeout: jwksFetchTimeout}}
	for _, e := range c.TrustedIssuers {
		t.list = append(t.list, &trustedIssuer{issuer: normalizeIssuer(e.Issuer), audience: e.Audience,
			username: e.Username, jwksURL: e.JWKSURL})
	}
	return t
}

// normalizeIssuer lowers the scheme and host of a URL issuer (they compare
// case-insensitively) and keeps the rest as given.
func normalizeIssuer(iss string) string {
	u, err := url.Parse(iss)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return iss
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	return u.String()
}

// externalIdentity is a verified external token.
type externalIdentity struct {
	username string
	expires  time.Time
}

// verify checks token against the issuer its iss names: the JWKS key its
// kid names, the alg of its header (asymmetric only), aud equal to the
// entry's audience, exp required, nbf enforced, with the leeway.
func (t *trustedIssuers) verify(token string) (externalIdentity, error) {
	if len(t.list) == 0 {
		return externalIdentity{}, errors.New("no trusted issuers")
	}
	unverified := jwt.RegisteredClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, &unverified); err != nil {
		return externalIdentity{}, fmt.Errorf("external token: %w", err)
	}
	entry := t.find(unverified.Issuer)
	if entry == nil {
		return externalIdentity{}, fmt.Errorf("external token: issuer %q is not trusted", unverified.Issuer)
	}
	claims := jwt.RegisteredClaims{}
	keyfunc := func(tok *jwt.Token) (any, error) {
		kid, _ := tok.Header["kid"].(string)
		return entry.key(kid, t.client, t.now())
	}
	_, err := jwt.ParseWithClaims(token, &claims, keyfunc, jwt.WithValidMethods(externalMethods),
		jwt.WithAudience(entry.audience), jwt.WithLeeway(t.skew), jwt.WithExpirationRequired(), jwt.WithTimeFunc(t.now))
	if err != nil {
		return externalIdentity{}, fmt.Errorf("external token: %w", err)
	}
	if normalizeIssuer(claims.Issuer) != entry.issuer {
		return externalIdentity{}, errors.New("external token: issuer changed")
	}
	return externalIdentity{username: entry.username, expires: claims.ExpiresAt.Add(t.skew)}, nil
}

func (t *trustedIssuers) find(iss string) *trustedIssuer {
	n := normalizeIssuer(iss)
	for _, e := range t.list {
		if e.issuer == n {
			return e
		}
	}
	return nil
}

// key returns the public key named kid, fetching the JWKS when kid is
// unknown and the last fetch is older than jwksRefetchInterval.
func (e *trustedIssuer) key(kid string, client *http.Client, now time.Time) (any, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if k, ok := e.keys[kid]; ok {
		return k, nil
	}
	if !e.lastFetch.IsZero() && now.Sub(e.lastFetch) < jwksRefetchInterval {
		return nil, fmt.Errorf("unknown key id %q", kid)
	}
	e.lastFetch = now
	keys, err := fetchJWKS(client, e.jwksURL)
	if err != nil {
		return nil, err
	}
	e.keys = keys
	if k, ok := keys[kid]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("unknown key id %q", kid)
}

func fetchJWKS(client *http.Client, u string) (map[string]any, error) {
	resp, err := client.Get(u)
	if err != nil {
		return nil, fmt.Errorf("fetch jwks %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch jwks %s: status %d", u, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, jwksBodyBytesMax+1))
	if err != nil {
		return nil, fmt.Errorf("read jwks %s: %w", u, err)
	}
	if len(body) > jwksBodyBytesMax {
		return nil, fmt.Errorf("jwks %s: larger than %d bytes", u, jwksBodyBytesMax)
	}
	return parseJWKS(body)
}

// jwk is the subset of RFC 7517 members needed for RSA and EC public keys.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// parseJWKS reads a key set; keys it cannot use (other types, encryption
// keys, bad numbers) are skipped, at most jwksKeysMax are kept.
func parseJWKS(body []byte) (map[string]any, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("jwks: %w", err)
	}
	out := make(map[string]any)
	for _, k := range set.Keys {
		if len(out) == jwksKeysMax {
			break
		}
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if pub, err := k.publicKey(); err == nil {
			out[k.Kid] = pub
		}
	}
	return out, nil
}

func (k jwk) publicKey() (any, error) {
	switch k.Kty {
	case "RSA":
		n, err1 := b64uint(k.N)
		e, err2 := b64uint(k.E)
		if err1 != nil || err2 != nil || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 || n.BitLen() < 2048 {
			return nil, errors.New("jwk: bad RSA key")
		}
		return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
	case "EC":
		curve := map[string]elliptic.Curve{"P-256": elliptic.P256(), "P-384": elliptic.P384(), "P-521": elliptic.P521()}[k.Crv]
		if curve == nil {
			return nil, fmt.Errorf("jwk: curve %q", k.Crv)
		}
		x, err1 := base64.RawURLEncoding.DecodeString(strings.TrimRight(k.X, "="))
		y, err2 := base64.RawURLEncoding.DecodeString(strings.TrimRight(k.Y, "="))
		size := (curve.Params().BitSize + 7) / 8
		if err1 != nil || err2 != nil || len(x) != size || len(y) != size {
			return nil, errors.New("jwk: bad EC point")
		}
		point := append(append([]byte{4}, x...), y...)
		return ecdsa.ParseUncompressedPublicKey(curve, point)
	}
	return nil, fmt.Errorf("jwk: key type %q", k.Kty)
}

func b64uint(s string) (*big.Int, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil || len(b) == 0 {
		return nil, errors.New("jwk: bad number")
	}
	return new(big.Int).SetBytes(b), nil
}
