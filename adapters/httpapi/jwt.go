package httpapi

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/iggygo/iggy/adapters/config"
)

// Token kinds of the kind claim. A token without one (any earlier format)
// is refused (AUTH-8).
const (
	tokenAccess  = "access"
	tokenRefresh = "refresh"
)

// Lifetimes of self-issued tokens.
const (
	// neverExpireLifetime is the lifetime of a never-expiring token (http.md 3.2).
	neverExpireLifetime = 1_000_000_000 * time.Second
	// refreshLifetimeMin is the least a refresh token lives; it never lives
	// shorter than the access token it comes with.
	refreshLifetimeMin = 24 * time.Hour
	// Random secrets, when none is configured: 32 to 63 alphanumeric characters.
	randomSecretLenMin = 32
	randomSecretLenMax = 63
)

// tokenClaims are the claims of a self-issued token: http.md 3.2 plus the
// session (sid) all tokens of one login share, the token kind, and the
// username, so a token can never act as another user who got a reused id.
type tokenClaims struct {
	ID        string `json:"jti"`
	Subject   string `json:"sub"`
	Audience  string `json:"aud"`
	Issuer    string `json:"iss"`
	IssuedAt  int64  `json:"iat"`
	NotBefore int64  `json:"nbf"`
	ExpiresAt int64  `json:"exp"`
	Session   string `json:"sid"`
	Kind      string `json:"kind"`
	Username  string `json:"usr"`
}

func (c *tokenClaims) GetExpirationTime() (*jwt.NumericDate, error) {
	return unixDate(c.ExpiresAt), nil
}
func (c *tokenClaims) GetIssuedAt() (*jwt.NumericDate, error)  { return unixDate(c.IssuedAt), nil }
func (c *tokenClaims) GetNotBefore() (*jwt.NumericDate, error) { return unixDate(c.NotBefore), nil }
func (c *tokenClaims) GetIssuer() (string, error)              { return c.Issuer, nil }
func (c *tokenClaims) GetSubject() (string, error)             { return c.Subject, nil }
func (c *tokenClaims) GetAudience() (jwt.ClaimStrings, error) {
	return jwt.ClaimStrings{c.Audience}, nil
}

func unixDate(s int64) *jwt.NumericDate {
	if s == 0 {
		return nil
	}
	return jwt.NewNumericDate(time.Unix(s, 0))
}

// userID is the subject as a user id.
func (c *tokenClaims) userID() (uint32, bool) {
	v, err := strconv.ParseUint(c.Subject, 10, 32)
	return uint32(v), err == nil
}

// tokenIssuer mints and verifies the server's own HMAC tokens.
type tokenIssuer struct {
	method         jwt.SigningMethod
	encodingKey    []byte
	decodingKey    []byte
	issuer         string
	audience       string
	validIssuers   []string
	validAudiences []string
	lifetime       time.Duration
	notBefore      time.Duration
	skew           time.Duration
	now            func() time.Time
}

func newTokenIssuer(c config.JWT, now func() time.Time) (*tokenIssuer, error) {
	method := jwt.GetSigningMethod(c.Algorithm)
	if _, ok := method.(*jwt.SigningMethodHMAC); !ok {
		return nil, fmt.Errorf("http.jwt.algorithm %q: only HS256, HS384 and HS512 are supported", c.Algorithm)
	}
	enc, dec, err := jwtKeys(c)
	if err != nil {
		return nil, err
	}
	t := &tokenIssuer{method: method, encodingKey: enc, decodingKey: dec, issuer: c.Issuer, audience: c.Audience,
		validIssuers: c.ValidIssuers, validAudiences: c.ValidAudiences, notBefore: c.NotBefore, skew: c.ClockSkew, now: now}
	switch c.AccessTokenExpiry.Kind {
	case config.ExpiryNever:
		t.lifetime = neverExpireLifetime
	default:
		t.lifetime = c.AccessTokenExpiry.Duration
	}
	if t.lifetime <= 0 {
		return nil, errors.New("http.jwt.access_token_expiry must be positive")
	}
	return t, nil
}

// jwtKeys resolves the secrets: each falls back to the other; with neither
// configured a random secret is drawn per boot, so every token dies on
// restart (http.md 3.2).
func jwtKeys(c config.JWT) ([]byte, []byte, error) {
	enc, dec := c.EncodingSecret, c.DecodingSecret
	if enc == "" {
		enc = dec
	}
	if dec == "" {
		dec = enc
	}
	if enc == "" {
		s, err := randomSecret()
		return s, s, err
	}
	if !c.UseBase64Secret {
		return []byte(enc), []byte(dec), nil
	}
	e, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, nil, fmt.Errorf("http.jwt.encoding_secret: %w", err)
	}
	d, err := base64.StdEncoding.DecodeString(dec)
	if err != nil {
		return nil, nil, fmt.Errorf("http.jwt.decoding_secret: %w", err)
	}
	return e, d, nil
}

const secretAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func randomSecret() ([]byte, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(randomSecretLenMax-randomSecretLenMin+1))
	if err != nil {
		return nil, fmt.Errorf("draw a jwt secret: %w", err)
	}
	out := make([]byte, randomSecretLenMin+int(n.Int64()))
	for i := range out {
		k, err := rand.Int(rand.Reader, big.NewInt(int64(len(secretAlphabet))))
		if err != nil {
			return nil, fmt.Errorf("draw a jwt secret: %w", err)
		}
		out[i] = secretAlphabet[k.Int64()]
	}
	return out, nil
}

// mintedToken is a token and its expiry.
type mintedToken struct {
	Token  string `json:"token"`
	Expiry int64  `json:"expiry"` // the exp claim, Unix seconds
}

// tokenUser is who a token names: the user's id and username.
type tokenUser struct {
	id   uint32
	name string
}

// mint signs a token of kind for user within session sid.
func (t *tokenIssuer) mint(kind, sid string, user tokenUser) (mintedToken, error) {
	now := t.now()
	lifetime := t.lifetime
	if kind == tokenRefresh {
		lifetime = max(lifetime, refreshLifetimeMin)
	}
	jti, err := uuidV7(now)
	if err != nil {
		return mintedToken{}, err
	}
	c := &tokenClaims{ID: jti, Subject: strconv.FormatUint(uint64(user.id), 10), Audience: t.audience,
		Issuer: t.issuer, IssuedAt: now.Unix(), NotBefore: now.Add(t.notBefore).Unix(),
		ExpiresAt: now.Add(lifetime).Unix(), Session: sid, Kind: kind, Username: user.name}
	s, err := jwt.NewWithClaims(t.method, c).SignedString(t.encodingKey)
	if err != nil {
		return mintedToken{}, fmt.Errorf("sign a token: %w", err)
	}
	return mintedToken{Token: s, Expiry: c.ExpiresAt}, nil
}

// errNotOurs: the token is not a valid self-issued token.
var errNotOurs = errors.New("not a valid self-issued token")

// verify checks a self-issued token: signature with the configured
// algorithm, exp and nbf with the clock-skew leeway, iss and aud against the
// valid lists, and the claims this format requires.
func (t *tokenIssuer) verify(token string) (*tokenClaims, error) {
	c := &tokenClaims{}
	opts := []jwt.ParserOption{jwt.WithValidMethods([]string{t.method.Alg()}), jwt.WithLeeway(t.skew),
		jwt.WithExpirationRequired(), jwt.WithTimeFunc(t.now)}
	if len(t.validAudiences) > 0 {
		opts = append(opts, jwt.WithAudience(t.validAudiences...))
	}
	_, err := jwt.ParseWithClaims(token, c, func(*jwt.Token) (any, error) { return t.decodingKey, nil }, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNotOurs, err)
	}
	if len(t.validIssuers) > 0 && !slices.Contains(t.validIssuers, c.Issuer) {
		return nil, fmt.Errorf("%w: issuer %q", errNotOurs, c.Issuer)
	}
	if _, ok := c.userID(); !ok || !validClaimID(c.Session) || !validClaimID(c.ID) || c.Username == "" ||
		(c.Kind != tokenAccess && c.Kind != tokenRefresh) {
		return nil, fmt.Errorf("%w: missing or malformed claims", errNotOurs)
	}
	return c, nil
}

// claimIDBytesMax bounds the jti and sid claims: they become revocation keys.
const claimIDBytesMax = 64

// validClaimID: a jti or sid we minted is 32 to 36 printable characters.
func validClaimID(s string) bool { return len(s) <= claimIDBytesMax && validRevocationKey(s) }

// expiry is the instant after which no token with exp can pass verify.
func (t *tokenIssuer) expiry(exp int64) time.Time { return time.Unix(exp, 0).Add(t.skew) }

// chainExpiry bounds every token minted up to now: none passes verify after it.
func (t *tokenIssuer) chainExpiry(now time.Time) time.Time {
	return now.Add(max(t.lifetime, refreshLifetimeMin)).Add(t.skew + time.Second)
}

// uuidV7 is a UUIDv7 string: 48 bits of Unix milliseconds, then random bits.
func uuidV7(now time.Time) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[6:]); err != nil {
		return "", fmt.Errorf("draw a token id: %w", err)
	}
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(now.UnixMilli()))
	copy(b[0:6], ms[2:8])
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32], nil
}

// randomKey is a fresh opaque identifier (session ids).
func randomKey() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("draw a session id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
