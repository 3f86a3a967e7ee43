package httpapi

import (
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/internal/promtext"
	"github.com/iggygo/iggy/wire"
)

// covers RELAY-14, RELAY-15
func TestErrorStatusAndFields(t *testing.T) {
	for _, c := range []struct {
		code   wire.Code
		status int
		name   string
		field  string
	}{
		{wire.StreamIdNotFound, 404, "stream_id_not_found", "stream_id"},
		{wire.PartitionNotFound, 404, "partition_not_found", "partition_id"},
		{wire.Unauthenticated, 401, "unauthenticated", ""},
		{wire.InvalidPersonalAccessToken, 401, "invalid_personal_access_token", ""},
		{wire.Unauthorized, 403, "unauthorized", ""},
		{wire.TransientNotAccepted, 503, "transient_not_accepted", ""},
		{wire.InvalidCredentials, 400, "invalid_credentials", ""},
		{wire.TopicNameAlreadyExists, 400, "topic_name_already_exists", "name"},
		{wire.UserAlreadyExists, 400, "user_already_exists", "username"},
	} {
		e := fromCode(c.code, "")
		if e.status != c.status || e.code != c.name || e.field != c.field || e.id != uint32(c.code) {
			t.Errorf("code %d: %+v", c.code, e)
		}
	}
	rec := httptest.NewRecorder()
	writeError(rec, fromCode(wire.TransientNotAccepted, ""))
	if rec.Header().Get("Retry-After") != "1" {
		t.Fatal("a 503 without Retry-After")
	}
	// An outcome-unknown 57 is not a 503: the client must not take it as
	// "nothing admitted, send again".
	rec = httptest.NewRecorder()
	writeError(rec, fromCode(wire.TransientNotCommitted, ""))
	if rec.Code != 504 || rec.Header().Get("Retry-After") != "" {
		t.Fatalf("57 answered %d, Retry-After %q; want 504 without it", rec.Code, rec.Header().Get("Retry-After"))
	}
}

func TestSizeText(t *testing.T) {
	for n, want := range map[uint64]string{0: "0 B", 1: "1 B", 1234: "1234 B", 1000: "1 KB", 1024: "1 KiB",
		10 << 10: "10 KiB", 3_000_000: "3 MB", 1 << 30: "1 GiB", math.MaxUint64: "18446744073709551615 B"} {
		if got := sizeText(n); got != want {
			t.Errorf("sizeText(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestExpirySetIsBoundedAndNeverDropsLiveEntries(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newExpirySet(2)
	if !s.add("a", now.Add(time.Second), now, 2) || !s.add("b", now.Add(time.Hour), now, 2) {
		t.Fatal("adds within the bound refused")
	}
	if s.add("c", now.Add(time.Hour), now, 2) {
		t.Fatal("a full set of live entries grew")
	}
	if !s.add("b", now.Add(2*time.Hour), now, 1) {
		t.Fatal("a key already there was refused")
	}
	later := now.Add(2 * time.Second)
	if s.has("a", later) || !s.has("b", later) {
		t.Fatal("expiry not honoured")
	}
	if !s.add("c", later.Add(time.Hour), later, 2) || s.len() != 2 {
		t.Fatalf("the expired entry was not swept to make room (len %d)", s.len())
	}
}

func TestPrincipalsEvictTheIdlestIdlePrincipal(t *testing.T) {
	tbl := newPrincipals(2)
	now := time.Unix(1000, 0)
	mk := func(k string) func() *principal { return func() *principal { return &principal{key: k} } }
	a, _, _ := tbl.get("a", now, mk("a"))
	tbl.get("b", now.Add(time.Second), mk("b"))
	tbl.get("a", now.Add(2*time.Second), mk("a")) // a is now the most recent
	if _, _, ok := tbl.get("c", now.Add(3*time.Second), mk("c")); !ok {
		t.Fatal("no room made")
	}
	if _, ok := tbl.lookup("b"); ok {
		t.Fatal("the least recently used principal survived")
	}
	a.mu.Lock() // busy: never evicted
	c, _ := tbl.lookup("c")
	c.mu.Lock()
	if _, _, ok := tbl.get("d", now.Add(4*time.Second), mk("d")); ok {
		t.Fatal("a busy principal was evicted")
	}
	a.mu.Unlock()
	c.mu.Unlock()
	a.expires = now.Add(5 * time.Second)
	if exp := tbl.expired(now.Add(6 * time.Second)); len(exp) != 1 || exp[0] != a {
		t.Fatalf("expired %v", exp)
	}
}

func TestCORSPreflight(t *testing.T) {
	p := newCORSPolicy(config.CORS{Enabled: true, AllowedOrigins: []string{"https://ui.test"},
		AllowedMethods: []string{"GET", "POST"}, AllowedHeaders: []string{"*"}, AllowCredentials: true})
	r := httptest.NewRequest(http.MethodOptions, "/streams", nil)
	r.Header.Set("Origin", "https://ui.test")
	r.Header.Set("Access-Control-Request-Method", "POST")
	r.Header.Set("Access-Control-Request-Headers", "authorization")
	w := httptest.NewRecorder()
	if !p.handle(w, r) || w.Code != http.StatusOK {
		t.Fatal("preflight not answered")
	}
	h := w.Header()
	if h.Get("Access-Control-Allow-Origin") != "https://ui.test" || h.Get("Access-Control-Allow-Credentials") != "true" ||
		h.Get("Access-Control-Allow-Methods") != "GET, POST" || h.Get("Access-Control-Allow-Headers") != "authorization" {
		t.Fatalf("headers %v", h)
	}
	r.Header.Set("Origin", "https://evil.test")
	w = httptest.NewRecorder()
	p.handle(w, r)
	if w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("a foreign origin was allowed")
	}
}

// The adapter's exposition parses with a strict text-format parser.
// covers OPS-3
func TestMetricsRenderParses(t *testing.T) {
	m := newMetrics()
	m.observeRoute("GET /streams/{stream_id}", 200, 3*time.Millisecond)
	m.observeRoute("GET /streams/{stream_id}", 404, 20*time.Second)
	m.observeRoute("unmatched", 404, time.Millisecond)
	m.observeCommand("GetStream", true, time.Millisecond)
	m.observeCommand("GetStream", false, time.Millisecond)
	p := &promWriter{}
	m.render(p)
	p.family("topic_max_size_bytes", "gauge", "cap")
	p.sample("topic_max_size_bytes", math.Inf(1), "stream", `we"ird\name`, "topic", "t")
	fams, err := promtext.Parse(p.b.String())
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, p.b.String())
	}
	reqs, ok := promtext.Find(fams, "http_requests_total")
	if !ok || len(reqs.Samples) != 3 {
		t.Fatalf("requests family %+v", reqs)
	}
	lat, _ := promtext.Find(fams, "http_request_duration_seconds")
	if lat.Type != "histogram" {
		t.Fatalf("latency family %+v", lat)
	}
	caps, _ := promtext.Find(fams, "topic_max_size_bytes")
	if caps.Samples[0].Labels["stream"] != `we"ird\name` || !math.IsInf(caps.Samples[0].Value, 1) {
		t.Fatalf("escaped label or +Inf lost: %+v", caps.Samples[0])
	}
}
