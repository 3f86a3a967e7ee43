package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// obj is a decoded JSON object of an answer.
type obj = map[string]any

func (h *httpServer) getObj(t *testing.T, path, token string) obj {
	t.Helper()
	var o obj
	h.do(t, "GET", path, token, nil).ok(t, http.StatusOK, "GET "+path).json(t, &o)
	return o
}

// option returns a resource's option view for key.
func option(t *testing.T, resource obj, key string) obj {
	t.Helper()
	opts, _ := resource["options"].(obj)
	o, ok := opts[key].(obj)
	if !ok {
		t.Fatalf("no option %q in %v", key, resource["options"])
	}
	return o
}

// Streams and topics over HTTP: create bodies with nested options, flat PUT
// updates sent as UpdateResource, the refusals, partitions and segments,
// and the routes that are gone.
// covers TRAN-4, RES-7, RES-9, RES-10, RES-12, RES-15, RES-17, RES-18, RES-19, RES-20, RES-21, RES-22, RES-23, RES-24, RES-26, RES-43, RES-44
func TestHTTPStreamsTopicsAndUpdates(t *testing.T) {
	h := startHTTPServer(t, nil)
	tok := h.rootToken(t)

	var st obj
	h.do(t, "POST", "/streams", tok, obj{"name": "orders"}).ok(t, http.StatusOK, "create stream").json(t, &st)
	if st["name"] != "orders" || st["size"] != "0 B" {
		t.Fatalf("created stream %v", st)
	}
	h.do(t, "POST", "/streams", tok, obj{"name": "orders"}).fails(t, 400, 1012, "name", "duplicate stream")
	h.do(t, "POST", "/streams", tok, `{"name":"x","options":{},"encryption_key":"AAAA"}`).
		fails(t, 400, 3, "encryption_key", "an option beside options")
	h.do(t, "GET", "/streams/nope", tok, nil).fails(t, 404, 404, "", "missing stream")
	var list []obj
	h.do(t, "GET", "/streams", tok, nil).ok(t, http.StatusOK, "list streams").json(t, &list)
	if len(list) != 1 {
		t.Fatalf("streams %v", list)
	}

	h.do(t, "PUT", "/streams/orders", tok, obj{"name": "orders2"}).ok(t, http.StatusNoContent, "rename stream")
	h.do(t, "PUT", "/streams/orders2", tok, `{"name":"x","options":{}}`).fails(t, 400, 3, "options", "nested member")
	h.do(t, "PUT", "/streams/orders2", tok, `{"name":null}`).ok(t, http.StatusNoContent, "null name")
	if got := h.getObj(t, "/streams/orders2", tok); got["name"] != "orders2" {
		t.Fatalf("stream after null update %v", got)
	}

	var topic obj
	h.do(t, "POST", "/streams/orders2/topics", tok, obj{"name": "events", "partitions_count": 1,
		"options": obj{"message_expiry": "7 days", "segment_size": "1 MiB"}}).ok(t, http.StatusOK, "create topic").json(t, &topic)
	if _, fixed := topic["message_expiry"]; fixed {
		t.Fatalf("topic carries a fixed message_expiry field: %v", topic)
	}
	if o := option(t, topic, "message_expiry"); o["value"] != "604800000000" || o["provenance"] != "explicit" {
		t.Fatalf("message_expiry %v", o)
	}
	if o := option(t, topic, "compression_algorithm"); o["provenance"] != "derived" || o["value"] != "none" {
		t.Fatalf("compression_algorithm %v", o)
	}
	h.do(t, "POST", "/streams/orders2/topics", tok, `{"name":"t2","partitions_count":1,"message_expiry":5}`).
		fails(t, 400, 3, "message_expiry", "top-level option at create")
	h.do(t, "POST", "/streams/orders2/topics", tok, obj{"name": "events", "partitions_count": 1}).
		fails(t, 400, 2013, "name", "duplicate topic")
	h.do(t, "POST", "/streams/nope/topics", tok, obj{"name": "t", "partitions_count": 1}).
		fails(t, 404, 1009, "stream_id", "topic in a missing stream")
	var topics []obj
	h.do(t, "GET", "/streams/orders2/topics", tok, nil).ok(t, http.StatusOK, "list topics").json(t, &topics)
	if len(topics) != 1 || topics[0]["name"] != "events" {
		t.Fatalf("topics %v", topics)
	}
	h.do(t, "GET", "/streams/orders2/topics/nope", tok, nil).fails(t, 404, 404, "", "missing topic")

	path := "/streams/orders2/topics/events"
	h.do(t, "PUT", path, tok, obj{"message_expiry": "1 day", "max_topic_size": 2147483648}).ok(t, http.StatusNoContent, "update topic")
	topic = h.getObj(t, path, tok)
	if o := option(t, topic, "message_expiry"); o["value"] != "86400000000" {
		t.Fatalf("message_expiry after update %v", o)
	}
	if o := option(t, topic, "max_topic_size"); o["value"] != "2147483648" || o["provenance"] != "explicit" {
		t.Fatalf("max_topic_size after a numeric update %v", o)
	}
	h.do(t, "PUT", path, tok, obj{"name": "events2", "max_topic_size": nil}).ok(t, http.StatusNoContent, "rename topic")
	path = "/streams/orders2/topics/events2"
	topic = h.getObj(t, path, tok)
	if o := option(t, topic, "max_topic_size"); topic["name"] != "events2" || o["value"] != "2147483648" {
		t.Fatalf("a null left max_topic_size unchanged? %v", topic)
	}
	h.do(t, "PUT", path, tok, obj{"reset": []string{"message_expiry"}}).ok(t, http.StatusNoContent, "reset expiry")
	if o := option(t, h.getObj(t, path, tok), "message_expiry"); o["provenance"] != "derived" || o["value"] != "unlimited" {
		t.Fatalf("message_expiry after reset %v", o)
	}
	h.do(t, "PUT", path, tok, obj{"compression_algorithm": "gzip"}).fails(t, 400, 4103, "", "fixed key")
	h.do(t, "PUT", path, tok, obj{"reset": []string{"segment_size"}}).fails(t, 400, 4104, "", "not resettable")
	h.do(t, "PUT", path, tok, obj{"message_expiry": "1 h", "reset": []string{"message_expiry"}}).fails(t, 400, 3, "", "set and reset")
	h.do(t, "PATCH", path, tok, obj{"name": "x"}).ok(t, http.StatusMethodNotAllowed, "PATCH")

	r := h.do(t, "POST", path+"/partitions", tok, obj{"partitions_count": 2}).ok(t, http.StatusOK, "add partitions")
	if len(r.body) != 0 {
		t.Fatalf("add partitions answered %q", r.body)
	}
	h.do(t, "DELETE", path+"/partitions?partitions_count=1", tok, nil).ok(t, http.StatusNoContent, "delete partitions")
	if got := h.getObj(t, path, tok); got["partitions_count"] != float64(2) || len(got["partitions"].([]any)) != 2 {
		t.Fatalf("topic after partition changes %v", got)
	}
	h.do(t, "DELETE", path+"/partitions?partitions_count=0", tok, nil).fails(t, 400, 2015, "", "zero partitions")
	h.do(t, "DELETE", path+"/partitions?partitions_count=x", tok, nil).ok(t, http.StatusBadRequest, "bad query")
	h.do(t, "DELETE", path+"/partitions/0?segments_count=1", tok, nil).ok(t, http.StatusNoContent, "delete segments")
	h.do(t, "DELETE", path+"/partitions/9?segments_count=1", tok, nil).fails(t, 404, 3007, "partition_id", "segments of a missing partition")

	h.do(t, "DELETE", "/streams/orders2/purge", tok, nil).ok(t, http.StatusNotFound, "stream purge is gone")
	h.do(t, "DELETE", path+"/purge", tok, nil).ok(t, http.StatusNotFound, "topic purge is gone")
	h.do(t, "DELETE", path, tok, nil).ok(t, http.StatusNoContent, "delete topic")
	h.do(t, "DELETE", path, tok, nil).fails(t, 404, 2010, "topic_id", "delete a missing topic")
	h.do(t, "DELETE", "/streams/orders2", tok, nil).ok(t, http.StatusNoContent, "delete stream")
	h.do(t, "GET", "/streams/orders2", tok, nil).fails(t, 404, 404, "", "deleted stream")
}

// Messages, consumer groups and offsets over HTTP: base64 payloads and
// typed user headers round-trip, ack=none answers 202, partition-plane
// misses are the generic 404 and an unknown partition the typed one.
// covers TRAN-4, MSG-13, MSG-14, MSG-15, MSG-18, MSG-19
func TestHTTPMessagesGroupsAndOffsets(t *testing.T) {
	h := startHTTPServer(t, nil)
	tok := h.rootToken(t)
	h.do(t, "POST", "/streams", tok, obj{"name": "s"}).ok(t, http.StatusOK, "create stream")
	h.do(t, "POST", "/streams/s/topics", tok, obj{"name": "t", "partitions_count": 2}).ok(t, http.StatusOK, "create topic")
	msgs := "/streams/s/topics/t/messages"

	send := `{"partitioning":{"kind":"partition_id","value":"AAAAAA=="},"messages":[
		{"id":42,"payload":"aGVsbG8=","user_headers":[
			{"key":{"kind":"string","value":"a2V5XzE="},"value":{"kind":"int32","value":"AQAAAA=="}},
			{"key":{"kind":"string","value":"ZmxhZw=="},"value":{"kind":"bool","value":"AQ=="}}]},
		{"id":"0192d1c2-0000-7000-8000-000000000001","payload":"d29ybGQ="}]}`
	r := h.do(t, "POST", msgs, tok, send).ok(t, http.StatusCreated, "send")
	if r.header.Get("iggy-durability") != "replicated-memory" {
		t.Fatalf("durability header %q", r.header.Get("iggy-durability"))
	}
	var conf struct {
		Confirmations []obj `json:"confirmations"`
	}
	r.json(t, &conf)
	if len(conf.Confirmations) != 1 || conf.Confirmations[0]["partition_id"] != float64(0) || conf.Confirmations[0]["base_offset"] != float64(0) {
		t.Fatalf("confirmations %s", r.body)
	}
	r = h.do(t, "POST", msgs+"?ack=none", tok, `{"partitioning":{"kind":"partition_id","value":"AAAAAA=="},"messages":[{"payload":"bm9uZQ=="}]}`).
		ok(t, http.StatusAccepted, "send ack=none")
	if r.header.Get("iggy-durability") != "none" || len(r.body) != 0 {
		t.Fatalf("ack=none answer: header %q body %q", r.header.Get("iggy-durability"), r.body)
	}

	// The session's next request waits for the ack=none write, so all three are there.
	r = h.do(t, "GET", msgs+"?partition_id=0&kind=offset&value=0&count=10", tok, nil).ok(t, http.StatusOK, "poll")
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.UseNumber()
	var polled struct {
		PartitionID   uint32 `json:"partition_id"`
		CurrentOffset uint64 `json:"current_offset"`
		Count         int    `json:"count"`
		Messages      []struct {
			Header struct {
				ID              json.Number `json:"id"`
				Offset          uint64      `json:"offset"`
				OriginTimestamp uint64      `json:"origin_timestamp"`
				PayloadLength   int         `json:"payload_length"`
			} `json:"header"`
			Payload     string          `json:"payload"`
			UserHeaders json.RawMessage `json:"user_headers"`
		} `json:"messages"`
	}
	if err := dec.Decode(&polled); err != nil {
		t.Fatalf("poll body %s: %v", r.body, err)
	}
	if polled.Count != 3 || polled.CurrentOffset != 2 || len(polled.Messages) != 3 {
		t.Fatalf("poll %s", r.body)
	}
	m0, m1 := polled.Messages[0], polled.Messages[1]
	if m0.Header.ID != "42" || m0.Header.Offset != 0 || m0.Payload != "aGVsbG8=" || m0.Header.PayloadLength != 5 || m0.Header.OriginTimestamp == 0 {
		t.Fatalf("first message %+v", m0)
	}
	if m1.Header.ID != "2091557731002220587338811084510330881" || m1.Header.Offset != 1 || string(m1.UserHeaders) != "[]" {
		t.Fatalf("second message %+v", m1)
	}
	wantHeaders := `[{"key":{"kind":"string","value":"a2V5XzE="},"value":{"kind":"int32","value":"AQAAAA=="}},{"key":{"kind":"string","value":"ZmxhZw=="},"value":{"kind":"bool","value":"AQ=="}}]`
	if string(m0.UserHeaders) != wantHeaders {
		t.Fatalf("user headers %s", m0.UserHeaders)
	}
	var first obj
	h.do(t, "GET", msgs+"?partition_id=0&kind=last&count=1", tok, nil).ok(t, http.StatusOK, "poll last").json(t, &first)
	if ms := first["messages"].([]any); len(ms) != 1 || ms[0].(obj)["header"].(obj)["offset"] != float64(2) {
		t.Fatalf("poll last %v", first)
	}

	h.do(t, "GET", "/streams/nope/topics/t/messages", tok, nil).fails(t, 404, 404, "", "poll a missing stream")
	h.do(t, "GET", msgs+"?partition_id=7", tok, nil).fails(t, 404, 3007, "partition_id", "poll a missing partition")
	h.do(t, "GET", msgs+"?kind=sideways", tok, nil).ok(t, http.StatusBadRequest, "bad poll kind")
	h.do(t, "POST", msgs, tok, `{"partitioning":{"kind":"balanced","value":""},"messages":[]}`).fails(t, 400, 4009, "", "no messages")
	h.do(t, "POST", msgs, tok, `{"partitioning":{"kind":"partition_id","value":"AA=="},"messages":[{"payload":"eA=="}]}`).
		fails(t, 400, 4028, "", "short partition id")
	h.do(t, "POST", msgs, tok, `{"partitioning":{"kind":"balanced","value":""},"messages":[{"payload":"eA==",
		"user_headers":[{"key":{"kind":"string","value":"aw=="},"value":{"kind":"uint32","value":"AQ=="}}]}]}`).
		ok(t, http.StatusUnprocessableEntity, "malformed user header")
	h.do(t, "POST", msgs, tok, `{"partitioning":{"kind":"balanced","value":""},"messages":[{"payload":"***"}]}`).
		ok(t, http.StatusUnprocessableEntity, "payload not base64")

	offsets := "/streams/s/topics/t/consumer-offsets"
	h.do(t, "GET", offsets+"?consumer_id=1&partition_id=0", tok, nil).fails(t, 404, 404, "", "offset never stored")
	h.do(t, "PUT", offsets, tok, obj{"consumer_id": 1, "partition_id": 0, "offset": 1}).ok(t, http.StatusNoContent, "store offset")
	if o := h.getObj(t, offsets+"?consumer_id=1&partition_id=0", tok); o["stored_offset"] != float64(1) || o["current_offset"] != float64(2) {
		t.Fatalf("offset %v", o)
	}
	h.do(t, "DELETE", offsets+"/1?partition_id=0", tok, nil).ok(t, http.StatusNoContent, "delete offset")
	h.do(t, "DELETE", offsets+"/1?partition_id=0", tok, nil).fails(t, 404, 3021, "", "delete a missing offset")
	h.do(t, "GET", "/streams/s/topics/nope/consumer-offsets", tok, nil).fails(t, 404, 404, "", "offset of a missing topic")

	groups := "/streams/s/topics/t/consumer-groups"
	var g obj
	h.do(t, "POST", groups, tok, obj{"name": "g1"}).ok(t, http.StatusOK, "create group").json(t, &g)
	if g["name"] != "g1" || g["partitions_count"] != float64(2) || len(g["members"].([]any)) != 0 {
		t.Fatalf("group %v", g)
	}
	h.do(t, "POST", groups, tok, obj{"name": "g1"}).fails(t, 400, 5004, "name", "duplicate group")
	var gs []obj
	h.do(t, "GET", groups, tok, nil).ok(t, http.StatusOK, "list groups").json(t, &gs)
	if len(gs) != 1 {
		t.Fatalf("groups %v", gs)
	}
	if got := h.getObj(t, groups+"/g1", tok); got["members_count"] != float64(0) {
		t.Fatalf("group details %v", got)
	}
	h.do(t, "GET", groups+"/nope", tok, nil).fails(t, 404, 404, "", "missing group")
	h.do(t, "DELETE", groups+"/g1", tok, nil).ok(t, http.StatusNoContent, "delete group")
	h.do(t, "DELETE", groups+"/g1", tok, nil).fails(t, 404, 5000, "", "delete a missing group")
}

// Users, tokens and the system routes: logins with password and token,
// self reads, permissions, root protection, the snapshot permission, and
// the HTTP-layer answers (404 route, 401 bearer, 413, 415, CORS).
// covers TRAN-4, TRAN-9, AUTH-1, AUTH-2, AUTH-5, AUTH-11, RES-4, RES-19, RES-22
func TestHTTPUsersTokensAndSystem(t *testing.T) {
	h := startHTTPServer(t, nil)
	var id identity
	h.do(t, "POST", "/users/login", "", obj{"username": rootUsername, "password": rootPassword, "version": "0.11.0"}).
		ok(t, http.StatusOK, "login with an old client version").json(t, &id)
	tok := id.AccessToken.Token
	if id.UserID != 0 {
		t.Fatalf("root login as user %d", id.UserID)
	}
	h.do(t, "POST", "/users/login", "", obj{"username": rootUsername, "password": "wrong"}).fails(t, 400, 42, "", "wrong password")
	h.do(t, "GET", "/streams", "", nil).fails(t, 401, 77, "", "no bearer")
	h.do(t, "GET", "/streams", "not-a-token", nil).fails(t, 401, 40, "", "garbage bearer")

	var alice obj
	h.do(t, "POST", "/users", tok, obj{"username": "alice", "password": "alice-pass", "status": "active",
		"permissions": obj{"global": obj{"read_servers": true, "read_streams": true}}}).ok(t, http.StatusOK, "create user").json(t, &alice)
	if alice["permissions"].(obj)["global"].(obj)["read_servers"] != true {
		t.Fatalf("created user %v", alice)
	}
	h.do(t, "POST", "/users", tok, obj{"username": "bob", "password": "bob-pass", "status": "active", "theme": "dark"}).
		fails(t, 400, 3, "theme", "an option beside options")
	h.do(t, "POST", "/users", tok, obj{"username": "alice", "password": "alice-pass", "status": "active"}).
		fails(t, 400, 46, "username", "duplicate user")
	h.do(t, "GET", "/users/99", tok, nil).fails(t, 404, 404, "", "missing user")
	var users []obj
	h.do(t, "GET", "/users", tok, nil).ok(t, http.StatusOK, "list users").json(t, &users)
	if len(users) != 2 {
		t.Fatalf("users %v", users)
	}
	if u := h.getObj(t, "/users/alice", tok); u["status"] != "active" || u["id"] != alice["id"] {
		t.Fatalf("user by name %v", u)
	}

	aliceTok := h.httpLogin(t, "alice", "alice-pass").AccessToken.Token
	if me := h.getObj(t, "/users/me", aliceTok); me["username"] != "alice" {
		t.Fatalf("me %v", me)
	}
	h.do(t, "GET", "/users", aliceTok, nil).fails(t, 403, 41, "", "list users without read_users")
	h.getObj(t, "/stats", aliceTok)
	h.do(t, "POST", "/users", tok, obj{"username": "nobody", "password": "nobody-pass", "status": "active"}).
		ok(t, http.StatusOK, "create a user without permissions")
	nobody := h.httpLogin(t, "nobody", "nobody-pass").AccessToken.Token
	h.do(t, "GET", "/stats", nobody, nil).fails(t, 403, 41, "", "stats without read_servers")
	h.do(t, "GET", "/clients", nobody, nil).fails(t, 403, 41, "", "clients without read_servers")
	h.do(t, "POST", "/streams", nobody, obj{"name": "x"}).fails(t, 403, 41, "", "create stream without manage_streams")
	h.do(t, "PUT", "/users/alice", nobody, obj{"username": "mallory"}).fails(t, 403, 41, "", "update a user without manage_users")
	h.do(t, "GET", "/cluster/metadata", "", nil).fails(t, 401, 77, "", "cluster metadata without a bearer")
	h.do(t, "GET", "/options/topic", "", nil).fails(t, 401, 77, "", "options without a bearer")
	h.do(t, "POST", "/snapshot", aliceTok, obj{"compression": "Deflated", "snapshot_types": []string{"All"}}).
		fails(t, 403, 41, "", "snapshot with read_servers only")
	r := h.do(t, "POST", "/snapshot", tok, obj{"compression": "Deflated", "snapshot_types": []string{"Test"}}).ok(t, http.StatusOK, "snapshot")
	if r.header.Get("Content-Type") != "application/zip" || !bytes.HasPrefix(r.body, []byte("PK")) ||
		!strings.Contains(r.header.Get("Content-Disposition"), "iggy_snapshot_") {
		t.Fatalf("snapshot answer %v (%d bytes)", r.header, len(r.body))
	}

	h.do(t, "PUT", "/users/alice", tok, obj{"status": "inactive"}).ok(t, http.StatusNoContent, "deactivate")
	// The node answers a password login of an inactive user as invalid
	// credentials (eviction 9, so nothing tells which users exist); HTTP
	// passes that through.
	h.do(t, "POST", "/users/login", "", obj{"username": "alice", "password": "alice-pass"}).fails(t, 400, 42, "", "inactive login")
	h.do(t, "PUT", "/users/alice", tok, obj{"status": "active", "username": "alice2"}).ok(t, http.StatusNoContent, "reactivate and rename")
	h.do(t, "PUT", "/users/alice2", tok, `{"username":"x","options":{}}`).fails(t, 400, 3, "options", "nested user member")
	h.do(t, "PUT", "/users/0", tok, obj{"status": "inactive"}).fails(t, 400, 4108, "", "root deactivating itself")
	h.do(t, "PUT", "/users/alice2/password", tok, obj{"current_password": "alice-pass", "new_password": "alice-new"}).
		ok(t, http.StatusNoContent, "change password")
	h.httpLogin(t, "alice2", "alice-new")
	h.do(t, "PUT", "/users/alice2/permissions", tok, obj{"permissions": nil}).ok(t, http.StatusNoContent, "clear permissions")
	if u := h.getObj(t, "/users/alice2", tok); u["permissions"] != nil {
		t.Fatalf("permissions after clearing %v", u["permissions"])
	}

	var pat struct {
		Token string `json:"token"`
	}
	h.do(t, "POST", "/personal-access-tokens", tok, obj{"name": "ci", "expiry": 0}).ok(t, http.StatusOK, "create PAT").json(t, &pat)
	h.do(t, "POST", "/personal-access-tokens", tok, obj{"name": "ci"}).fails(t, 400, 51, "name", "duplicate PAT")
	var pats []obj
	h.do(t, "GET", "/personal-access-tokens", tok, nil).ok(t, http.StatusOK, "list PATs").json(t, &pats)
	if len(pats) != 1 || pats[0]["name"] != "ci" || pats[0]["expiry_at"] != nil {
		t.Fatalf("PATs %v", pats)
	}
	var patID identity
	h.do(t, "POST", "/personal-access-tokens/login", "", obj{"token": pat.Token}).ok(t, http.StatusOK, "PAT login").json(t, &patID)
	if patID.UserID != 0 {
		t.Fatalf("PAT login as %d", patID.UserID)
	}
	h.do(t, "GET", "/streams", pat.Token, nil).ok(t, http.StatusOK, "raw PAT bearer")
	h.do(t, "DELETE", "/personal-access-tokens/ci", tok, nil).ok(t, http.StatusNoContent, "delete PAT")
	h.do(t, "GET", "/streams", pat.Token, nil).fails(t, 401, 40, "", "deleted PAT bearer")
	h.do(t, "POST", "/personal-access-tokens/login", "", obj{"token": pat.Token}).fails(t, 401, 53, "", "deleted PAT login")

	h.do(t, "DELETE", "/users/alice2", tok, nil).ok(t, http.StatusNoContent, "delete user")
	h.do(t, "DELETE", "/users/alice2", tok, nil).fails(t, 404, 20, "", "delete a missing user")

	if st := h.getObj(t, "/stats", tok); st["iggy_server_version"] == "" || st["clients_count"].(float64) < 1 {
		t.Fatalf("stats %v", st)
	}
	var clients []obj
	h.do(t, "GET", "/clients", tok, nil).ok(t, http.StatusOK, "clients").json(t, &clients)
	var httpClient obj
	for _, c := range clients {
		if c["transport"] == "http" && c["user_id"] == float64(0) {
			httpClient = c
		}
	}
	if httpClient == nil {
		t.Fatalf("no HTTP client of root in %v", clients)
	}
	h.getObj(t, fmt.Sprintf("/clients/%v", httpClient["client_id"]), tok)
	h.do(t, "GET", "/clients/4000000000", tok, nil).fails(t, 404, 404, "", "missing client")
	cm := h.getObj(t, "/cluster/metadata", tok)
	node := cm["nodes"].([]any)[0].(obj)
	if node["role"] != "leader" || node["status"] != "healthy" || !strings.HasSuffix(h.base, fmt.Sprintf(":%v", node["endpoints"].(obj)["http"])) {
		t.Fatalf("cluster metadata %v", cm)
	}
	var catalog []obj
	h.do(t, "GET", "/options/topic", tok, nil).ok(t, http.StatusOK, "topic options").json(t, &catalog)
	found := false
	for _, o := range catalog {
		found = found || (o["key"] == "message_expiry" && o["updatable"] == true && o["kind"] == "uint64")
	}
	if !found {
		t.Fatalf("topic catalog %v", catalog)
	}
	h.do(t, "GET", "/options/user", tok, nil).ok(t, http.StatusOK, "user options")
	h.do(t, "GET", "/options/galaxy", tok, nil).ok(t, http.StatusBadRequest, "unknown scope")

	r = h.do(t, "GET", "/no/such/route", tok, nil).ok(t, http.StatusNotFound, "unknown route")
	if len(r.body) != 0 {
		t.Fatalf("unknown route body %q", r.body)
	}
	h.do(t, "POST", "/streams", tok, strings.Repeat(" ", 3_000_000)+`{"name":"big"}`).ok(t, http.StatusRequestEntityTooLarge, "body over the cap")
	req, _ := http.NewRequest("POST", h.base+"/streams", strings.NewReader(`{"name":"x"}`))
	req.Header.Set("Authorization", "Bearer "+tok)
	if resp, err := h.client.Do(req); err != nil || resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("no content type: %v %v", resp, err)
	}
	req, _ = http.NewRequest("OPTIONS", h.base+"/streams", nil)
	req.Header.Set("Origin", "https://ui.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := h.client.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("CORS preflight: %v %v", resp, err)
	}

	h.do(t, "DELETE", "/users/logout", tok, nil).ok(t, http.StatusNoContent, "logout")
	h.do(t, "GET", "/streams", tok, nil).fails(t, 401, 40, "", "token after logout")
	h.do(t, "POST", "/users/refresh-token", "", obj{"token": id.RefreshToken.Token}).fails(t, 401, 40, "", "refresh after logout")
}
