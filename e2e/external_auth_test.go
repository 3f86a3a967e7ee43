package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// authService is a real HTTP external auth service: it answers each login
// by the username it is asked about, and records every request.
type authService struct {
	mu       sync.Mutex
	requests []map[string]string
	arrived  chan string // the username of every request, as it arrives
	answer   func(w http.ResponseWriter, r *http.Request, username string)
}

func (s *authService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var q map[string]string
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	_ = json.Unmarshal(body, &q)
	q["method"] = r.Method
	s.mu.Lock()
	s.requests = append(s.requests, q)
	s.mu.Unlock()
	select {
	case s.arrived <- q["username"]:
	default:
	}
	s.answer(w, r, q["username"])
}

func (s *authService) seen() []map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]string(nil), s.requests...)
}

// startAuthService serves answer over HTTP on loopback for the test's life.
func startAuthService(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, username string)) (*authService, string) {
	t.Helper()
	s := &authService{arrived: make(chan string, 16), answer: answer}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func writeDecision(w http.ResponseWriter, decision, username string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"decision": decision, "username": username})
}

// externalAuthServer starts a server whose external_auth is the service at url.
func externalAuthServer(t *testing.T, url, timeout, calloutsMax string) *server {
	return startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true, env: map[string]string{
		"IGGY_EXTERNAL_AUTH_ENABLED": "true", "IGGY_EXTERNAL_AUTH_URL": url,
		"IGGY_EXTERNAL_AUTH_TIMEOUT": timeout, "IGGY_EXTERNAL_AUTH_MAX_CONCURRENT_CALLOUTS": calloutsMax,
	}})
}

// dialOnce dials a client that returns a transient refusal at once instead
// of replaying it, so the test sees the 58 itself.
func dialOnce(t *testing.T, s *server) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), s.addr, client.Options{RequestTimeout: requestTimeout, TransientBudget: time.Millisecond})
	if err != nil {
		t.Fatalf("dial %s: %v", s.addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A login of a user the server does not know is posted to the service with
// the transport, the client address and the credentials; an allow naming an
// active non-root user signs the client in as that user. A deny, an invalid
// answer, and an allow naming a user that does not exist, is inactive or is
// root all fail the login with eviction 9 (InvalidCredentials).
// covers AUTH-15, AUTH-16, AUTH-17, AUTH-18, AUTH-19, AUTH-22, AUTH-23
func TestExternalAuthDecisions(t *testing.T) {
	t.Parallel()
	svc, url := startAuthService(t, func(w http.ResponseWriter, _ *http.Request, username string) {
		switch username {
		case "ext-alice":
			writeDecision(w, "allow", "alice")
		case "ext-ghost":
			writeDecision(w, "allow", "nobody-by-this-name")
		case "ext-sleeper":
			writeDecision(w, "allow", "sleeper")
		case "ext-root":
			writeDecision(w, "allow", rootUsername)
		case "ext-garbage":
			_, _ = io.WriteString(w, "<html>not an answer</html>")
		default:
			writeDecision(w, "deny", "")
		}
	})
	s := externalAuthServer(t, url, "5 s", "64")
	root := s.root()
	alice, err := root.CreateUser("alice", "alice-pass", wire.UserStatusActive,
		&wire.Permissions{Global: wire.GlobalPermissions{ReadStreams: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := root.CreateUser("sleeper", "sleeper-pass", wire.UserStatusInactive, nil); err != nil {
		t.Fatal(err)
	}

	c := s.dial()
	info, err := c.LoginUser("ext-alice", "her-directory-pass")
	if err != nil {
		t.Fatalf("allowed login: %v", err)
	}
	if info.UserID != alice.ID {
		t.Fatalf("signed in as user %d, want alice (%d)", info.UserID, alice.ID)
	}
	if _, err := c.GetStreams(); err != nil {
		t.Fatalf("alice's read_streams: %v", err)
	}
	if _, err := c.CreateStream("not-hers"); !client.IsCode(err, wire.Unauthorized) {
		t.Fatalf("alice has no manage_streams, create stream: %v", err)
	}
	host, _, _ := net.SplitHostPort(c.LocalAddr().String())
	q := svc.seen()[0]
	want := map[string]string{"method": "POST", "transport": "tcp", "username": "ext-alice", "password": "her-directory-pass"}
	for k, v := range want {
		if q[k] != v {
			t.Errorf("callout %s = %q, want %q (%v)", k, q[k], v, q)
		}
	}
	if h, _, _ := net.SplitHostPort(q["client_address"]); h != host {
		t.Errorf("callout client_address %q, want host %s", q["client_address"], host)
	}

	for _, name := range []string{"ext-denied", "ext-garbage", "ext-ghost", "ext-sleeper", "ext-root"} {
		_, err := s.dial().LoginUser(name, "any-password")
		wantEviction(t, name, err, wire.EvictInvalidCredentials)
	}
	if n := len(svc.seen()); n != 6 {
		t.Fatalf("%d callouts, want 6 (one per login of an unknown user)", n)
	}
}

// A callout past external_auth.timeout, a 5xx and a 429 answer give the
// retryable 58, and so does a login that finds every callout slot taken. A
// slow callout holds no other login: root's password login and a token
// login go through while it waits, and the next callout runs once its slot
// is free.
// covers AUTH-25, AUTH-26, AUTH-27
func TestExternalAuthTimeoutAndFailures(t *testing.T) {
	t.Parallel()
	svc, url := startAuthService(t, func(w http.ResponseWriter, r *http.Request, username string) {
		switch username {
		case "ext-slow":
			<-r.Context().Done() // held until the server gives up on it
		case "ext-busy":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "ext-limited":
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			writeDecision(w, "allow", "bob")
		}
	})
	s := externalAuthServer(t, url, "1 s", "1")
	root := s.root()
	if _, err := root.CreateUser("bob", "bob-pass", wire.UserStatusActive, nil); err != nil {
		t.Fatal(err)
	}
	token, err := root.CreatePersonalAccessToken("ops", 0)
	if err != nil {
		t.Fatal(err)
	}

	slow := make(chan error, 1)
	go func() {
		_, err := dialOnce(t, s).LoginUser("ext-slow", "pass-slow")
		slow <- err
	}()
	if got := <-svc.arrived; got != "ext-slow" {
		t.Fatalf("first callout for %q", got)
	}
	// The only callout slot is held by ext-slow.
	_, err = dialOnce(t, s).LoginUser("ext-bob", "pass-bob")
	wantCode(t, "login with every callout slot taken", err, wire.TransientNotAccepted)
	s.login(rootUsername, rootPassword)
	if _, err := s.dial().LoginWithToken(token); err != nil {
		t.Fatalf("token login beside a slow callout: %v", err)
	}
	select {
	case err := <-slow:
		t.Fatalf("the slow callout ended before its timeout: %v", err)
	default:
	}
	wantCode(t, "callout past its timeout", <-slow, wire.TransientNotAccepted)

	for _, name := range []string{"ext-busy", "ext-limited"} {
		_, err := dialOnce(t, s).LoginUser(name, "any-password")
		wantCode(t, name, err, wire.TransientNotAccepted)
	}
	if _, err := s.dial().LoginUser("ext-bob", "pass-bob"); err != nil {
		t.Fatalf("callout once the slot is free: %v", err)
	}
}

// In a replica set only the metadata primary calls the service out: a
// backup answers an unknown user's login 58 (the SDKs retry, and a routing
// client moves on), and the primary signs the same login in.
// leaderMovesMax bounds the attempts of a test that needs the metadata
// primary to stay put.
const leaderMovesMax = 5

// covers AUTH-24
func TestExternalAuthOnlyOnTheMetadataPrimary(t *testing.T) {
	t.Parallel()
	svc, url := startAuthService(t, func(w http.ResponseWriter, _ *http.Request, _ string) {
		writeDecision(w, "allow", "carol")
	})
	tc := startClusterEnv(t, 3, map[string]string{"IGGY_EXTERNAL_AUTH_ENABLED": "true", "IGGY_EXTERNAL_AUTH_URL": url})
	k := tc.client()
	var leader int
	tc.eventually("a metadata primary", func() error {
		var err error
		if leader, err = k.MetadataLeader(); err == nil && leader < 0 {
			err = errors.New("no leader yet")
		}
		return err
	})
	if _, err := tc.node(leader).CreateUser("carol", "carol-pass", wire.UserStatusActive, nil); err != nil {
		t.Fatal(err)
	}
	backup := (leader + 1) % len(tc.addrs)
	tc.eventually("carol replicated to the backup", func() error {
		_, found, err := tc.node(backup).GetUser(wire.NamedID("carol"))
		if err == nil && !found {
			err = errors.New("not yet")
		}
		return err
	})
	once := func(id int) *client.Client {
		c, err := client.Dial(context.Background(), tc.addrs[id], client.Options{RequestTimeout: requestTimeout, TransientBudget: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// A young set may still move its metadata primary: an attempt during
	// which the primary moved proves nothing and is made again.
	for attempt := 1; ; attempt++ {
		before := len(svc.seen())
		_, err := once(backup).LoginUser("ext-carol", "pass")
		now, lerr := k.MetadataLeader()
		if (lerr != nil || now != leader) && attempt < leaderMovesMax {
			leader, backup = now, (now+1)%len(tc.addrs)
			continue
		}
		wantCode(t, "unknown user's login on a backup", err, wire.TransientNotAccepted)
		if n := len(svc.seen()) - before; n != 0 {
			t.Fatalf("a backup called the service out %d times", n)
		}
		break
	}
	calls := len(svc.seen())
	info, err := once(leader).LoginUser("ext-carol", "pass")
	if err != nil {
		t.Fatalf("login on the primary: %v", err)
	}
	if len(svc.seen()) != calls+1 || info.UserID == 0 {
		t.Fatalf("primary login: user %d, %d callouts", info.UserID, len(svc.seen())-calls)
	}
}
