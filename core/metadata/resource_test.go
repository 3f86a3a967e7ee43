package metadata

import (
	"reflect"
	"testing"

	"github.com/iggygo/iggy/wire"
)

func topicWithOptions(h *harness) (uint32, *Topic) {
	s := h.stream("s")
	c := newTopic(num(s), "t", 1)
	c.ExplicitOptions = block(opt("compression_algorithm", kindString, []byte("gzip")), opt(keyMessageExpiry, kindUint64, u64(5)))
	c.DerivedOptions = block(opt(keyMaxTopicSize, kindUint64, u64(^uint64(0))), opt(keySegmentSize, kindUint64, u64(1<<20)))
	c.MessageExpiry, c.CompressionAlgorithm = 5, compressionGzip
	h.ok(RootUserID, c)
	_, tp, _ := h.s.Topic(num(s), num(0))
	return s, tp
}

// covers RES-5, RES-6, RES-9, RES-12, RES-14
func TestUpdateResourceTopicSetAndReset(t *testing.T) {
	h := newHarness(t)
	s, tp := topicWithOptions(h)
	h.ok(RootUserID, &UpdateResource{Scope: ScopeTopic, Stream: num(s), Topic: num(0), Name: "renamed",
		Set:   block(opt(keyMaxTopicSize, kindUint64, u64(1<<30))),
		Reset: block(opt(keyMessageExpiry, kindUint64, u64(^uint64(0))))})
	wantExplicit := block(opt("compression_algorithm", kindString, []byte("gzip")), opt(keyMaxTopicSize, kindUint64, u64(1<<30)))
	wantDerived := block(opt(keyMessageExpiry, kindUint64, u64(^uint64(0))), opt(keySegmentSize, kindUint64, u64(1<<20)))
	if tp.Name != "renamed" || tp.MaxTopicSize != 1<<30 || tp.MessageExpiry != ^uint64(0) {
		t.Fatalf("topic %+v", tp)
	}
	if !reflect.DeepEqual(tp.ExplicitOptions, wantExplicit) || !reflect.DeepEqual(tp.DerivedOptions, wantDerived) {
		t.Fatalf("explicit %x\nderived %x", tp.ExplicitOptions, tp.DerivedOptions)
	}
	// An update that names nothing keeps everything (RES-6).
	before := h.s.Snapshot()
	h.ok(RootUserID, &UpdateResource{Scope: ScopeTopic, Stream: num(s), Topic: num(0)})
	h.s.lastOp--
	if after := h.s.Snapshot(); !reflect.DeepEqual(before, after) {
		t.Fatal("empty update changed the topic")
	}
	h.s.lastOp++
}

// covers RES-7, RES-10, RES-12
func TestUpdateResourceTopicRefusals(t *testing.T) {
	h := newHarness(t)
	s, _ := topicWithOptions(h)
	upd := func(set, reset []byte) *UpdateResource {
		return &UpdateResource{Scope: ScopeTopic, Stream: num(s), Topic: num(0), Set: set, Reset: reset}
	}
	expiry := block(opt(keyMessageExpiry, kindUint64, u64(1)))
	h.code(RootUserID, upd(expiry, expiry), wire.InvalidCommand)
	for _, key := range topicCreateOnly {
		h.code(RootUserID, upd(block(opt(key, kindString, []byte("x"))), nil), wire.OptionNotUpdatable)
		h.code(RootUserID, upd(nil, block(opt(key, kindString, []byte("x")))), wire.OptionNotResettable)
	}
	h.code(RootUserID, upd(block(opt("nope", kindString, []byte("x"))), nil), wire.UnsupportedOptionKey)
	h.code(RootUserID, upd(block(opt(keyMessageExpiry, kindString, []byte("7 days"))), nil), wire.InvalidOptionValue)
	h.code(RootUserID, upd(block(opt(keyMaxTopicSize, kindUint64, u64(4096))), nil), wire.InvalidTopicSize)
	h.code(RootUserID, &UpdateResource{Scope: ScopeTopic, Stream: num(s), Topic: num(0), Status: UserInactive}, wire.InvalidCommand)
	h.code(RootUserID, &UpdateResource{Scope: ScopeTopic, Stream: num(s), Topic: num(3)}, wire.TopicIdNotFound)
}

// covers RES-11, RES-13
func TestUpdateResourceStream(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	h.stream("taken")
	upd := func(set, reset []byte) *UpdateResource {
		return &UpdateResource{Scope: ScopeStream, Stream: num(s), Set: set, Reset: reset}
	}
	h.code(RootUserID, upd(block(opt("encryption_key", kindRaw, []byte("k"))), nil), wire.OptionNotUpdatable)
	h.code(RootUserID, upd(block(opt("encryption_key_source", kindString, []byte("none"))), nil), wire.ReadOnlyOption)
	h.code(RootUserID, upd(nil, block(opt("encryption_kek_fingerprint", kindString, []byte("x")))), wire.ReadOnlyOption)
	h.code(RootUserID, upd(nil, block(opt("encryption_key", kindRaw, []byte("k")))), wire.OptionNotResettable)
	h.code(RootUserID, upd(block(opt("other", kindString, []byte("x"))), nil), wire.UnsupportedOptionKey)
	h.code(RootUserID, &UpdateResource{Scope: ScopeStream, Stream: num(s), Name: "taken"}, wire.StreamNameAlreadyExists)
	h.code(RootUserID, &UpdateResource{Scope: ScopeStream, Stream: num(9), Name: "x"}, wire.StreamIdNotFound)
	h.ok(RootUserID, &UpdateResource{Scope: ScopeStream, Stream: named("s"), Name: "renamed"})
	if st, ok := h.s.Stream(named("renamed")); !ok || st.ID != s {
		t.Fatal("rename lost")
	}
}

const kindRaw = 1
