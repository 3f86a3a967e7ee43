package e2e

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Bounds of the HTTP harness.
const (
	httpReadyTimeout   = 10 * time.Second
	httpRequestTimeout = 30 * time.Second
	httpSecret         = "e2e-http-secret-0123456789abcdef"
)

// httpServer is a server with the REST listener on a free port.
type httpServer struct {
	*server
	base   string // http://host:port
	client *http.Client
}

// startHTTPServer starts a server whose HTTP listener is enabled on a free
// port with a fixed JWT secret (so tokens survive restarts), plus env.
func startHTTPServer(t *testing.T, env map[string]string) *httpServer {
	t.Helper()
	// A fixed free port (not 0): cluster metadata reports the configured one.
	all := map[string]string{"IGGY_HTTP_ENABLED": "true", "IGGY_HTTP_ADDRESS": freeAddr(t),
		"IGGY_HTTP_JWT_ENCODING_SECRET": httpSecret}
	for k, v := range env {
		all[k] = v
	}
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true, env: all})
	return attachHTTP(t, s, all["IGGY_HTTP_TLS_ENABLED"] == "true")
}

// attachHTTP reads the "http listening on" line of s (TRAN-4) and waits
// for /ping.
func attachHTTP(t *testing.T, s *server, tlsOn bool) *httpServer {
	t.Helper()
	scheme := "http://"
	if tlsOn {
		scheme = "https://"
	}
	h := &httpServer{server: s, base: scheme + listeningAddr(t, s, "http listening on "),
		client: &http.Client{Timeout: httpRequestTimeout}}
	if !tlsOn {
		h.waitHTTP(t)
	}
	return h
}

// restartHTTP stops h and starts it again on the same data.
func (h *httpServer) restartHTTP(t *testing.T) *httpServer {
	t.Helper()
	h.stop()
	return attachHTTP(t, h.restart(), false)
}

// waitHTTP polls /ping until it answers pong.
func (h *httpServer) waitHTTP(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(httpReadyTimeout)
	for time.Now().Before(deadline) {
		resp, err := h.client.Get(h.base + "/ping")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && string(body) == "pong" {
				return
			}
		}
		time.Sleep(readyPollPeriod)
	}
	t.Fatalf("%s/ping did not answer pong within %v\nstdout:\n%s", h.base, httpReadyTimeout, h.stdout)
}

// reply is one HTTP answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request; body is marshalled to JSON unless it is a string,
// which is sent as is. Requests with a body carry application/json.
func (h *httpServer) do(t *testing.T, method, path, token string, body any) reply {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("marshal %v: %v", b, err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, h.base+path, rd)
	if err != nil {
		t.Fatalf("request %s %s: %v", method, path, err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// ok fails unless the answer has status want; it returns the reply.
func (r reply) ok(t *testing.T, want int, what string) reply {
	t.Helper()
	if r.status != want {
		t.Fatalf("%s: status %d, want %d; body %s", what, r.status, want, r.body)
	}
	return r
}

// json decodes the body into v.
func (r reply) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// httpErr is the JSON error body of http.md 2.1.
type httpErr struct {
	ID     uint32  `json:"id"`
	Code   string  `json:"code"`
	Reason string  `json:"reason"`
	Field  *string `json:"field"`
}

// fails checks an error answer: its status, id and field ("" = null).
func (r reply) fails(t *testing.T, status int, id uint32, field, what string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d; body %s", what, r.status, status, r.body)
	}
	var e httpErr
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatalf("%s: error body %q: %v", what, r.body, err)
	}
	got := ""
	if e.Field != nil {
		got = *e.Field
	}
	if e.ID != id || got != field || e.Code == "" || e.Reason == "" {
		t.Fatalf("%s: error %+v (field %q), want id %d field %q", what, e, got, id, field)
	}
	if (status == http.StatusServiceUnavailable) != (r.header.Get("Retry-After") == "1") {
		t.Fatalf("%s: Retry-After %q on status %d", what, r.header.Get("Retry-After"), status)
	}
}

// identity is the answer of a login or refresh.
type identity struct {
	UserID      uint32 `json:"user_id"`
	AccessToken struct {
		Token  string `json:"token"`
		Expiry int64  `json:"expiry"`
	} `json:"access_token"`
	RefreshToken struct {
		Token  string `json:"token"`
		Expiry int64  `json:"expiry"`
	} `json:"refresh_token"`
}

// login signs in over HTTP and returns the identity.
func (h *httpServer) httpLogin(t *testing.T, username, password string) identity {
	t.Helper()
	var id identity
	h.do(t, "POST", "/users/login", "", map[string]string{"username": username, "password": password}).
		ok(t, http.StatusOK, "login "+username).json(t, &id)
	if id.AccessToken.Token == "" || id.RefreshToken.Token == "" {
		t.Fatalf("login %s: no tokens", username)
	}
	return id
}

// rootToken is a fresh root access token.
func (h *httpServer) rootToken(t *testing.T) string {
	t.Helper()
	return h.httpLogin(t, rootUsername, rootPassword).AccessToken.Token
}

// tlsClient trusts exactly cfg's roots and offers h2.
func tlsClient(cfg *tls.Config) *http.Client {
	return &http.Client{Timeout: httpRequestTimeout,
		Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}}
}
