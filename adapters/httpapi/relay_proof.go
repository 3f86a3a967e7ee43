package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Headers of a partition relay (RELAY-4). The proof is an HMAC-SHA256 tag
// over the method, the path and query, the route and the expiry; the
// target checks it before it looks at the bearer, and still authenticates
// and authorizes the bearer afterwards (RELAY-11).
const (
	// forwardedHeader marks a request a node sent on (http.md 1: at most one hop).
	forwardedHeader = "iggy-forwarded"
	// routeHeader is "<target replica id>/<partition id>": the node the relay is
	// for and the partition it serves there.
	routeHeader = "iggy-relay-route"
	// expiryHeader is the proof's expiry in Unix milliseconds.
	expiryHeader = "iggy-relay-expiry"
	// proofHeader is the tag, 64 lowercase hexadecimal digits (RELAY-9).
	proofHeader = "iggy-relay-proof"
)

// Bounds of a proof.
const (
	// proofLifetime is how long a proof is valid (RELAY-7).
	proofLifetime = 10 * time.Second
	// proofClockSkewMax is how far ahead of the target's clock an origin's
	// clock may run: an expiry later than now + lifetime + skew was not
	// minted by a node of the set.
	proofClockSkewMax = 5 * time.Second
	// proofTagHexDigits is the hexadecimal length of an HMAC-SHA256 tag.
	proofTagHexDigits = 2 * sha256.Size
	// decimalDigitsMax bounds a numeric field: 20 digits hold any uint64.
	decimalDigitsMax = 20
	// relayKeyContext separates the relay key from any other use of the
	// material it is derived from (the bearer key, the replica links' MACs).
	relayKeyContext = "iggy-go http partition relay key v1"
	// proofContext starts every proven message, so a tag over a relay can
	// never be taken for a tag over anything else.
	proofContext = "iggy-go http relay proof v1"
)

// relayKey derives the key of partition relays from the first configured
// http.jwt.encoding_secret or http.jwt.decoding_secret, otherwise from
// cluster.auth.shared_secret (RELAY-5); nil when there is none (RELAY-3).
// Nodes whose material differs hold different keys and refuse each
// other's relays (RELAY-6).
func relayKey(encodingSecret, decodingSecret, sharedSecret string) []byte {
	material := encodingSecret
	if material == "" {
		material = decodingSecret
	}
	if material == "" {
		material = sharedSecret
	}
	if material == "" {
		return nil
	}
	mac := hmac.New(sha256.New, []byte(material))
	mac.Write([]byte(relayKeyContext))
	return mac.Sum(nil)
}

// relayRoute is what a relay is for: the node that serves it and the partition.
type relayRoute struct {
	target    uint8
	partition uint32
}

func (r relayRoute) String() string {
	return strconv.FormatUint(uint64(r.target), 10) + "/" + strconv.FormatUint(uint64(r.partition), 10)
}

// relayProof is a decoded set of relay headers.
type relayProof struct {
	route    relayRoute
	routeRaw string
	expiryMs uint64
	tag      []byte
}

// Why a proof is refused; the target answers each with 403 (RELAY-10).
var (
	errProofMissing = errors.New("relay proof missing")
	errProofForm    = errors.New("relay proof not in canonical form")
	errProofInvalid = errors.New("relay proof invalid")
	errProofExpired = errors.New("relay proof expired")
)

// isRelay reports whether r carries any relay header: such a request must
// prove itself.
func isRelay(h http.Header) bool {
	for _, name := range []string{forwardedHeader, routeHeader, expiryHeader, proofHeader} {
		if len(h.Values(name)) > 0 {
			return true
		}
	}
	return false
}

// decodeRelayHeaders reads the relay headers of a request that carries at
// least one. Each must appear exactly once; numbers are unsigned decimals
// without leading zeros (RELAY-8) and the tag lowercase hexadecimal
// (RELAY-9). Any other form is refused, never normalized.
func decodeRelayHeaders(h http.Header) (relayProof, error) {
	var p relayProof
	forwarded, okF := single(h, forwardedHeader)
	route, okR := single(h, routeHeader)
	expiry, okE := single(h, expiryHeader)
	tag, okT := single(h, proofHeader)
	if !okF || !okR || !okE || !okT {
		return p, errProofMissing
	}
	if forwarded != "1" {
		return p, errProofForm
	}
	target, partition, found := strings.Cut(route, "/")
	t, okT2 := canonicalUint(target, 0xFF)
	pa, okP := canonicalUint(partition, 0xFFFF_FFFF)
	e, okExp := canonicalUint(expiry, ^uint64(0))
	if !found || !okT2 || !okP || !okExp || !lowerHex(tag, proofTagHexDigits) {
		return p, errProofForm
	}
	p.route = relayRoute{target: uint8(t), partition: uint32(pa)}
	p.routeRaw, p.expiryMs = route, e
	p.tag, _ = hex.DecodeString(tag)
	return p, nil
}

// single is the one value of header name; false when absent or repeated.
func single(h http.Header, name string) (string, bool) {
	v := h.Values(name)
	if len(v) != 1 {
		return "", false
	}
	return v[0], true
}

// canonicalUint parses an unsigned decimal in its one canonical spelling:
// digits only, no sign, no leading zero (but "0" itself), at most max.
func canonicalUint(s string, max uint64) (uint64, bool) {
	if s == "" || len(s) > decimalDigitsMax || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > max {
		return 0, false
	}
	return v, true
}

// lowerHex reports whether s is exactly n lowercase hexadecimal digits.
func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// proofTag is the HMAC-SHA256 tag over a relay's method, path and query,
// route and expiry, each field on its own line (none may hold a newline:
// Go's HTTP stack refuses those in a method or request target).
func proofTag(key []byte, method, requestURI, route string, expiryMs uint64) []byte {
	mac := hmac.New(sha256.New, key)
	for _, f := range []string{proofContext, method, requestURI, route, strconv.FormatUint(expiryMs, 10)} {
		mac.Write([]byte(f))
		mac.Write([]byte{'\n'})
	}
	return mac.Sum(nil)
}

// signRelay sets the relay headers of req, a relay to route minted at now.
func signRelay(req *http.Request, key []byte, route relayRoute, now time.Time) {
	expiry := uint64(now.Add(proofLifetime).UnixMilli())
	rs := route.String()
	req.Header.Set(forwardedHeader, "1")
	req.Header.Set(routeHeader, rs)
	req.Header.Set(expiryHeader, strconv.FormatUint(expiry, 10))
	req.Header.Set(proofHeader, hex.EncodeToString(proofTag(key, req.Method, req.URL.RequestURI(), rs, expiry)))
}

// verifyRelay checks the relay headers of r, received by replica self at
// now: the form, the tag under key, the target and the expiry (RELAY-7,
// RELAY-10). A node without a key refuses every relay.
func checkRelay(r *http.Request, key []byte, self uint8, now time.Time) (relayRoute, error) {
	p, err := decodeRelayHeaders(r.Header)
	if err != nil {
		return relayRoute{}, err
	}
	if key == nil {
		return relayRoute{}, errProofInvalid
	}
	want := proofTag(key, r.Method, r.RequestURI, p.routeRaw, p.expiryMs)
	if !hmac.Equal(want, p.tag) || p.route.target != self {
		return relayRoute{}, errProofInvalid
	}
	nowMs := uint64(now.UnixMilli())
	if p.expiryMs > nowMs+uint64((proofLifetime+proofClockSkewMax).Milliseconds()) {
		return relayRoute{}, errProofInvalid
	}
	if nowMs > p.expiryMs {
		return relayRoute{}, errProofExpired
	}
	return p.route, nil
}
