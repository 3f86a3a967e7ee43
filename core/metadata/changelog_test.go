package metadata

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/iggygo/iggy/core/streamkey"
	"github.com/iggygo/iggy/wire"
)

// history reads every record of the log from earliest, page by page.
func history(t *testing.T, s *State, groups uint16) []wire.ChangeRecord {
	t.Helper()
	var out []wire.ChangeRecord
	q := wire.ChangesRequest{Start: wire.ChangeStartEarliest, Groups: groups, Limit: 3}
	for range 10_000 {
		p := s.Changes(q)
		if p.Status != wire.ChangeStatusOK {
			t.Fatalf("status %d", p.Status)
		}
		out = append(out, p.Records...)
		if !p.HasMore {
			return out
		}
		q = wire.ChangesRequest{Start: wire.ChangeStartCursor, Groups: groups, Limit: 3, Token: p.Cursor}
	}
	t.Fatal("paging did not end")
	return nil
}

func kinds(recs []wire.ChangeRecord) string {
	ks := make([]string, len(recs))
	for i, r := range recs {
		ks[i] = r.Kind
	}
	return strings.Join(ks, " ")
}

// covers MCL-1, MCL-2, MCL-3, MCL-26, MCL-27
func TestChangeLogRecordsCommittedResults(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	tp := h.topic(s, "t", 2)
	bob := h.user("bob", &wire.Permissions{Streams: map[uint32]wire.StreamPermissions{s: {ReadStream: true}}})
	h.code(bob, &DeleteStream{Stream: num(s)}, wire.Unauthorized)                        // denied: no record
	h.code(RootUserID, &CreateStream{Name: "s"}, wire.StreamNameAlreadyExists)           // refused: no record
	h.ok(RootUserID, &UpdateResource{Scope: ScopeTopic, Stream: num(s), Topic: num(tp)}) // no-op: no record
	h.ok(RootUserID, &CreatePartitions{Stream: num(s), Topic: num(tp), Count: 1})
	h.ok(RootUserID, &CreateConsumerGroup{Stream: num(s), Topic: num(tp), Name: "g"})
	h.ok(RootUserID, &JoinConsumerGroup{Stream: num(s), Topic: num(tp), Group: num(0), Client: client(1)})
	h.ok(RootUserID, &JoinConsumerGroup{Stream: num(s), Topic: num(tp), Group: num(0), Client: client(1)}) // repeat: no record
	h.ok(RootUserID, &RemoveMember{Client: client(1)})
	h.ok(RootUserID, &DeleteStream{Stream: num(s)})
	got := kinds(history(t, h.s, 0))
	want := "user.created stream.created topic.created user.created partitions.created consumer_group.created member.joined member.removed stream.deleted user.permissions_updated"
	if got != want {
		t.Fatalf("kinds\n got %s\nwant %s", got, want)
	}
	recs := history(t, h.s, 0)
	for _, r := range recs {
		if r.HasUser != (r.Kind != "member.removed") {
			t.Fatalf("%s: has user %v (server actions carry none)", r.Kind, r.HasUser)
		}
	}
	created, deleted := recs[1], recs[8]
	if !bytes.Contains(created.Body, []byte(`"stream":{"id":0,"created_op":2,"name":"s"}`)) ||
		!bytes.Contains(deleted.Body, []byte(`"stream":{"id":0,"created_op":2,"name":"s"}`)) {
		t.Fatalf("stream refs: %s / %s", created.Body, deleted.Body)
	}
	if !json.Valid(recs[2].Body) || recs[9].UserID != RootUserID {
		t.Fatalf("bodies %s %+v", recs[2].Body, recs[9])
	}
}

// covers MCL-28
func TestChangeLogStreamOptionsHideWraps(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	kek, err := streamkey.DeriveKEK(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	wraps := streamkey.EncodeWraps([]streamkey.Wrap{kek.Wrap(bytes.Repeat([]byte{1}, 32), [streamkey.NonceBytes]byte{})})
	opts := block(opt("encryption_key_source", kindString, []byte("server")), opt(optKeyWraps, 1, wraps))
	h.ok(RootUserID, &SetStreamKeyOptions{Stream: s, CreatedOp: 2, Options: opts})
	recs := history(t, h.s, 1<<wire.GroupStreams)
	last := recs[len(recs)-1]
	if last.Kind != "stream.updated" || last.HasUser {
		t.Fatalf("record %+v", last)
	}
	if bytes.Contains(last.Body, []byte(optKeyWraps)) || bytes.Contains(last.Body, []byte(`"`+string(wraps[:4]))) ||
		!bytes.Contains(last.Body, []byte(`"encryption_kek_fingerprint":"`+kek.Fingerprint+`"`)) {
		t.Fatalf("body %s", last.Body)
	}
}

// covers MCL-10, MCL-12, MCL-21, MCL-22, MCL-23, MCL-24, MCL-29, MCL-30
func TestChangeLogRingsAndStatuses(t *testing.T) {
	h := newHarness(t)
	h.s.SetChangeLogCapacity(4, 2)
	s := h.stream("s")
	tp := h.topic(s, "t", 1)
	h.ok(RootUserID, &CreateConsumerGroup{Stream: num(s), Topic: num(tp), Name: "g"})
	latest := h.s.Changes(wire.ChangesRequest{Start: wire.ChangeStartLatest, Limit: 1})
	if latest.Status != wire.ChangeStatusOK || len(latest.Records) != 0 || latest.Cursor == "" {
		t.Fatalf("latest %+v", latest)
	}
	// Membership churn fills the activity ring only: resource history stays.
	for i := range uint64(5) {
		h.ok(RootUserID, &JoinConsumerGroup{Stream: num(s), Topic: num(tp), Group: num(0), Client: client(i + 1)})
	}
	if got := kinds(history(t, h.s, 0)); got != "member.joined member.joined" {
		t.Fatalf("earliest of every group starts where the log is whole: %s", got)
	}
	at := func(token string, groups uint16) wire.ChangeStatus {
		return h.s.Changes(wire.ChangesRequest{Start: wire.ChangeStartCursor, Token: token, Groups: groups, Limit: 10}).Status
	}
	resourceOnly := uint16(1<<wire.GroupStreams | 1<<wire.GroupTopics | 1<<wire.GroupConsumerGroups)
	if got := kinds(history(t, h.s, resourceOnly)); got != "stream.created topic.created consumer_group.created" {
		t.Fatalf("after churn: %s", got)
	}
	if at(latest.Cursor, resourceOnly) != wire.ChangeStatusOK || at(latest.Cursor, 0) != wire.ChangeStatusExpired {
		t.Fatal("a cursor before evicted membership records must be expired for members only")
	}
	c, _ := wire.ParseChangeCursor(latest.Cursor)
	ahead := wire.ChangeCursor{History: c.History, Seq: c.Seq, Op: h.s.LastOp() + 1}
	other := wire.ChangeCursor{History: c.History + 2, Seq: c.Seq, Op: c.Op}
	if at(ahead.String(), 0) != wire.ChangeStatusBehind || at(other.String(), 0) != wire.ChangeStatusReset {
		t.Fatal("behind / reset")
	}
	if p := h.s.Changes(wire.ChangesRequest{Start: wire.ChangeStartCursor, Token: other.String(), Limit: 1}); p.Cursor != "" {
		t.Fatal("reset carries no cursor")
	}
	h.stream("s2")
	h.stream("s3")
	if got := kinds(history(t, h.s, resourceOnly)); got != "topic.created consumer_group.created stream.created stream.created" {
		t.Fatalf("resource ring of 4: %s", got)
	}
}

// covers MCL-4, MCL-33, MCL-34
func TestChangeLogSnapshotAndReplicas(t *testing.T) {
	a, b := newHarness(t), newHarness(t)
	for _, h := range []*harness{a, b} {
		s := h.stream("s")
		h.topic(s, "t", 3)
		h.user("user1", nil)
	}
	if !bytes.Equal(a.s.Snapshot(), b.s.Snapshot()) {
		t.Fatal("two replicas applying the same ops differ")
	}
	mid := a.s.Changes(wire.ChangesRequest{Start: wire.ChangeStartEarliest, Limit: 2})
	restored, err := Restore(a.s.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	rest := restored.Changes(wire.ChangesRequest{Start: wire.ChangeStartCursor, Token: mid.Cursor, Limit: 10})
	if rest.Status != wire.ChangeStatusOK || kinds(append(mid.Records, rest.Records...)) != kinds(history(t, b.s, 0)) {
		t.Fatalf("cursor across restore: %+v", rest)
	}
}

// covers MCL-18, MCL-19, MCL-32
func TestChangeLogPageBytes(t *testing.T) {
	s := New()
	big := bytes.Repeat([]byte("x"), 700<<10)
	for i := range uint64(3) {
		s.lastOp = i + 1
		s.appendChange(Ctx{Op: i + 1, NowMicros: 10 + i}, wire.ChangeRecord{Group: wire.GroupUsers, Kind: "k", Body: big})
	}
	p := s.Changes(wire.ChangesRequest{Start: wire.ChangeStartEarliest, Limit: 1000})
	if len(p.Records) != 1 || !p.HasMore {
		t.Fatalf("a page passing 1 MiB must end: %d records, more %v", len(p.Records), p.HasMore)
	}
	huge := bytes.Repeat([]byte("y"), 2<<20)
	s.lastOp = 4
	s.appendChange(Ctx{Op: 4, NowMicros: 20}, wire.ChangeRecord{Group: wire.GroupUsers, Kind: "k", Body: huge})
	p = s.Changes(wire.ChangesRequest{Start: wire.ChangeStartEarliest, FromMicros: 20, Limit: 1000})
	if len(p.Records) != 1 || len(p.Records[0].Body) != len(huge) {
		t.Fatal("a record above 1 MiB comes alone")
	}
	for i := uint64(5); s.changes.resource.bodyBytes <= changeRingBodyBytesMax-len(huge); i++ {
		s.lastOp = i
		s.appendChange(Ctx{Op: i, NowMicros: 30}, wire.ChangeRecord{Group: wire.GroupUsers, Kind: "k", Body: huge})
	}
	s.lastOp++
	s.appendChange(Ctx{Op: s.lastOp, NowMicros: 40}, wire.ChangeRecord{Group: wire.GroupUsers, Kind: "k", Body: huge})
	if r := &s.changes.resource; r.bodyBytes > changeRingBodyBytesMax || r.evictedSeq == 0 {
		t.Fatalf("ring bodies %d bytes, evicted up to %d", r.bodyBytes, r.evictedSeq)
	}
}

// current reads every item of the present state, page by page.
func current(t *testing.T, s *State, groups uint16, limit uint32) (items []wire.ChangeRecord, anchor string, pages int) {
	t.Helper()
	q := wire.ChangesRequest{Start: wire.ChangeStartCurrent, Groups: groups, Limit: limit}
	for range 10_000 {
		p := s.Current(q)
		pages++
		if p.Status != wire.ChangeStatusOK || p.Cursor == "" || (anchor != "" && p.Cursor != anchor) {
			t.Fatalf("page %+v", p)
		}
		anchor = p.Cursor
		items = append(items, p.Records...)
		if !p.HasMore {
			return items, anchor, pages
		}
		q.Token = p.PageToken
	}
	t.Fatal("paging did not end")
	return nil, "", 0
}

// covers MCL-11, MCL-25
func TestChangeLogCurrentPages(t *testing.T) {
	f := newGroupFixture(t, 2)
	f.ok(RootUserID, &JoinConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Group: num(0), Client: client(1)})
	s2 := f.stream("s2")
	f.topic(s2, "t2", 1)
	f.user("user1", nil)
	for _, limit := range []uint32{1, 2, 1000} {
		items, anchor, _ := current(t, f.s, 0, limit)
		if got := kinds(items); got != "stream topic partitions consumer_group member stream topic partitions user user" {
			t.Fatalf("limit %d: %s", limit, got)
		}
		f.stream("s3")
		p := f.s.Changes(wire.ChangesRequest{Start: wire.ChangeStartCursor, Token: anchor, Limit: 10})
		if p.Status != wire.ChangeStatusOK || kinds(p.Records) != "stream.created" {
			t.Fatalf("history from the anchor: %+v", p)
		}
		f.ok(RootUserID, &DeleteStream{Stream: named("s3")})
	}
	items, _, _ := current(t, f.s, 1<<wire.GroupStreams|1<<wire.GroupTopics, 1)
	if kinds(items) != "stream topic stream topic" {
		t.Fatalf("streams and topics: %s", kinds(items))
	}
}

// covers MCL-20
func TestChangeLogCurrentWalkBound(t *testing.T) {
	s := New()
	s.lastOp = 1
	for i := range uint32(changeWalkEntriesMax + 10) {
		st := &Stream{ID: i, Name: "s", CreatedOp: 1, topicNames: map[string]uint32{}}
		s.streams = append(s.streams, st)
	}
	items, _, pages := current(t, s, 1<<wire.GroupUsers, 1000)
	if len(items) != 0 || pages != 2 {
		t.Fatalf("%d items in %d pages: a page ends after walking %d entries", len(items), pages, changeWalkEntriesMax)
	}
}

// covers MCL-9, MCL-13
func TestChangeLogTimeRange(t *testing.T) {
	h := newHarness(t) // op 1 at now+1000
	h.stream("a")      // op 2 at now+2000
	h.stream("b")      // op 3 at now+3000
	h.stream("c")      // op 4 at now+4000
	q := wire.ChangesRequest{Start: wire.ChangeStartEarliest, Limit: 10, FromMicros: h.now - 2000, ToMicros: h.now - 1000}
	p := h.s.Changes(q)
	if p.Status != wire.ChangeStatusOK || len(p.Records) != 2 || p.Records[0].Op != 2 || p.Records[1].Op != 3 {
		t.Fatalf("range page %+v", p)
	}
	q = wire.ChangesRequest{Start: wire.ChangeStartCursor, Token: p.Cursor, Limit: 10}
	if p = h.s.Changes(q); len(p.Records) != 1 || p.Records[0].Op != 4 {
		t.Fatalf("after the range %+v", p)
	}
}

// A cursor an empty log handed out continues the history that began since:
// a follower that started on a fresh node sees the first records, not
// reset. (covers MCL-9, MCL-24)
func TestChangeLogCursorOfEmptyLogContinues(t *testing.T) {
	h := &harness{t: t, s: New(), now: 1_700_000_000_000_000}
	empty := h.s.Changes(wire.ChangesRequest{Start: wire.ChangeStartEarliest, Limit: 10})
	if empty.Status != wire.ChangeStatusOK || len(empty.Records) != 0 || empty.Cursor == "" {
		t.Fatalf("empty log: %+v", empty)
	}
	h.ok(RootUserID, &CreateUser{Username: "iggy", PasswordHash: rootHash, Status: UserActive})
	p := h.s.Changes(wire.ChangesRequest{Start: wire.ChangeStartCursor, Token: empty.Cursor, Limit: 10})
	if p.Status != wire.ChangeStatusOK || kinds(p.Records) != "user.created" {
		t.Fatalf("after the first record: status %d, %s", p.Status, kinds(p.Records))
	}
	c, _ := wire.ParseChangeCursor(p.Cursor)
	other := wire.ChangeCursor{History: c.History + 2, Seq: 0, Op: c.Op}
	if q := h.s.Changes(wire.ChangesRequest{Start: wire.ChangeStartCursor, Token: other.String(), Limit: 10}); q.Status != wire.ChangeStatusReset {
		t.Fatalf("a cursor of another history at seq 0: status %d", q.Status)
	}
}
