package httpapi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/iggygo/iggy/wire"
)

func mustObject(t *testing.T, body string) object {
	t.Helper()
	o, e := parseObject([]byte(body))
	if e != nil {
		t.Fatalf("parse %s: %v", body, e)
	}
	return o
}

func wantCode(t *testing.T, e *apiError, status int, id wire.Code, field string) {
	t.Helper()
	if e == nil {
		t.Fatalf("no error, want %d/%d field %q", status, id, field)
	}
	if e.status != status || e.id != uint32(id) || e.field != field || e.plain {
		t.Fatalf("got status %d id %d field %q plain %v, want %d/%d field %q", e.status, e.id, e.field, e.plain, status, id, field)
	}
}

// A PUT body: a value sets its key, null and absence leave it, reset lists
// keys; identity keys and option keys travel alike in the set block.
// covers RES-19, RES-20, RES-21, RES-24
func TestUpdateBodySetsResetsAndSkipsNull(t *testing.T) {
	o := mustObject(t, `{"name":"renamed","message_expiry":"7 days","max_topic_size":1048576000,
		"compression_algorithm":null,"enforce_fsync":true,"reset":["segment_size"]}`)
	set, reset, e := updateBody(wire.TopicCatalog, o)
	if e != nil {
		t.Fatalf("update body: %v", e)
	}
	want := wire.Options{
		{Key: "enforce_fsync", Kind: wire.KindBool, Value: []byte{1}},
		{Key: "max_topic_size", Kind: wire.KindUint64, Value: binary.LittleEndian.AppendUint64(nil, 1048576000)},
		{Key: "message_expiry", Kind: wire.KindString, Value: []byte("7 days")},
		{Key: "name", Kind: wire.KindString, Value: []byte("renamed")},
	}
	if len(set) != len(want) {
		t.Fatalf("set %+v, want %+v", set, want)
	}
	for i := range want {
		if set[i].Key != want[i].Key || set[i].Kind != want[i].Kind || !bytes.Equal(set[i].Value, want[i].Value) {
			t.Fatalf("set[%d] = %+v, want %+v", i, set[i], want[i])
		}
	}
	if len(reset) != 1 || reset[0] != "segment_size" {
		t.Fatalf("reset %v", reset)
	}
	// The request encodes and decodes back as the node reads it.
	q := wire.UpdateResourceRequest{Scope: wire.ScopeTopic, Stream: wire.NumericID(1), Topic: wire.NamedID("t"), Set: set, Reset: reset}
	back, code := wire.DecodeUpdateResourceRequest(encode(q.Encode))
	if code != wire.OK || len(back.Set) != len(set) || back.Reset[0] != "segment_size" {
		t.Fatalf("round trip: %v %+v", code, back)
	}
}

// A nested member of a PUT body is InvalidCommand naming it, such as the
// {"name": ..., "options": {}} older SDKs send.
// covers RES-22, RES-23
func TestUpdateBodyRefusesNestedMembers(t *testing.T) {
	for body, field := range map[string]string{
		`{"name":"s","options":{}}`:      "options",
		`{"name":"s","tags":["a"]}`:      "tags",
		`{"reset":"message_expiry"}`:     "reset",
		`{"reset":["a","a"]}`:            "reset",
		`{"reset":[""]}`:                 "reset",
		`{"message_expiry":{"v":1}}`:     "message_expiry",
		`{"reset":[1],"name":"renamed"}`: "reset",
	} {
		_, _, e := updateBody(wire.StreamCatalog, mustObject(t, body))
		wantCode(t, e, http.StatusBadRequest, wire.InvalidCommand, field)
	}
}

// A create body takes a nested options object; an option key beside it is
// refused with InvalidCommand naming the member.
// covers RES-17, RES-18
func TestCreateBodiesTakeNestedOptionsOnly(t *testing.T) {
	q, e := parseCreateTopic(wire.NumericID(0), mustObject(t,
		`{"name":"t","partitions_count":3,"options":{"message_expiry":"1 h","replication_factor":1}}`))
	if e != nil {
		t.Fatalf("create topic: %v", e)
	}
	if q.PartitionsCount != 3 || q.Name != "t" || len(q.Options) != 2 {
		t.Fatalf("request %+v", q)
	}
	if rf, _ := q.Options.Get("replication_factor"); rf.Kind != wire.KindUint8 || rf.Value[0] != 1 {
		t.Fatalf("replication_factor encoded as %+v", rf)
	}
	for body, field := range map[string]string{
		`{"name":"t","partitions_count":1,"message_expiry":5}`:                   "message_expiry",
		`{"name":"t","partitions_count":1,"options":{},"max_topic_size":"1 GB"}`: "max_topic_size",
		`{"name":"t","partitions_count":1,"options":{"segment_size":[1]}}`:       "segment_size",
		`{"name":"t","partitions_count":1,"options":"gzip"}`:                     "options",
	} {
		_, e := parseCreateTopic(wire.NumericID(0), mustObject(t, body))
		wantCode(t, e, http.StatusBadRequest, wire.InvalidCommand, field)
	}
	_, e = parseCreateStream(mustObject(t, `{"name":"s","encryption_key":"AAAA"}`))
	wantCode(t, e, http.StatusBadRequest, wire.InvalidCommand, "encryption_key")
	_, e = parseCreateUser(mustObject(t, `{"username":"u","password":"p","status":"active","theme":"dark"}`))
	wantCode(t, e, http.StatusBadRequest, wire.InvalidCommand, "theme")
	s, e := parseCreateStream(mustObject(t, `{"name":"s","options":{"encryption_key":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="}}`))
	if e != nil || s.Options[0].Kind != wire.KindRaw || len(s.Options[0].Value) != 32 {
		t.Fatalf("raw option from base64: %+v %v", s.Options, e)
	}
}

func TestCreateBodyShapeErrorsArePlain422(t *testing.T) {
	for _, body := range []string{`{"partitions_count":1}`, `{"name":5,"partitions_count":1}`, `{"name":"t","partitions_count":-1}`} {
		_, e := parseCreateTopic(wire.NumericID(0), mustObject(t, body))
		if e == nil || !e.plain || e.status != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %+v, want a plain 422", body, e)
		}
	}
	_, e := parseCreateTopic(wire.NumericID(0), mustObject(t, `{"name":"","partitions_count":1}`))
	wantCode(t, e, http.StatusBadRequest, wire.InvalidTopicName, "name")
}

func TestParseObjectFrameworkRejections(t *testing.T) {
	if _, e := parseObject([]byte(`{"a":`)); e == nil || e.status != http.StatusBadRequest || !e.plain {
		t.Fatalf("syntax error: %+v", e)
	}
	if _, e := parseObject([]byte(`[1]`)); e == nil || e.status != http.StatusUnprocessableEntity || !e.plain {
		t.Fatalf("not an object: %+v", e)
	}
}

// covers MSG-15
func TestSendBodyRules(t *testing.T) {
	b, e := parseSendBody(mustObject(t, `{"partitioning":{"kind":"messages_key","value":"a2V5"},
		"messages":[{"id":7,"payload":"aGVsbG8="},{"id":"340282366920938463463374607431768211455","payload":"eA=="},
		{"payload":"eQ==","user_headers":[{"key":{"kind":"string","value":"aw=="},"value":{"kind":"uint16","value":"AQI="}}]}]}`), 42)
	if e != nil {
		t.Fatalf("send body: %v", e)
	}
	if b.partitioning.Kind != wire.PartitioningMessagesKey || string(b.partitioning.Key) != "key" || len(b.messages) != 3 {
		t.Fatalf("parsed %+v", b)
	}
	if b.messages[0].ID[0] != 7 || messageIDText(b.messages[1].ID) != "340282366920938463463374607431768211455" {
		t.Fatalf("ids %v %v", b.messages[0].ID, b.messages[1].ID)
	}
	if b.messages[2].ID == ([16]byte{}) || b.messages[2].OriginTimestamp != 42 {
		t.Fatalf("absent id must be minted, origin stamped: %+v", b.messages[2])
	}
	opts, code := wire.DecodeOptions(b.messages[2].Headers)
	if code != wire.OK || opts[0].Key != "k" || opts[0].Kind != wire.KindUint16 {
		t.Fatalf("headers %+v %v", opts, code)
	}

	_, e = parseSendBody(mustObject(t, `{"partitioning":{"kind":"balanced","value":""},"messages":[]}`), 0)
	wantCode(t, e, http.StatusBadRequest, wire.InvalidMessagesCount, "")
	for _, p := range []string{`{"kind":"partition_id","value":""}`, `{"kind":"partition_id","value":"AAA="}`,
		`{"kind":"messages_key","value":""}`} {
		_, e = parseSendBody(mustObject(t, `{"partitioning":`+p+`,"messages":[{"payload":"eA=="}]}`), 0)
		wantCode(t, e, http.StatusBadRequest, wire.InvalidKeyValueLength, "")
	}
	for _, m := range []string{`{"payload":""}`, `{"payload":"!!"}`, `{}`, `{"id":"xyz","payload":"eA=="}`,
		`{"id":-1,"payload":"eA=="}`, `{"payload":"eA==","user_headers":[{"key":{"kind":"int8","value":"aw=="},"value":{"kind":"raw","value":"aw=="}}]}`,
		`{"payload":"eA==","user_headers":[{"key":{"kind":"string","value":"aw=="},"value":{"kind":"uint32","value":"AQI="}}]}`} {
		_, e = parseSendBody(mustObject(t, `{"partitioning":{"kind":"balanced","value":""},"messages":[`+m+`]}`), 0)
		if e == nil || !e.plain || e.status != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %+v, want a plain 422", m, e)
		}
	}
}

func TestMessageIDForms(t *testing.T) {
	for raw, want := range map[string]string{
		`12`:                                     "12",
		`"12"`:                                   "12",
		`"0192d1c2-0000-7000-8000-000000000001"`: "2091557731002220587338811084510330881",
		`"0192d1c2000070008000000000000001"`:     "2091557731002220587338811084510330881",
	} {
		id, ok := parseMessageID(json.RawMessage(raw))
		if !ok || messageIDText(id) != want {
			t.Fatalf("%s -> %s (%v), want %s", raw, messageIDText(id), ok, want)
		}
	}
	for _, raw := range []string{`"340282366920938463463374607431768211456"`, `"0192d1c2"`, `1.5`, `"g192d1c2000070008000000000000001"`} {
		if _, ok := parseMessageID(json.RawMessage(raw)); ok {
			t.Fatalf("%s accepted", raw)
		}
	}
}

func TestHeadersViewRoundTrip(t *testing.T) {
	block, e := userHeaders(json.RawMessage(`[{"key":{"kind":"string","value":"aw=="},"value":{"kind":"string","value":"dg=="}}]`))
	if e != nil {
		t.Fatal(e)
	}
	out, _ := json.Marshal(headersView(block))
	if string(out) != `[{"key":{"kind":"string","value":"aw=="},"value":{"kind":"string","value":"dg=="}}]` {
		t.Fatalf("view %s", out)
	}
	if v := headersView([]byte{9, 9}); v != "CQk=" {
		t.Fatalf("undecodable block must come back as base64, got %v", v)
	}
	raw, e := userHeaders(json.RawMessage(`"CQk="`))
	if e != nil || !bytes.Equal(raw, []byte{9, 9}) {
		t.Fatalf("raw block %v %v", raw, e)
	}
}

// A name with a control or bidi formatting character is refused with the
// name's code and field before it reaches the node (issue 11 item 8); the
// node refuses it too, for every transport.
func TestCreateBodiesRefuseControlCharactersInNames(t *testing.T) {
	for _, name := range []string{`a\u0000b`, `x\u202ey`, `tab\t`, `del\u007f`, `c1\u0085`} {
		_, e := parseCreateStream(mustObject(t, `{"name":"`+name+`"}`))
		wantCode(t, e, http.StatusBadRequest, wire.InvalidStreamName, "name")
		_, e = parseCreateTopic(wire.NumericID(0), mustObject(t, `{"name":"`+name+`","partitions_count":1}`))
		wantCode(t, e, http.StatusBadRequest, wire.InvalidTopicName, "name")
		_, e = parseCreateUser(mustObject(t, `{"username":"u`+name+`","password":"secret","status":"active"}`))
		wantCode(t, e, http.StatusBadRequest, wire.InvalidUsername, "username")
	}
}
