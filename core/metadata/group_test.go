package metadata

import (
	"reflect"
	"testing"

	"github.com/iggygo/iggy/wire"
)

type groupFixture struct {
	*harness
	sid, tid uint32
}

func newGroupFixture(t *testing.T, partitions uint32) *groupFixture {
	h := newHarness(t)
	s := h.stream("s")
	tp := h.topic(s, "t", partitions)
	h.ok(RootUserID, &CreateConsumerGroup{Stream: num(s), Topic: num(tp), Name: "g"})
	return &groupFixture{harness: h, sid: s, tid: tp}
}

func (f *groupFixture) join(c ClientID, unsettled ...uint32) Result {
	f.t.Helper()
	return f.ok(RootUserID, &JoinConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Group: num(0), Client: c, Unsettled: unsettled})
}

func (f *groupFixture) leave(c ClientID) Result {
	f.t.Helper()
	return f.ok(RootUserID, &LeaveConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Group: num(0), Client: c})
}

// sync returns the generation and pollable partitions of c.
func (f *groupFixture) sync(c ClientID) (uint64, []uint32) {
	f.t.Helper()
	gen, parts, ok := f.s.Sync(num(f.sid), num(f.tid), named("g"), c)
	if !ok {
		f.t.Fatalf("client %v is not a member", c)
	}
	return gen, parts
}

// assignment lists each member's slot and owned partitions.
func (f *groupFixture) assignment() map[uint32][]uint32 {
	g, _ := f.s.Group(num(f.sid), num(f.tid), num(0))
	out := map[uint32][]uint32{}
	for _, m := range g.Members {
		out[m.ID] = append([]uint32{}, m.Partitions...)
	}
	return out
}

func TestConsumerGroupIDsNeverReused(t *testing.T) {
	f := newGroupFixture(t, 1)
	r := f.ok(RootUserID, &CreateConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Name: "h"})
	if r.Group.ID != 1 || r.Group.Generation != 0 || len(r.Group.Members) != 0 {
		t.Fatalf("group %+v", r.Group)
	}
	f.code(RootUserID, &CreateConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Name: "g"}, wire.ConsumerGroupNameAlreadyExists)
	d := f.ok(RootUserID, &DeleteConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Group: named("h")})
	if !reflect.DeepEqual(d.Effects, []Effect{GroupDeleted{Stream: f.sid, Topic: f.tid, Group: 1}}) {
		t.Fatalf("effects %+v", d.Effects)
	}
	if id := f.ok(RootUserID, &CreateConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Name: "h"}).Group.ID; id != 2 {
		t.Fatalf("id %d, want 2", id)
	}
	f.code(RootUserID, &DeleteConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Group: num(1)}, wire.ConsumerGroupIdNotFound)
	f.code(RootUserID, &DeleteConsumerGroup{Stream: num(f.sid), Topic: num(9), Group: num(0)}, wire.TopicIdNotFound)
	f.code(RootUserID, &JoinConsumerGroup{Stream: num(9), Topic: num(0), Group: num(0)}, wire.StreamIdNotFound)
	f.code(RootUserID, &JoinConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Group: num(7)}, wire.ConsumerGroupIdNotFound)
	f.code(RootUserID, &CreateConsumerGroup{Stream: num(f.sid), Topic: num(9), Name: "x"}, wire.TopicIdNotFound)
}

func TestJoinLeaveRebalance(t *testing.T) {
	f := newGroupFixture(t, 4)
	a, b, c := client(1), client(2), client(3)
	r := f.join(a)
	if !reflect.DeepEqual(r.Effects, []Effect{GroupRebalanced{Stream: f.sid, Topic: f.tid, Group: 0, Generation: 1}}) {
		t.Fatalf("effects %+v", r.Effects)
	}
	if gen, parts := f.sync(a); gen != 1 || !reflect.DeepEqual(parts, []uint32{0, 1, 2, 3}) {
		t.Fatalf("sync a: %d %v", gen, parts)
	}
	// Cooperative join: a keeps its lowest partitions and hands over the rest.
	f.join(b)
	if got := f.assignment(); !reflect.DeepEqual(got, map[uint32][]uint32{0: {0, 1}, 1: {2, 3}}) {
		t.Fatalf("after b joined: %v", got)
	}
	f.join(c)
	if got := f.assignment(); !reflect.DeepEqual(got, map[uint32][]uint32{0: {0, 1}, 1: {2}, 2: {3}}) {
		t.Fatalf("after c joined: %v", got)
	}
	gen, _ := f.sync(a)
	f.join(b) // already a member: nothing changes
	if g2, _ := f.sync(a); g2 != gen {
		t.Fatalf("rejoin bumped the generation %d -> %d", gen, g2)
	}
	// Leave is eager: partition[i] to member[i % M] in slot order.
	f.leave(b)
	if got := f.assignment(); !reflect.DeepEqual(got, map[uint32][]uint32{0: {0, 2}, 2: {1, 3}}) {
		t.Fatalf("after b left: %v", got)
	}
	if g3, _ := f.sync(a); g3 != gen+1 {
		t.Fatalf("generation %d, want %d", g3, gen+1)
	}
	// A new member takes the lowest free slot.
	d := client(4)
	f.join(d)
	g, _ := f.s.Group(num(f.sid), num(f.tid), num(0))
	if m, ok := g.Member(d); !ok || m.ID != 1 {
		t.Fatalf("slot %+v", m)
	}
	f.code(RootUserID, &LeaveConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Group: num(0), Client: b}, wire.ConsumerGroupMemberNotFound)
	if _, _, ok := f.s.Sync(num(f.sid), num(f.tid), num(0), b); ok {
		t.Fatal("sync of a non-member")
	}
}

func TestMoreMembersThanPartitions(t *testing.T) {
	f := newGroupFixture(t, 1)
	f.join(client(1))
	f.join(client(2))
	if _, parts := f.sync(client(2)); len(parts) != 0 {
		t.Fatalf("idle member got %v", parts)
	}
	f.leave(client(1))
	if _, parts := f.sync(client(2)); !reflect.DeepEqual(parts, []uint32{0}) {
		t.Fatalf("survivor got %v", parts)
	}
}

// covers CGRP-7
func TestPendingRevocation(t *testing.T) {
	f := newGroupFixture(t, 4)
	a, b := client(1), client(2)
	f.join(a)
	genBefore, _ := f.sync(a)
	// Partition 3 holds polled but uncommitted data: it waits; 2 moves at once.
	f.join(b, 3)
	gen, parts := f.sync(a)
	if gen != genBefore+1 || !reflect.DeepEqual(parts, []uint32{0, 1}) {
		t.Fatalf("a: gen %d parts %v", gen, parts)
	}
	if _, parts := f.sync(b); !reflect.DeepEqual(parts, []uint32{2}) {
		t.Fatalf("b: %v", parts)
	}
	owns := func(c ClientID, p uint32) bool { return f.s.GroupOwns(num(f.sid), num(f.tid), num(0), c, p) }
	if !owns(a, 3) || owns(b, 3) {
		t.Fatal("a pending partition must stay committable by its source only")
	}
	r := f.ok(RootUserID, &CompleteRevocation{Stream: num(f.sid), Topic: num(f.tid), Group: num(0), Partition: 3})
	if !reflect.DeepEqual(r.Effects, []Effect{GroupRebalanced{Stream: f.sid, Topic: f.tid, Group: 0, Generation: gen + 1}}) {
		t.Fatalf("effects %+v", r.Effects)
	}
	if _, parts := f.sync(b); !reflect.DeepEqual(parts, []uint32{2, 3}) {
		t.Fatalf("b after the move: %v", parts)
	}
	if owns(a, 3) || !owns(b, 3) {
		t.Fatal("ownership did not move")
	}
	// Completing again is a no-op.
	if r := f.ok(RootUserID, &CompleteRevocation{Stream: num(f.sid), Topic: num(f.tid), Group: num(0), Partition: 3}); len(r.Effects) != 0 {
		t.Fatalf("effects %+v", r.Effects)
	}
	f.code(5, &CompleteRevocation{Stream: num(f.sid), Topic: num(f.tid), Group: num(0), Partition: 3}, wire.Unauthorized)
}

func TestResizeRebalancesEagerly(t *testing.T) {
	f := newGroupFixture(t, 2)
	f.join(client(1))
	f.join(client(2), 1) // partition 1 pending from slot 0 to slot 1
	r := f.ok(RootUserID, &CreatePartitions{Stream: num(f.sid), Topic: num(f.tid), Count: 3})
	g, _ := f.s.Group(num(f.sid), num(f.tid), num(0))
	if len(r.Effects) != 4 || r.Effects[3] != (GroupRebalanced{Stream: f.sid, Topic: f.tid, Group: 0, Generation: g.Generation}) {
		t.Fatalf("effects %+v", r.Effects)
	}
	if got := f.assignment(); !reflect.DeepEqual(got, map[uint32][]uint32{0: {0, 2, 4}, 1: {1, 3}}) {
		t.Fatalf("assignment %v", got)
	}
	if len(g.Members[0].Revoking) != 0 {
		t.Fatal("pending revocation survived an eager rebalance")
	}
	f.ok(RootUserID, &DeletePartitions{Stream: num(f.sid), Topic: num(f.tid), Count: 4})
	if got := f.assignment(); !reflect.DeepEqual(got, map[uint32][]uint32{0: {0}, 1: {}}) {
		t.Fatalf("assignment %v", got)
	}
}

// covers CGRP-10
func TestRemoveMemberFromEveryGroup(t *testing.T) {
	f := newGroupFixture(t, 2)
	other := f.topic(f.sid, "u", 2)
	f.ok(RootUserID, &CreateConsumerGroup{Stream: num(f.sid), Topic: num(other), Name: "g2"})
	dead, live := client(1), client(2)
	f.join(dead)
	f.join(live)
	f.ok(RootUserID, &JoinConsumerGroup{Stream: num(f.sid), Topic: num(other), Group: num(0), Client: dead})
	r := f.ok(RootUserID, &RemoveMember{Client: dead})
	if len(r.Effects) != 2 {
		t.Fatalf("effects %+v", r.Effects)
	}
	if _, parts := f.sync(live); !reflect.DeepEqual(parts, []uint32{0, 1}) {
		t.Fatalf("live member got %v", parts)
	}
	if r := f.ok(RootUserID, &RemoveMember{Client: dead}); len(r.Effects) != 0 {
		t.Fatal("second removal changed something")
	}
	f.code(5, &RemoveMember{Client: live}, wire.Unauthorized)
}

func TestGroupNeedsReadTopic(t *testing.T) {
	f := newGroupFixture(t, 1)
	sender := f.user("sender", &wire.Permissions{Global: wire.GlobalPermissions{SendMessages: true}})
	reader := f.user("reader", &wire.Permissions{Streams: map[uint32]wire.StreamPermissions{
		f.sid: {Topics: map[uint32]wire.TopicPermissions{f.tid: {ReadTopic: true}}},
	}})
	f.code(sender, &JoinConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Group: num(0), Client: client(1)}, wire.Unauthorized)
	f.code(sender, &CreateConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Name: "x"}, wire.Unauthorized)
	f.ok(reader, &JoinConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Group: num(0), Client: client(1)})
	f.ok(reader, &LeaveConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Group: num(0), Client: client(1)})
	f.ok(reader, &CreateConsumerGroup{Stream: num(f.sid), Topic: num(f.tid), Name: "x"})
}
