package metadata

import (
	"errors"
	"reflect"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// sampleCommands holds one filled-in command of every kind.
func sampleCommands() []Command {
	perms := &wire.Permissions{
		Global: wire.GlobalPermissions{ReadStreams: true, SendMessages: true},
		Streams: map[uint32]wire.StreamPermissions{
			3: {ReadTopics: true, Topics: map[uint32]wire.TopicPermissions{1: {PollMessages: true}, 0: {ManageTopic: true}}},
			1: {ManageStream: true},
		},
	}
	opts := block(opt(keyMaxTopicSize, kindUint64, u64(1<<30)), opt(keyMessageExpiry, kindUint64, u64(60_000_000)))
	return []Command{
		&CreateStream{Name: "orders", Options: block(opt("a", kindString, []byte("x")))},
		&UpdateStream{Stream: named("orders"), Name: "orders2"},
		&DeleteStream{Stream: num(7)},
		&PurgeStream{Stream: named("s")},
		&CreateTopic{Stream: num(1), Name: "t", PartitionsCount: 3, ExplicitOptions: opts, DerivedOptions: opts,
			MessageExpiry: 5, MaxTopicSize: 6, CompressionAlgorithm: 2, ReplicationFactor: 3, ResizePolicy: ResizeFixed},
		&UpdateTopic{Stream: num(1), Topic: named("t"), Name: "t2", Options: opts},
		&DeleteTopic{Stream: num(1), Topic: num(2)},
		&PurgeTopic{Stream: num(1), Topic: num(2)},
		&CreatePartitions{Stream: num(1), Topic: num(2), Count: 10, Placement: Placement{Nodes: 3, Racks: []uint8{0, 1, 0}, Eligible: 5, Loads: []uint32{4, 0, 9}}},
		&DeletePartitions{Stream: num(1), Topic: num(2), Count: 1},
		&TruncatePartition{Stream: num(1), Topic: num(2), Partition: 4, Watermark: 1234},
		&CreateConsumerGroup{Stream: num(1), Topic: num(2), Name: "g"},
		&DeleteConsumerGroup{Stream: num(1), Topic: num(2), Group: named("g")},
		&JoinConsumerGroup{Stream: num(1), Topic: num(2), Group: num(0), Client: client(9), Unsettled: []uint32{1, 5, 9}},
		&LeaveConsumerGroup{Stream: num(1), Topic: num(2), Group: num(0), Client: client(9)},
		&RemoveMember{Client: client(3)},
		&CompleteRevocation{Stream: num(1), Topic: num(2), Group: num(0), Partition: 5},
		&MovePrimary{Stream: 1, Topic: 2, Partition: 3, Revision: 40, From: 1, To: 4},
		&CreateUser{Username: "bob", PasswordHash: "hash", Status: UserInactive, Permissions: perms},
		&UpdateUser{User: num(3), Username: "bobby", Status: UserActive},
		&DeleteUser{User: named("bob")},
		&ChangePassword{User: num(3), ExpectedHash: "old", PasswordHash: "new"},
		&UpdatePermissions{User: num(3), Permissions: perms},
		&UpdatePermissions{User: num(3)},
		&CreatePersonalAccessToken{Name: "ci", TokenHash: "abcd", LifetimeMicros: 99},
		&DeletePersonalAccessToken{Name: "ci"},
		&DeleteExpiredTokens{},
		&SetStreamKeyOptions{Stream: 2, CreatedOp: 9, Options: opts},
		&UpdateResource{Scope: ScopeTopic, Stream: num(1), Topic: num(2), Name: "n", Set: opts,
			Reset: block(opt(keyMessageExpiry, kindUint64, u64(0)))},
		&UpdateResource{Scope: ScopeStream, Stream: named("s"), Name: "x"},
		&UpdateResource{Scope: ScopeUser, User: num(4), Status: UserInactive},
	}
}

func TestCommandRoundTrip(t *testing.T) {
	seen := map[Kind]bool{}
	for _, cmd := range sampleCommands() {
		b := Encode(cmd)
		back, err := Decode(b)
		if err != nil {
			t.Fatalf("%T: %v", cmd, err)
		}
		want := cmd
		if p, ok := cmd.(*CreateUser); ok {
			c := *p
			c.Permissions = clonePermissions(p.Permissions)
			want = &c
		}
		if !reflect.DeepEqual(back, want) {
			t.Fatalf("%T: got %+v want %+v", cmd, back, want)
		}
		seen[cmd.Kind()] = true
	}
	for k := Kind(0); k < 255; k++ {
		if newCommand(k) != nil && !seen[k] {
			t.Errorf("kind %d has no sample", k)
		}
	}
}

func TestDecodeRejectsGarbage(t *testing.T) {
	for _, cmd := range sampleCommands() {
		b := Encode(cmd)
		for n := 0; n < len(b); n++ {
			if _, err := Decode(b[:n]); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%T truncated to %d: err %v", cmd, n, err)
			}
		}
		if _, err := Decode(append(b, 0)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%T with a trailing byte: err %v", cmd, err)
		}
	}
	if _, err := Decode([]byte{200}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("unknown kind accepted")
	}
}

func TestDecodeRejectsNonCanonical(t *testing.T) {
	// A boolean other than 0 or 1 (the has-permissions flag).
	b := Encode(&UpdatePermissions{User: num(1)})
	b[len(b)-1] = 2
	if _, err := Decode(b); err == nil {
		t.Fatal("boolean 2 accepted")
	}
	// Options out of key order.
	unsorted := append(block(opt("b", kindString, []byte("1"))), block(opt("a", kindString, []byte("1")))...)
	b = Encode(&CreateStream{Name: "s"})
	b = append(b[:len(b)-4], byte(len(unsorted)), 0, 0, 0)
	b = append(b, unsorted...)
	if _, err := Decode(b); err == nil {
		t.Fatal("unsorted options accepted")
	}
	// Unsettled partitions not ascending.
	w := Encode(&JoinConsumerGroup{Stream: num(1), Topic: num(1), Group: num(1), Unsettled: []uint32{1, 2}})
	w[len(w)-4] = 1 // second element becomes 1 == first
	if _, err := Decode(w); err == nil {
		t.Fatal("non-ascending list accepted")
	}
}

func TestCanonicalOptions(t *testing.T) {
	unsorted := append(block(opt("b", kindString, []byte("1"))), block(opt("a", kindUint64, u64(3)))...)
	got, ok := CanonicalOptions(unsorted)
	want := block(opt("a", kindUint64, u64(3)), opt("b", kindString, []byte("1")))
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %x %v want %x", got, ok, want)
	}
	dup := append(block(opt("a", kindString, []byte("1"))), block(opt("a", kindString, []byte("2")))...)
	if _, ok := CanonicalOptions(dup); ok {
		t.Fatal("duplicate key accepted")
	}
	if _, ok := CanonicalOptions([]byte{2, 1, 0, 0}); ok {
		t.Fatal("truncated block accepted")
	}
}

func FuzzDecode(f *testing.F) {
	for _, cmd := range sampleCommands() {
		f.Add(Encode(cmd))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cmd, err := Decode(b)
		if err != nil {
			return
		}
		if got := Encode(cmd); string(got) != string(b) {
			t.Fatalf("accepted non-canonical bytes %x (re-encodes to %x)", b, got)
		}
		// A decodable command must apply without panicking on any state.
		h := newHarness(t)
		h.stream("s")
		h.topic(0, "t", 3)
		h.s.Apply(Ctx{Op: h.op + 1, NowMicros: h.now, UserID: 1}, cmd)
		h.s.Apply(Ctx{Op: h.op + 2, NowMicros: h.now, UserID: RootUserID}, cmd)
		if err := h.s.check(); err != nil {
			t.Fatalf("invariant after %T: %v", cmd, err)
		}
	})
}

// TestApplyRefusesMalformedCommands: a command that skipped Encode and could
// not be logged is refused, never stored and never a panic.
func TestApplyRefusesMalformedCommands(t *testing.T) {
	unsorted := append(block(opt("b", kindString, []byte("1"))), block(opt("a", kindString, []byte("1")))...)
	long := string(make([]byte, 256))
	bad := []Command{
		nil,
		(*CreateStream)(nil),
		&CreateStream{Name: ""},
		&CreateStream{Name: long},
		&CreateStream{Name: "\xff"},
		&CreateStream{Name: "s", Options: unsorted},
		&DeleteStream{Stream: named("")},
		&UpdateResource{Scope: 9},
		&CreateUser{Username: "bob", PasswordHash: string(make([]byte, hashBytesMax+1))},
		&JoinConsumerGroup{Stream: num(0), Topic: num(0), Group: num(0), Unsettled: []uint32{2, 1}},
	}
	h := newHarness(t)
	before := h.s.Snapshot()
	for i, cmd := range bad {
		if r := h.s.Apply(Ctx{Op: h.op + 1 + uint64(i)}, cmd); r.Code != wire.InvalidCommand {
			t.Fatalf("%d %T: code %d", i, cmd, r.Code)
		}
	}
	h.s.lastOp = h.op
	if !reflect.DeepEqual(before, h.s.Snapshot()) {
		t.Fatal("a malformed command changed the state")
	}
}
