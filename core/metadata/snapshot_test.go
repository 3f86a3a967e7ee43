package metadata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/wire"
)

// richState builds a state that uses every snapshot field.
func richState(t testing.TB) *harness {
	h := newHarness(t)
	s := h.stream("s")
	h.ok(RootUserID, &CreateStream{Name: "opts", Options: block(opt("k", kindString, []byte("v")))})
	c := newTopic(num(s), "t", 4)
	c.ExplicitOptions = block(opt(keyMessageExpiry, kindUint64, u64(9)))
	c.DerivedOptions = block(opt(keySegmentSize, kindUint64, u64(1<<20)))
	c.ReplicationFactor, c.ResizePolicy, c.CompressionAlgorithm = 3, ResizeFixed, compressionGzip
	h.ok(RootUserID, c)
	h.ok(RootUserID, &CreateConsumerGroup{Stream: num(s), Topic: num(0), Name: "g"})
	h.ok(RootUserID, &JoinConsumerGroup{Stream: num(s), Topic: num(0), Group: num(0), Client: client(1)})
	h.ok(RootUserID, &JoinConsumerGroup{Stream: num(s), Topic: num(0), Group: num(0), Client: client(2), Unsettled: ids(3)})
	u := h.user("bob", &wire.Permissions{Global: wire.GlobalPermissions{ReadUsers: true},
		Streams: map[uint32]wire.StreamPermissions{s: {ReadStream: true, Topics: map[uint32]wire.TopicPermissions{0: {SendMessages: true}}}}})
	h.ok(u, &CreatePersonalAccessToken{Name: "ci", TokenHash: "hash-ci", LifetimeMicros: 10})
	h.ok(u, &CreatePersonalAccessToken{Name: "forever", TokenHash: "hash-forever"})
	h.ok(RootUserID, &UpdateUser{User: num(u), Status: UserInactive})
	return h
}

// covers MCL-33
func TestSnapshotRoundTrip(t *testing.T) {
	h := richState(t)
	snap := h.s.Snapshot()
	if !bytes.Equal(snap, h.s.Snapshot()) {
		t.Fatal("snapshot not deterministic")
	}
	r, err := Restore(snap)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Snapshot(), snap) || r.LastOp() != h.s.LastOp() {
		t.Fatal("restored state differs")
	}
	if gen, parts, ok := r.Sync(named("s"), named("t"), named("g"), client(1)); !ok || gen == 0 || len(parts) != 2 {
		t.Fatalf("sync after restore: %d %v %v", gen, parts, ok)
	}
	if tok, ok := r.TokenByHash("hash-ci"); !ok || tok.UserID != 1 {
		t.Fatal("token index after restore")
	}
	// The restored state keeps applying like the original.
	cmd := &CreateStream{Name: "next"}
	a := h.s.Apply(Ctx{Op: h.op + 1, NowMicros: 5}, cmd)
	b := r.Apply(Ctx{Op: h.op + 1, NowMicros: 5}, cmd)
	if a.Stream.ID != b.Stream.ID || !bytes.Equal(h.s.Snapshot(), r.Snapshot()) {
		t.Fatal("restored state diverged")
	}
}

func TestSnapshotDetectsCorruption(t *testing.T) {
	snap := richState(t).s.Snapshot()
	for i := range snap {
		bad := append([]byte(nil), snap...)
		bad[i] ^= 0x01
		if _, err := Restore(bad); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("flip at byte %d: err %v", i, err)
		}
	}
	for n := 0; n < len(snap); n += 7 {
		if _, err := Restore(snap[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d: err %v", n, err)
		}
	}
	// A future version is refused even with a valid checksum.
	bad := append([]byte(nil), snap...)
	bad[len(snapshotMagic)] = snapshotVersion + 1
	if _, err := Restore(reseal(bad)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("version: err %v", err)
	}
}

// reseal recomputes the checksum of a tampered snapshot.
func reseal(b []byte) []byte {
	body := b[:len(b)-snapshotChecksumBytes]
	return binary.LittleEndian.AppendUint64(append([]byte(nil), body...), xxh3.Hash(body))
}

func TestRestoreRefusesBrokenInvariants(t *testing.T) {
	breakers := map[string]func(s *State){
		"duplicate stream name": func(s *State) { s.streams[1].Name = s.streams[0].Name },
		"streams out of order":  func(s *State) { s.streams[0], s.streams[1] = s.streams[1], s.streams[0] },
		"shared partition": func(s *State) {
			g := s.streams[0].Topics[0].Groups[0]
			g.Members[1].Partitions = append([]uint32{0}, g.Members[1].Partitions...)
		},
		"missing partition": func(s *State) {
			g := s.streams[0].Topics[0].Groups[0]
			g.Members[1].Partitions = append(g.Members[1].Partitions, 99)
		},
		"revocation to self": func(s *State) {
			m := &s.streams[0].Topics[0].Groups[0].Members[0]
			m.Revoking[0].Target = m.Client
		},
		"group id beyond counter": func(s *State) { s.streams[0].Topics[0].NextGroupID = 0 },
		"short username":          func(s *State) { s.users[1].Username = "x" },
		"bad status":              func(s *State) { s.users[1].Status = 7 },
		"inactive root":           func(s *State) { s.users[0].Status = UserInactive },
		"user beyond counter":     func(s *State) { s.nextUserID = 1 },
		"revision from the future": func(s *State) {
			s.streams[0].Topics[0].Partitions[0].CreatedRevision = s.lastOp + 1
		},
	}
	for name, breakIt := range breakers {
		h := richState(t)
		breakIt(h.s)
		if _, err := Restore(h.s.Snapshot()); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err %v", name, err)
		}
	}
	h := richState(t)
	h.s.users[1].tokens[1].TokenHash = h.s.users[1].tokens[0].TokenHash
	if _, err := Restore(h.s.Snapshot()); !errors.Is(err, ErrCorrupt) {
		t.Errorf("duplicate token hash: err %v", err)
	}
}

func FuzzRestore(f *testing.F) {
	f.Add(New().Snapshot())
	f.Add(newHarness(f).s.Snapshot())
	f.Add(richState(f).s.Snapshot())
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Restore(b)
		if err != nil {
			return
		}
		if !bytes.Equal(s.Snapshot(), b) {
			t.Fatal("restored state re-encodes differently")
		}
		if err := s.check(); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzRestoreBody fuzzes the body behind a valid header and checksum, which
// plain byte fuzzing almost never reaches.
func FuzzRestoreBody(f *testing.F) {
	for _, h := range []*harness{newHarness(f), richState(f)} {
		snap := h.s.Snapshot()
		f.Add(snap[len(snapshotMagic)+1 : len(snap)-snapshotChecksumBytes])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		b := append(append([]byte(nil), snapshotMagic...), snapshotVersion)
		b = append(b, body...)
		b = binary.LittleEndian.AppendUint64(b, xxh3.Hash(b))
		s, err := Restore(b)
		if err != nil {
			return
		}
		if err := s.check(); err != nil {
			t.Fatal(err)
		}
		if s.LastOp() > 1<<62 {
			return // no room for more ops
		}
		// A restored state must keep applying without tripping an assertion.
		for _, cmd := range sampleCommands() {
			s.Apply(Ctx{Op: s.LastOp() + 1, UserID: RootUserID}, cmd)
		}
	})
}
