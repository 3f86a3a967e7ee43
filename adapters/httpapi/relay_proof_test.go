package httpapi

import (
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// signedRequest is a GET of uri carrying a proof made by signRelay at now,
// as a target receives it.
func signedRequest(key []byte, uri string, route relayRoute, now time.Time) *http.Request {
	out := httptest.NewRequest("GET", uri, nil)
	signRelay(out, key, route, now)
	return out
}

// A proof verifies under the key it was made with, for the route's
// target, until it expires; any other key, target, path, query or method,
// or a moment past the expiry, refuses it.
// covers RELAY-4, RELAY-5, RELAY-6, RELAY-7
func TestProofBindsRequestRouteAndExpiry(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	key := relayKey("secret", "", "")
	route := relayRoute{target: 2, partition: 7}
	r := signedRequest(key, "/streams/s/topics/t/messages?partition_id=7", route, now)
	if got, err := checkRelay(r, key, 2, now.Add(proofLifetime)); err != nil || got != route {
		t.Fatalf("valid proof: %+v %v", got, err)
	}
	if _, err := checkRelay(r, key, 2, now.Add(proofLifetime+time.Millisecond)); !errors.Is(err, errProofExpired) {
		t.Fatalf("past the expiry: %v", err)
	}
	if _, err := checkRelay(r, relayKey("other", "", ""), 2, now); !errors.Is(err, errProofInvalid) {
		t.Fatalf("another key: %v", err)
	}
	if _, err := checkRelay(r, key, 1, now); !errors.Is(err, errProofInvalid) {
		t.Fatalf("another target: %v", err)
	}
	moved := httptest.NewRequest("GET", "/streams/s/topics/t/messages?partition_id=8", nil)
	moved.Header = r.Header
	if _, err := checkRelay(moved, key, 2, now); !errors.Is(err, errProofInvalid) {
		t.Fatalf("another query: %v", err)
	}
	if _, err := checkRelay(r, nil, 2, now); !errors.Is(err, errProofInvalid) {
		t.Fatalf("a node without key material accepted a relay: %v", err)
	}
	// The key comes from the first configured material (RELAY-5).
	if string(relayKey("e", "d", "s")) != string(relayKey("e", "", "")) ||
		string(relayKey("", "d", "s")) != string(relayKey("d", "", "")) ||
		string(relayKey("", "", "s")) != string(relayKey("s", "", "")) || relayKey("", "", "") != nil {
		t.Fatal("relay key does not follow the material's order")
	}
}

// Numeric fields are unsigned decimals without leading zeros and the tag
// is lowercase hexadecimal; every other spelling is refused before the
// tag is checked, even where a lenient parser would read the same value.
// covers RELAY-8, RELAY-9
func TestNoncanonicalProofFieldsAreRefused(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	key := relayKey("secret", "", "")
	good := signedRequest(key, "/p", relayRoute{target: 1, partition: 3}, now).Header
	expiry := good.Get(expiryHeader)
	for name, edit := range map[string][2]string{
		"expiry leading zero":    {expiryHeader, "0" + expiry},
		"expiry plus":            {expiryHeader, "+" + expiry},
		"expiry negative":        {expiryHeader, "-1"},
		"expiry too long":        {expiryHeader, strings.Repeat("9", 21)},
		"expiry overflow":        {expiryHeader, "18446744073709551616"},
		"route leading zero":     {routeHeader, "01/3"},
		"partition leading zero": {routeHeader, "1/03"},
		"route over u8":          {routeHeader, "256/3"},
		"route no partition":     {routeHeader, "1"},
		"route extra field":      {routeHeader, "1/3/4"},
		"route empty target":     {routeHeader, "/3"},
		"forwarded 2":            {forwardedHeader, "2"},
		"tag uppercase":          {proofHeader, strings.ToUpper(good.Get(proofHeader))},
		"tag short":              {proofHeader, good.Get(proofHeader)[:62]},
		"tag long":               {proofHeader, good.Get(proofHeader) + "00"},
		"tag not hex":            {proofHeader, "g" + good.Get(proofHeader)[1:]},
	} {
		h := good.Clone()
		h.Set(edit[0], edit[1])
		if _, err := decodeRelayHeaders(h); !errors.Is(err, errProofForm) {
			t.Errorf("%s: %v, want a form refusal", name, err)
		}
	}
	for _, name := range []string{forwardedHeader, routeHeader, expiryHeader, proofHeader} {
		h := good.Clone()
		h.Del(name)
		if _, err := decodeRelayHeaders(h); !errors.Is(err, errProofMissing) {
			t.Errorf("without %s: %v", name, err)
		}
		h = good.Clone()
		h.Add(name, good.Get(name))
		if _, err := decodeRelayHeaders(h); !errors.Is(err, errProofMissing) {
			t.Errorf("%s twice: %v", name, err)
		}
	}
	if p, err := decodeRelayHeaders(good); err != nil || p.route != (relayRoute{target: 1, partition: 3}) {
		t.Fatalf("canonical headers: %+v %v", p, err)
	}
}

// FuzzRelayHeaders: any header values decode or are refused without a
// panic, and whatever decodes is in its one canonical spelling.
func FuzzRelayHeaders(f *testing.F) {
	f.Add("1", "0/0", "0", strings.Repeat("ab", 32))
	f.Add("1", "255/4294967295", "18446744073709551615", strings.Repeat("0", 64))
	f.Add("1", "01/0", "00", strings.Repeat("AB", 32))
	f.Add("", "1/", "+1", "zz")
	f.Fuzz(func(t *testing.T, forwarded, route, expiry, tag string) {
		h := http.Header{}
		h.Set(forwardedHeader, forwarded)
		h.Set(routeHeader, route)
		h.Set(expiryHeader, expiry)
		h.Set(proofHeader, tag)
		p, err := decodeRelayHeaders(h)
		if err != nil {
			return
		}
		if p.route.String() != route || strconv.FormatUint(p.expiryMs, 10) != expiry ||
			hex.EncodeToString(p.tag) != tag || forwarded != "1" {
			t.Fatalf("decoded %+v from %q %q %q %q: not canonical", p, forwarded, route, expiry, tag)
		}
	})
}
