package metadata

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// harness applies commands the way the node does: encoded into the log,
// decoded back, then applied with a growing op number and clock. After every
// op it checks the invariants and a snapshot round trip.
type harness struct {
	t   testing.TB
	s   *State
	op  uint64
	now uint64
}

const rootHash = "$argon2id$root"

func newHarness(t testing.TB) *harness {
	h := &harness{t: t, s: New(), now: 1_700_000_000_000_000}
	h.ok(RootUserID, &CreateUser{Username: "iggy", PasswordHash: rootHash, Status: UserActive})
	return h
}

func num(id uint32) wire.Identifier  { return wire.NumericID(id) }
func named(n string) wire.Identifier { return wire.NamedID(n) }
func client(n uint64) ClientID       { return ClientID{Lo: n, Hi: n * 7} }
func ids(ns ...uint32) []uint32      { return ns }

func (h *harness) apply(user uint32, cmd Command) Result {
	h.t.Helper()
	b := Encode(cmd)
	back, err := Decode(b)
	if err != nil {
		h.t.Fatalf("decode of %T: %v", cmd, err)
	}
	if !reflect.DeepEqual(back, cmd) {
		h.t.Fatalf("round trip of %T: got %+v want %+v", cmd, back, cmd)
	}
	h.op++
	h.now += 1000
	r := h.s.Apply(Ctx{Op: h.op, NowMicros: h.now, UserID: user}, back)
	if err := h.s.check(); err != nil {
		h.t.Fatalf("invariant after %T: %v", cmd, err)
	}
	snap := h.s.Snapshot()
	restored, err := Restore(snap)
	if err != nil {
		h.t.Fatalf("restore after %T: %v", cmd, err)
	}
	if !bytes.Equal(restored.Snapshot(), snap) {
		h.t.Fatalf("snapshot not stable after %T", cmd)
	}
	return r
}

func (h *harness) ok(user uint32, cmd Command) Result {
	h.t.Helper()
	r := h.apply(user, cmd)
	if r.Code != wire.OK {
		h.t.Fatalf("%T %+v: code %d (%s), want OK", cmd, cmd, r.Code, r.Code.Name())
	}
	return r
}

// code applies cmd, expects want, and checks the state did not change.
func (h *harness) code(user uint32, cmd Command, want wire.Code) {
	h.t.Helper()
	before := h.s.Snapshot()
	r := h.apply(user, cmd)
	if r.Code != want {
		h.t.Fatalf("%T %+v: code %d (%s), want %d (%s)", cmd, cmd, r.Code, r.Code.Name(), want, want.Name())
	}
	if len(r.Effects) != 0 {
		h.t.Fatalf("%T rejected with effects %+v", cmd, r.Effects)
	}
	h.s.lastOp--
	after := h.s.Snapshot()
	h.s.lastOp++
	if !bytes.Equal(before, after) {
		h.t.Fatalf("%T rejected with %d but changed the state", cmd, want)
	}
}

func (h *harness) stream(name string) uint32 {
	h.t.Helper()
	return h.ok(RootUserID, &CreateStream{Name: name}).Stream.ID
}

func (h *harness) topic(stream uint32, name string, partitions uint32) uint32 {
	h.t.Helper()
	return h.ok(RootUserID, newTopic(num(stream), name, partitions)).Topic.ID
}

func newTopic(stream wire.Identifier, name string, partitions uint32) *CreateTopic {
	return &CreateTopic{
		Stream: stream, Name: name, PartitionsCount: partitions,
		MessageExpiry: ^uint64(0), MaxTopicSize: ^uint64(0), CompressionAlgorithm: compressionNone,
	}
}

// user creates a user with p and returns its id.
func (h *harness) user(name string, p *wire.Permissions) uint32 {
	h.t.Helper()
	return h.ok(RootUserID, &CreateUser{Username: name, PasswordHash: "h-" + name, Status: UserActive, Permissions: p}).User.ID
}

func opt(key string, kind uint8, value []byte) option {
	return option{key: []byte(key), kind: kind, value: value}
}

func u64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

func block(opts ...option) []byte { return encodeOptions(opts) }
