package e2e

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// changesPage is the JSON answer of GET /metadata/changes.
type changesPage struct {
	Status  string  `json:"status"`
	HasMore bool    `json:"has_more"`
	Cursor  *string `json:"cursor"`
	Records []struct {
		Seq    uint64  `json:"seq"`
		Op     uint64  `json:"op"`
		Group  string  `json:"group"`
		Kind   string  `json:"kind"`
		UserID *uint32 `json:"user_id"`
	} `json:"records"`
}

// follower reads the change log over HTTP from earliest, page by page.
type follower struct {
	cursor string
	seen   []string // the kinds of every record but the sessions group's
	// sessions are the kinds of the sessions group's records.
	sessions []string
	last     uint64
}

// drain reads until a page says no more, checking order and uniqueness.
func (f *follower) drain(t *testing.T, h *httpServer, token string) {
	t.Helper()
	for range 100 {
		q := url.Values{"limit": {"2"}}
		if f.cursor != "" {
			q.Set("cursor", f.cursor)
		}
		var p changesPage
		r := h.do(t, "GET", "/metadata/changes?"+q.Encode(), token, nil).ok(t, 200, "changes")
		r.json(t, &p)
		if p.Status != "ok" || p.Cursor == nil {
			t.Fatalf("page %s", r.body)
		}
		if len(f.seen) == 0 {
			t.Logf("sample page: %s", r.body)
		}
		for _, rec := range p.Records {
			if rec.Seq != f.last+1 {
				t.Fatalf("record %d after %d: seen twice, out of order or skipped", rec.Seq, f.last)
			}
			f.last = rec.Seq
			if rec.Group == "sessions" {
				f.sessions = append(f.sessions, rec.Kind)
				continue
			}
			f.seen = append(f.seen, rec.Kind)
		}
		f.cursor = *p.Cursor
		if !p.HasMore {
			return
		}
	}
	t.Fatal("paging did not end")
}

// A follower of GET /metadata/changes from earliest, through a clean
// restart and a kill -9, sees every change once and in order.
// covers MCL-1, MCL-5, MCL-6, MCL-7, MCL-8, MCL-9, MCL-11, MCL-14, MCL-16, MCL-17, MCL-21, MCL-33
func TestMetadataChangesFollowAcrossRestart(t *testing.T) {
	h := startHTTPServer(t, nil)
	c := h.root()
	s, _ := createStreamTopic(t, c, "orders", "created", 2)
	if _, err := c.CreateUser("reader", "secret-pass", wire.UserStatusActive,
		&wire.Permissions{Global: wire.GlobalPermissions{ReadServers: true, ReadStreams: true}}); err != nil {
		t.Fatal(err)
	}
	token := h.rootToken(t)
	f := &follower{}
	f.drain(t, h, token)

	// A caller without manage_servers gets 41 / 403 whatever it asks for.
	reader := h.login("reader", "secret-pass")
	_, err := reader.GetMetadataChanges(wire.ChangesRequest{Start: wire.ChangeStartEarliest, Limit: 1})
	wantCode(t, "reader over TCP", err, wire.Unauthorized)
	if err := reader.Logout(); err != nil {
		t.Fatal(err)
	}
	h.do(t, "GET", "/metadata/changes?limit=0", h.httpLogin(t, "reader", "secret-pass").AccessToken.Token, nil).fails(t, 403, uint32(wire.Unauthorized), "", "reader over HTTP")
	h.do(t, "GET", "/metadata/changes?limit=1001", token, nil).fails(t, 400, uint32(wire.InvalidCommand), "", "limit 1001")
	h.do(t, "GET", "/metadata/changes?start=latest&from=5", token, nil).fails(t, 400, uint32(wire.InvalidCommand), "", "range with latest")

	if err := c.DeleteStream(s); err != nil {
		t.Fatal(err)
	}
	h = h.restartHTTP(t)
	token = h.rootToken(t)
	c = h.root()
	if _, err := c.CreateStream("after-restart"); err != nil {
		t.Fatal(err)
	}
	f.drain(t, h, token)
	// kill -9: the follower's cursor goes on after a crash too.
	if _, err := c.CreateStream("before-kill"); err != nil {
		t.Fatal(err)
	}
	h.kill()
	h = attachHTTP(t, h.restart(), false)
	token = h.rootToken(t)
	c = h.root()
	if _, err := c.CreateStream("after-kill"); err != nil {
		t.Fatal(err)
	}
	f.drain(t, h, token)
	want := []string{"user.created", "stream.created", "topic.created", "user.created", "stream.deleted", "stream.created",
		"stream.created", "stream.created"}
	if len(f.seen) != len(want) {
		t.Fatalf("seen %v, want kinds %v", f.seen, want)
	}
	if fmt.Sprint(f.seen) != fmt.Sprint(want) {
		t.Fatalf("seen %v, want kinds %v", f.seen, want)
	}
	// Every login started a session (binary and HTTP alike), and the
	// explicit logout of reader's session ended one (MCL-1, MCL-12).
	started, ended := 0, 0
	for _, k := range f.sessions {
		switch k {
		case "session.started":
			started++
		case "session.ended":
			ended++
		}
	}
	if started < 6 || ended < 1 {
		t.Fatalf("sessions group: %v", f.sessions)
	}
	// current pages the present state, then history follows from its anchor.
	var kindsNow []string
	q := url.Values{"start": {"current"}, "limit": {"1"}}
	for range 20 {
		var p struct {
			changesPage
			PageToken *string `json:"page_token"`
		}
		h.do(t, "GET", "/metadata/changes?"+q.Encode(), token, nil).ok(t, 200, "current").json(t, &p)
		for _, rec := range p.Records {
			kindsNow = append(kindsNow, rec.Kind)
		}
		if p.PageToken == nil {
			break
		}
		q.Set("page_token", *p.PageToken)
	}
	if fmt.Sprint(kindsNow) != "[stream stream stream user user]" {
		t.Fatalf("current items %v", kindsNow)
	}
	h.do(t, "GET", "/metadata/changes?start=current&groups=topics", token, nil).fails(t, 400, uint32(wire.InvalidCommand), "", "topics without streams")
	// The binary client reads the same history (MCL-5).
	p, err := c.GetMetadataChanges(wire.ChangesRequest{Start: wire.ChangeStartEarliest, Limit: 1000})
	if err != nil || p.Status != wire.ChangeStatusOK || uint64(len(p.Records)) < f.last {
		t.Fatalf("binary page: status %d, %d records, want %d: %v", p.Status, len(p.Records), f.last, err)
	}
}
