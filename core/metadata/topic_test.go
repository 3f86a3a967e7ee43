package metadata

import (
	"reflect"
	"testing"

	"github.com/iggygo/iggy/wire"
)

func TestCreateTopic(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	c := newTopic(named("s"), "events", 3)
	c.ExplicitOptions = block(opt(keyMessageExpiry, kindUint64, u64(10)))
	c.DerivedOptions = block(opt(keySegmentSize, kindUint64, u64(1<<30)))
	c.MessageExpiry, c.ReplicationFactor = 10, 3
	r := h.ok(RootUserID, c)
	tp := r.Topic
	if tp.ID != 0 || tp.Name != "events" || tp.MessageExpiry != 10 || tp.ReplicationFactor != 3 ||
		!reflect.DeepEqual(tp.ExplicitOptions, c.ExplicitOptions) || !reflect.DeepEqual(tp.DerivedOptions, c.DerivedOptions) {
		t.Fatalf("topic %+v", tp)
	}
	var want []Effect
	for p := uint32(0); p < 3; p++ {
		want = append(want, PartitionCreated{Stream: s, Topic: 0, Partition: p, Revision: h.op})
		if !reflect.DeepEqual(tp.Partitions[p], Partition{ID: p, CreatedAtMicros: h.now, CreatedRevision: h.op}) {
			t.Fatalf("partition %+v", tp.Partitions[p])
		}
	}
	if !reflect.DeepEqual(r.Effects, want) || r.Stream.ID != s {
		t.Fatalf("effects %+v", r.Effects)
	}
	if _, got, code := h.s.Topic(named("s"), named("events")); code != wire.OK || got != tp {
		t.Fatal("lookup by names")
	}
	h.ok(RootUserID, newTopic(num(s), "empty", 0)) // zero partitions is allowed at create
}

func TestCreateTopicRejections(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	h.topic(s, "t", 1)
	h.code(RootUserID, newTopic(num(9), "x", 1), wire.StreamIdNotFound)
	h.code(RootUserID, newTopic(num(s), "t", 1), wire.TopicNameAlreadyExists)
	h.code(RootUserID, newTopic(num(s), "x", partitionsPerRequestMax+1), wire.TooManyPartitions)
	c := newTopic(num(s), "x", 1)
	c.ReplicationFactor = replicationFactorMax + 1
	h.code(RootUserID, c, wire.InvalidReplicationFactor)
	c = newTopic(num(s), "x", 1)
	c.CompressionAlgorithm = 9
	h.code(RootUserID, c, wire.InvalidOptionValue)
	c = newTopic(num(s), "x", 1)
	c.ResizePolicy = 7
	h.code(RootUserID, c, wire.InvalidOptionValue)
	c = newTopic(num(s), "x", 1)
	c.DerivedOptions = block(opt(keySegmentSize, kindUint64, u64(1<<30)))
	c.MaxTopicSize = 1 << 20
	h.code(RootUserID, c, wire.InvalidTopicSize)
}

func TestTooManyTopics(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	st, _ := h.s.Stream(num(s))
	for i := 0; i < topicsPerStreamMax; i++ {
		st.Topics = append(st.Topics, &Topic{ID: uint32(i)})
	}
	if r := h.s.Apply(Ctx{Op: h.op + 1}, newTopic(num(s), "x", 1)); r.Code != wire.TooManyTopics {
		t.Fatalf("code %d, want 2021", r.Code)
	}
}

func TestTopicIDsReuseLowestFree(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	for _, n := range []string{"a", "b", "c"} {
		h.topic(s, n, 1)
	}
	h.ok(RootUserID, &DeleteTopic{Stream: num(s), Topic: named("a")})
	h.ok(RootUserID, &DeleteTopic{Stream: num(s), Topic: num(1)})
	if id := h.topic(s, "d", 1); id != 0 {
		t.Fatalf("id %d, want 0", id)
	}
	if id := h.topic(s, "e", 1); id != 1 {
		t.Fatalf("id %d, want 1", id)
	}
	if id := h.topic(s, "f", 1); id != 3 {
		t.Fatalf("id %d, want 3", id)
	}
}

// covers RES-30
func TestDeleteTopic(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	c := newTopic(num(s), "t", 2)
	c.ResizePolicy = ResizeFixed // a fixed topic can still be deleted
	h.ok(RootUserID, c)
	rev := h.op
	h.ok(RootUserID, &CreateConsumerGroup{Stream: num(s), Topic: num(0), Name: "g"})
	u := h.user("alice", &wire.Permissions{Streams: map[uint32]wire.StreamPermissions{
		s: {Topics: map[uint32]wire.TopicPermissions{0: {ReadTopic: true}}},
	}})
	r := h.ok(RootUserID, &DeleteTopic{Stream: num(s), Topic: named("t")})
	want := []Effect{
		PartitionDeleted{Stream: s, Topic: 0, Partition: 0, Revision: rev},
		PartitionDeleted{Stream: s, Topic: 0, Partition: 1, Revision: rev},
		GroupDeleted{Stream: s, Topic: 0, Group: 0},
		PermissionsPruned{User: u},
	}
	if !reflect.DeepEqual(r.Effects, want) {
		t.Fatalf("effects %+v", r.Effects)
	}
	h.code(RootUserID, &DeleteTopic{Stream: num(s), Topic: num(0)}, wire.TopicIdNotFound)
	h.code(RootUserID, &DeleteTopic{Stream: num(5), Topic: num(0)}, wire.StreamIdNotFound)
	h.code(RootUserID, &PurgeTopic{Stream: num(s), Topic: num(0)}, wire.TopicIdNotFound)
}

// covers CGRP-8
func TestPurgeTopic(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	h.topic(s, "t", 2)
	old := h.op
	r := h.ok(RootUserID, &PurgeTopic{Stream: num(s), Topic: num(0)})
	want := []Effect{
		PartitionPurged{Stream: s, Topic: 0, Partition: 0, OldRevision: old, Revision: h.op},
		PartitionPurged{Stream: s, Topic: 0, Partition: 1, OldRevision: old, Revision: h.op},
	}
	if !reflect.DeepEqual(r.Effects, want) {
		t.Fatalf("effects %+v", r.Effects)
	}
}

func TestUpdateTopicLegacy(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	h.topic(s, "a", 1)
	h.topic(s, "b", 1)
	h.ok(RootUserID, &UpdateTopic{Stream: num(s), Topic: num(0), Name: "c",
		Options: block(opt(keyMessageExpiry, kindUint64, u64(77)))})
	_, tp, _ := h.s.Topic(num(s), named("c"))
	if tp == nil || tp.MessageExpiry != 77 {
		t.Fatalf("topic %+v", tp)
	}
	h.code(RootUserID, &UpdateTopic{Stream: num(s), Topic: num(0), Name: "b"}, wire.TopicNameAlreadyExists)
	h.code(RootUserID, &UpdateTopic{Stream: num(s), Topic: num(8), Name: "z"}, wire.TopicIdNotFound)
	h.code(RootUserID, &UpdateTopic{Stream: num(s), Topic: num(0), Name: "c",
		Options: block(opt("compression_algorithm", kindString, []byte("gzip")))}, wire.OptionNotUpdatable)
}
