package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/iggygo/iggy/internal/promtext"
)

// Access tokens expire; a refresh token gives new tokens once; an access
// token still valid refreshes too; logout revokes the whole login.
// covers TRAN-4, AUTH-11
func TestHTTPTokenExpiryAndRefresh(t *testing.T) {
	h := startHTTPServer(t, map[string]string{"IGGY_HTTP_JWT_ACCESS_TOKEN_EXPIRY": "2 s", "IGGY_HTTP_JWT_CLOCK_SKEW": "0 s"})
	id := h.httpLogin(t, rootUsername, rootPassword)
	h.do(t, "GET", "/streams", id.AccessToken.Token, nil).ok(t, http.StatusOK, "fresh token")
	var viaAccess identity
	h.do(t, "POST", "/users/refresh-token", "", obj{"token": id.AccessToken.Token}).
		ok(t, http.StatusOK, "refresh with a valid access token").json(t, &viaAccess)
	if viaAccess.AccessToken.Expiry-time.Now().Unix() > 3 {
		t.Fatalf("access token expiry %d is not about 2 s away", viaAccess.AccessToken.Expiry)
	}

	time.Sleep(time.Until(time.Unix(id.AccessToken.Expiry, 0)) + 1100*time.Millisecond)
	h.do(t, "GET", "/streams", id.AccessToken.Token, nil).fails(t, 401, 40, "", "expired token")
	h.do(t, "POST", "/users/refresh-token", "", obj{"token": id.AccessToken.Token}).fails(t, 401, 40, "", "refresh with an expired access token")
	var next identity
	h.do(t, "POST", "/users/refresh-token", "", obj{"token": id.RefreshToken.Token}).ok(t, http.StatusOK, "refresh").json(t, &next)
	h.do(t, "GET", "/streams", next.AccessToken.Token, nil).ok(t, http.StatusOK, "refreshed token")
	h.do(t, "POST", "/users/refresh-token", "", obj{"token": id.RefreshToken.Token}).fails(t, 401, 40, "", "a refresh token used twice")
	h.do(t, "POST", "/users/refresh-token", "", obj{"token": ""}).fails(t, 401, 40, "", "empty refresh token")
	h.do(t, "POST", "/users/refresh-token", "", obj{"token": next.AccessToken.Token + "x"}).fails(t, 401, 40, "", "tampered token")

	h.do(t, "DELETE", "/users/logout", next.AccessToken.Token, nil).ok(t, http.StatusNoContent, "logout")
	h.do(t, "POST", "/users/refresh-token", "", obj{"token": next.RefreshToken.Token}).fails(t, 401, 40, "", "refresh after logout")
	h.do(t, "GET", "/streams", viaAccess.AccessToken.Token, nil).fails(t, 401, 40, "", "another token of the logged-out login")
}

// With a configured secret a token outlives a restart: the adapter opens a
// new node session for its subject. Tokens of an earlier format or signed
// with another secret are refused.
// covers TRAN-4, AUTH-8
func TestHTTPTokensSurviveRestart(t *testing.T) {
	h := startHTTPServer(t, nil)
	id := h.httpLogin(t, rootUsername, rootPassword)
	h.do(t, "POST", "/streams", id.AccessToken.Token, obj{"name": "kept"}).ok(t, http.StatusOK, "create stream")
	var pat struct {
		Token string `json:"token"`
	}
	h.do(t, "POST", "/personal-access-tokens", id.AccessToken.Token, obj{"name": "restart"}).ok(t, http.StatusOK, "create PAT").json(t, &pat)

	h.do(t, "POST", "/users", id.AccessToken.Token, obj{"username": "carol", "password": "carol-pass", "status": "active"}).
		ok(t, http.StatusOK, "create carol")
	carol := h.httpLogin(t, "carol", "carol-pass").AccessToken.Token
	if me := h.getObj(t, "/users/me", carol); me["username"] != "carol" {
		t.Fatalf("carol's token acts as %v", me)
	}
	h.do(t, "DELETE", "/users/carol", id.AccessToken.Token, nil).ok(t, http.StatusNoContent, "delete carol")
	h.do(t, "POST", "/users", id.AccessToken.Token, obj{"username": "dave", "password": "dave-pass", "status": "active"}).
		ok(t, http.StatusOK, "create dave")

	h = h.restartHTTP(t)
	// A session for a token names the user by username and id, so a deleted
	// user's token never acts as whoever holds the id next.
	h.do(t, "GET", "/users/me", carol, nil).fails(t, 401, 40, "", "token of a deleted user after restart")
	var streams []obj
	h.do(t, "GET", "/streams", id.AccessToken.Token, nil).ok(t, http.StatusOK, "token after restart").json(t, &streams)
	if len(streams) != 1 || streams[0]["name"] != "kept" {
		t.Fatalf("streams after restart %v", streams)
	}
	h.do(t, "GET", "/streams", pat.Token, nil).ok(t, http.StatusOK, "PAT after restart")

	now := time.Now()
	legacy := jwt.MapClaims{"jti": "x", "sub": "0", "aud": "iggy.apache.org", "iss": "iggy.apache.org", "usr": rootUsername,
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	old, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, legacy).SignedString([]byte(httpSecret))
	h.do(t, "GET", "/streams", old, nil).fails(t, 401, 40, "", "token of an earlier format")
	forged := jwt.MapClaims{"jti": "y", "sub": "0", "aud": "iggy.apache.org", "iss": "iggy.apache.org",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix(), "sid": "s", "kind": "access", "usr": rootUsername}
	other, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, forged).SignedString([]byte("some other secret entirely"))
	h.do(t, "GET", "/streams", other, nil).fails(t, 401, 40, "", "token signed with another secret")
}

// jwks serves a key set from the test process for the server to fetch.
func jwks(t *testing.T, rk *rsa.PrivateKey, ek *ecdsa.PrivateKey) *httptest.Server {
	b64 := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	pt, err := ek.PublicKey.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(obj{"keys": []obj{
		{"kty": "RSA", "kid": "r1", "use": "sig", "n": b64(rk.N.Bytes()), "e": b64(big.NewInt(int64(rk.E)).Bytes())},
		{"kty": "EC", "kid": "e1", "crv": "P-256", "x": b64(pt[1:33]), "y": b64(pt[33:])},
	}})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }))
	t.Cleanup(s.Close)
	return s
}

// A trusted issuer's token acts as the user its entry names, checked
// against the issuer's JWKS; root is never such a user; such tokens cannot
// be refreshed.
// covers TRAN-4, AUTH-9
func TestHTTPTrustedIssuer(t *testing.T) {
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys := jwks(t, rk, ek)
	h := startHTTPServer(t, map[string]string{
		"IGGY_HTTP_JWT_TRUSTED_ISSUERS_0_ISSUER": "https://auth.example.test", "IGGY_HTTP_JWT_TRUSTED_ISSUERS_0_AUDIENCE": "iggy",
		"IGGY_HTTP_JWT_TRUSTED_ISSUERS_0_JWKS_URL": keys.URL, "IGGY_HTTP_JWT_TRUSTED_ISSUERS_0_USERNAME": "svc",
		"IGGY_HTTP_JWT_TRUSTED_ISSUERS_1_ISSUER": "https://root.example.test", "IGGY_HTTP_JWT_TRUSTED_ISSUERS_1_AUDIENCE": "iggy",
		"IGGY_HTTP_JWT_TRUSTED_ISSUERS_1_JWKS_URL": keys.URL, "IGGY_HTTP_JWT_TRUSTED_ISSUERS_1_USERNAME": rootUsername,
	})
	root := h.rootToken(t)
	h.do(t, "POST", "/users", root, obj{"username": "svc", "password": "svc-pass", "status": "active",
		"permissions": obj{"global": obj{"read_streams": true}}}).ok(t, http.StatusOK, "create svc")

	sign := func(method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
		tok := jwt.NewWithClaims(method, claims)
		tok.Header["kid"] = kid
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	claims := func(iss, aud string, exp time.Duration) jwt.MapClaims {
		now := time.Now()
		return jwt.MapClaims{"iss": iss, "aud": aud, "sub": "external-subject", "iat": now.Unix(), "exp": now.Add(exp).Unix()}
	}
	rsaTok := sign(jwt.SigningMethodRS256, rk, "r1", claims("https://AUTH.example.test", "iggy", time.Hour))
	if me := h.getObj(t, "/users/me", rsaTok); me["username"] != "svc" {
		t.Fatalf("external token acts as %v", me)
	}
	h.do(t, "GET", "/streams", rsaTok, nil).ok(t, http.StatusOK, "read with svc's permission")
	h.do(t, "POST", "/streams", rsaTok, obj{"name": "nope"}).fails(t, 403, 41, "", "write without svc's permission")
	ecTok := sign(jwt.SigningMethodES256, ek, "e1", claims("https://auth.example.test", "iggy", time.Hour))
	h.do(t, "GET", "/users/me", ecTok, nil).ok(t, http.StatusOK, "ES256 token")

	for what, tok := range map[string]string{
		"wrong audience": sign(jwt.SigningMethodRS256, rk, "r1", claims("https://auth.example.test", "other", time.Hour)),
		"expired":        sign(jwt.SigningMethodRS256, rk, "r1", claims("https://auth.example.test", "iggy", -time.Hour)),
		"unknown issuer": sign(jwt.SigningMethodRS256, rk, "r1", claims("https://evil.example.test", "iggy", time.Hour)),
		"acting as root": sign(jwt.SigningMethodRS256, rk, "r1", claims("https://root.example.test", "iggy", time.Hour)),
	} {
		h.do(t, "GET", "/users/me", tok, nil).fails(t, 401, 40, "", what)
	}
	h.do(t, "POST", "/users/refresh-token", "", obj{"token": rsaTok}).fails(t, 401, 78, "", "refresh of an external token")
	h.do(t, "DELETE", "/users/logout", rsaTok, nil).ok(t, http.StatusNoContent, "logout of an external token")
	h.do(t, "GET", "/users/me", rsaTok, nil).fails(t, 401, 40, "", "external token after logout")
}

// /metrics is the Prometheus text format: a strict parser reads it, and it
// carries request counts and latencies and, per topic, size, messages and
// size cap labelled by stream and topic.
// covers TRAN-4, OPS-3
func TestHTTPMetrics(t *testing.T) {
	h := startHTTPServer(t, nil)
	tok := h.rootToken(t)
	h.do(t, "POST", "/streams", tok, obj{"name": "m"}).ok(t, http.StatusOK, "create stream")
	h.do(t, "POST", "/streams/m/topics", tok, obj{"name": "capped", "partitions_count": 1,
		"options": obj{"max_topic_size": "4 GiB"}}).ok(t, http.StatusOK, "create capped topic")
	h.do(t, "POST", "/streams/m/topics", tok, obj{"name": "free", "partitions_count": 1}).ok(t, http.StatusOK, "create topic")
	h.do(t, "POST", "/streams/m/topics/capped/messages", tok,
		`{"partitioning":{"kind":"balanced","value":""},"messages":[{"payload":"aGVsbG8="},{"payload":"d29ybGQ="}]}`).
		ok(t, http.StatusCreated, "send")
	h.do(t, "GET", "/metrics", "", nil).fails(t, 401, 77, "", "metrics without a bearer")

	r := h.do(t, "GET", "/metrics", tok, nil).ok(t, http.StatusOK, "metrics")
	fams, err := promtext.Parse(string(r.body))
	if err != nil {
		t.Fatalf("metrics do not parse: %v\n%s", err, r.body)
	}
	series := func(name string) map[string]float64 {
		f, ok := promtext.Find(fams, name)
		if !ok {
			t.Fatalf("no family %s in\n%s", name, r.body)
		}
		out := map[string]float64{}
		for _, s := range f.Samples {
			out[s.Labels["stream"]+"/"+s.Labels["topic"]] = s.Value
		}
		return out
	}
	if got := series("topic_messages"); got["m/capped"] != 2 || got["m/free"] != 0 {
		t.Fatalf("topic_messages %v", got)
	}
	if got := series("topic_size_bytes"); got["m/capped"] <= 0 {
		t.Fatalf("topic_size_bytes %v", got)
	}
	if got := series("topic_max_size_bytes"); got["m/capped"] != 4<<30 || !math.IsInf(got["m/free"], 1) {
		t.Fatalf("topic_max_size_bytes %v", got)
	}
	reqs, _ := promtext.Find(fams, "http_requests_total")
	sent := false
	for _, s := range reqs.Samples {
		sent = sent || (s.Labels["route"] == "/streams/{stream_id}/topics/{topic_id}/messages" && s.Labels["method"] == "POST" && s.Labels["status"] == "201")
	}
	if !sent {
		t.Fatalf("no count of the send in %v", reqs.Samples)
	}
	for _, name := range []string{"http_request_duration_seconds", "node_requests_total", "node_request_duration_seconds", "streams", "users"} {
		if _, ok := promtext.Find(fams, name); !ok {
			t.Fatalf("no family %s", name)
		}
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "e2e"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// With http.tls enabled the API is served over HTTPS, HTTP/2 first.
// covers TRAN-4
func TestHTTPOverTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	h := startHTTPServer(t, map[string]string{"IGGY_HTTP_TLS_ENABLED": "true",
		"IGGY_HTTP_TLS_CERT_FILE": certFile, "IGGY_HTTP_TLS_KEY_FILE": keyFile})
	h.client = tlsClient(&tls.Config{RootCAs: pool})
	h.waitHTTP(t)
	resp, err := h.client.Get(h.base + "/ping")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Proto != "HTTP/2.0" {
		t.Fatalf("protocol %s, want HTTP/2.0", resp.Proto)
	}
	h.do(t, "GET", "/streams", h.rootToken(t), nil).ok(t, http.StatusOK, "streams over HTTPS")
}
