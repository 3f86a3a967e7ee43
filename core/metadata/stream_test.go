package metadata

import (
	"reflect"
	"testing"

	"github.com/iggygo/iggy/wire"
)

func TestCreateStream(t *testing.T) {
	h := newHarness(t)
	r := h.ok(RootUserID, &CreateStream{Name: "orders", Options: block(opt("k", kindString, []byte("v")))})
	st := r.Stream
	if st.ID != 0 || st.Name != "orders" || st.CreatedAtMicros != h.now || st.CreatedOp != h.op || len(st.Options) == 0 {
		t.Fatalf("stream %+v", st)
	}
	h.code(RootUserID, &CreateStream{Name: "orders"}, wire.StreamNameAlreadyExists)
	// Names are exact bytes: no case folding.
	if h.stream("Orders") != 1 {
		t.Fatal("second stream is not id 1")
	}
	if got, ok := h.s.Stream(named("orders")); !ok || got.ID != 0 {
		t.Fatal("lookup by name")
	}
	if got, ok := h.s.Stream(num(1)); !ok || got.Name != "Orders" {
		t.Fatal("lookup by id")
	}
	if _, ok := h.s.Stream(num(2)); ok {
		t.Fatal("found a missing stream")
	}
}

// covers MCL-26
func TestStreamIDsReuseLowestFree(t *testing.T) {
	h := newHarness(t)
	for _, n := range []string{"a", "b", "c", "d"} {
		h.stream(n)
	}
	h.ok(RootUserID, &DeleteStream{Stream: num(2)})
	h.ok(RootUserID, &DeleteStream{Stream: named("a")})
	if id := h.stream("e"); id != 0 {
		t.Fatalf("got id %d, want 0", id)
	}
	r := h.ok(RootUserID, &CreateStream{Name: "f"})
	if r.Stream.ID != 2 || r.Stream.CreatedOp != h.op {
		t.Fatalf("got %+v, want id 2 created at op %d", r.Stream, h.op)
	}
	if id := h.stream("g"); id != 4 {
		t.Fatalf("got id %d, want 4", id)
	}
	var names []string
	for _, st := range h.s.Streams() {
		names = append(names, st.Name)
	}
	if !reflect.DeepEqual(names, []string{"e", "b", "f", "d", "g"}) {
		t.Fatalf("order %v", names)
	}
}

func TestTooManyStreams(t *testing.T) {
	// White box: fill the table directly rather than apply a million creates.
	s := New()
	backing := make([]Stream, streamsMax)
	s.streams = make([]*Stream, streamsMax)
	for i := range s.streams {
		backing[i].ID = uint32(i)
		s.streams[i] = &backing[i]
	}
	if r := s.Apply(Ctx{Op: 1}, &CreateStream{Name: "over"}); r.Code != wire.TooManyStreams {
		t.Fatalf("code %d, want 1020", r.Code)
	}
	s.streams = s.streams[:streamsMax-1]
	if r := s.Apply(Ctx{Op: 2}, &CreateStream{Name: "last"}); r.Code != wire.OK || r.Stream.ID != streamsMax-1 {
		t.Fatalf("last stream: %+v", r)
	}
}

func TestUpdateStream(t *testing.T) {
	h := newHarness(t)
	h.stream("a")
	h.stream("b")
	h.ok(RootUserID, &UpdateStream{Stream: named("a"), Name: "c"})
	if st, ok := h.s.Stream(named("c")); !ok || st.ID != 0 {
		t.Fatal("rename lost")
	}
	if _, ok := h.s.Stream(named("a")); ok {
		t.Fatal("old name still resolves")
	}
	h.ok(RootUserID, &UpdateStream{Stream: num(0), Name: "c"}) // same name is no conflict
	h.code(RootUserID, &UpdateStream{Stream: num(0), Name: "b"}, wire.StreamNameAlreadyExists)
	h.code(RootUserID, &UpdateStream{Stream: num(9), Name: "z"}, wire.StreamIdNotFound)
	h.code(RootUserID, &UpdateStream{Stream: named("zz"), Name: "z"}, wire.StreamIdNotFound)
}

// covers MCL-2
func TestDeleteStreamEffectsAndPrunes(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	h.topic(s, "t0", 2)
	h.topic(s, "t1", 1)
	h.ok(RootUserID, &CreateConsumerGroup{Stream: num(s), Topic: num(1), Name: "g"})
	other := h.stream("other")
	u := h.user("alice", &wire.Permissions{Streams: map[uint32]wire.StreamPermissions{
		s: {ReadStream: true}, other: {ReadStream: true},
	}})
	r := h.ok(RootUserID, &DeleteStream{Stream: num(s)})
	rev := uint64(2) // t0 was created by op 3, t1 by op 4 (root is op 1, the stream op 2)
	want := []Effect{
		PartitionDeleted{Stream: s, Topic: 0, Partition: 0, Revision: rev + 1},
		PartitionDeleted{Stream: s, Topic: 0, Partition: 1, Revision: rev + 1},
		PartitionDeleted{Stream: s, Topic: 1, Partition: 0, Revision: rev + 2},
		GroupDeleted{Stream: s, Topic: 1, Group: 0},
		PermissionsPruned{User: u},
	}
	if !reflect.DeepEqual(r.Effects, want) {
		t.Fatalf("effects %+v\nwant %+v", r.Effects, want)
	}
	got, _ := h.s.User(num(u))
	if _, ok := got.Permissions.Streams[s]; ok || len(got.Permissions.Streams) != 1 {
		t.Fatalf("grants not pruned: %+v", got.Permissions)
	}
	h.code(RootUserID, &DeleteStream{Stream: num(s)}, wire.StreamIdNotFound)
	h.code(RootUserID, &PurgeStream{Stream: num(s)}, wire.StreamIdNotFound)
}

// covers CGRP-8
func TestPurgeStreamGivesNewIncarnations(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	h.topic(s, "a", 1)
	h.topic(s, "b", 1)
	created := h.op - 1
	r := h.ok(RootUserID, &PurgeStream{Stream: named("s")})
	want := []Effect{
		PartitionPurged{Stream: s, Topic: 0, Partition: 0, OldRevision: created, Revision: h.op},
		PartitionPurged{Stream: s, Topic: 1, Partition: 0, OldRevision: created + 1, Revision: h.op},
	}
	if !reflect.DeepEqual(r.Effects, want) {
		t.Fatalf("effects %+v", r.Effects)
	}
	_, tp, _ := h.s.Topic(num(s), num(1))
	if tp.Partitions[0].CreatedRevision != h.op {
		t.Fatal("revision not bumped")
	}
}
