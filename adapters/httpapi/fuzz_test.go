package httpapi

import (
	"bytes"
	"testing"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// parsed runs parse on body read as a JSON object; false when either step
// refuses it.
func parsed[T any](body []byte, parse func(object) (T, *apiError)) (T, bool) {
	var zero T
	o, e := parseObject(body)
	if e != nil {
		return zero, false
	}
	v, e := parse(o)
	return v, e == nil
}

// Fuzz targets for the JSON bodies that become binary requests: whatever
// the body, parsing never panics, and a body that parses encodes into a
// request the node's own decoder accepts and reads back the same.

func FuzzSendBody(f *testing.F) {
	f.Add([]byte(`{"partitioning":{"kind":"partition_id","value":"AAAAAA=="},"messages":[{"id":0,"payload":"aGVsbG8="}]}`))
	f.Add([]byte(`{"partitioning":{"kind":"messages_key","value":"a2V5"},"messages":[{"id":"0192d1c2-0000-7000-8000-000000000001","payload":"d29ybGQ=",
		"user_headers":[{"key":{"kind":"string","value":"a2V5XzE="},"value":{"kind":"int32","value":"AAAAAA=="}}]}]}`))
	f.Add([]byte(`{"partitioning":{"kind":"balanced","value":""},"messages":[{"payload":"eA==","user_headers":"CQk="}]}`))
	f.Add([]byte(`{"partitioning":{"kind":"balanced","value":""},"messages":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		b, ok := parsed(body, func(o object) (sendBody, *apiError) { return parseSendBody(o, 1) })
		if !ok {
			return
		}
		rec, code := batch.Build(b.messages)
		if code != wire.OK {
			return
		}
		req := wire.SendMessagesRequest{StreamID: wire.NumericID(1), TopicID: wire.NamedID("t"),
			Partitioning: b.partitioning, MessagesCount: uint32(len(b.messages)), Batch: rec}
		back, code := wire.DecodeSendMessagesRequest(encode(req.Encode))
		if code != wire.OK || back.MessagesCount != req.MessagesCount || back.Partitioning.Kind != req.Partitioning.Kind {
			t.Fatalf("round trip: %v %+v", code, back)
		}
		if _, code := batch.Validate(back.Batch); code != wire.OK {
			t.Fatalf("batch does not validate: %v", code)
		}
	})
}

func FuzzCreateTopicBody(f *testing.F) {
	f.Add([]byte(`{"name":"t","partitions_count":3,"options":{"message_expiry":"7 days","max_topic_size":1073741824}}`))
	f.Add([]byte(`{"name":"t","partitions_count":1,"message_expiry":5}`))
	f.Add([]byte(`{"name":"t","partitions_count":1,"options":{"enforce_fsync":true,"segment_size":[1]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, ok := parsed(body, func(o object) (wire.CreateTopicRequest, *apiError) {
			return parseCreateTopic(wire.NumericID(0), o)
		})
		if !ok {
			return
		}
		back, code := wire.DecodeCreateTopicRequest(encode(req.Encode))
		if (code != wire.OK && code != wire.TooManyPartitions) || (code == wire.OK && (back.Name != req.Name || len(back.Options) != len(req.Options))) {
			t.Fatalf("round trip: %v %+v vs %+v", code, back, req)
		}
	})
}

func FuzzCreateStreamBody(f *testing.F) {
	f.Add([]byte(`{"name":"s"}`))
	f.Add([]byte(`{"name":"s","options":{"encryption_key":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, ok := parsed(body, parseCreateStream)
		if !ok {
			return
		}
		back, code := wire.DecodeCreateStreamRequest(encode(req.Encode))
		if code != wire.OK || back.Name != req.Name || len(back.Options) != len(req.Options) {
			t.Fatalf("round trip: %v %+v vs %+v", code, back, req)
		}
	})
}

func FuzzCreateUserBody(f *testing.F) {
	f.Add([]byte(`{"username":"user1","password":"secret","status":"active","permissions":{"global":{"read_streams":true},"streams":{"1":{"read_stream":true,"topics":{"2":{"poll_messages":true}}}}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, ok := parsed(body, parseCreateUser)
		if !ok {
			return
		}
		back, code := wire.DecodeCreateUser(encode(req.Encode))
		if code != wire.OK || back.Username != req.Username || !bytes.Equal(back.Options, req.Options) {
			t.Fatalf("round trip: %v %+v vs %+v", code, back, req)
		}
	})
}

func FuzzUpdateBody(f *testing.F) {
	f.Add([]byte(`{"name":"renamed","message_expiry":"1 day","reset":["max_topic_size"]}`))
	f.Add([]byte(`{"name":"s","options":{}}`))
	f.Add([]byte(`{"username":"u","status":"inactive","reset":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		o, e := parseObject(body)
		if e != nil {
			return
		}
		for _, cat := range []*wire.Catalog{wire.TopicCatalog, wire.StreamCatalog, wire.UserCatalog} {
			set, reset, e := updateBody(cat, o)
			if e != nil {
				continue
			}
			q := wire.UpdateResourceRequest{Scope: cat.Scope, Stream: wire.NumericID(1), Topic: wire.NumericID(2),
				User: wire.NumericID(3), Set: set, Reset: reset}
			back, code := wire.DecodeUpdateResourceRequest(encode(q.Encode))
			if code != wire.OK || len(back.Set) != len(set) || len(back.Reset) != len(reset) {
				t.Fatalf("round trip: %v %+v vs %+v", code, back, q)
			}
		}
	})
}
