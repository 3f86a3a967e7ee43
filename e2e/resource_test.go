package e2e

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

func strOption(key, value string) wire.Option {
	return wire.Option{Key: key, Kind: wire.KindString, Value: []byte(value)}
}

// u64Option returns the canonical Uint64 value of key in block.
func u64Option(block wire.Options, key string) (uint64, bool) {
	e, ok := block.Get(key)
	if !ok || e.Kind != wire.KindUint64 || len(e.Value) != 8 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(e.Value), true
}

func getTopic(t *testing.T, c *client.Client, stream, topic wire.Identifier) wire.TopicHeader {
	t.Helper()
	d, found, err := c.GetTopic(stream, topic)
	if err != nil || !found {
		t.Fatalf("get topic: found %v err %v", found, err)
	}
	return d.Topic
}

// Renames go through UpdateResource (16); every key neither set nor reset
// keeps its value and provenance.
// covers RES-5, RES-6, RES-9, RES-14
func TestUpdateResourceRenames(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "orders", "events", 1)
	if _, err := c.CreateStream("taken"); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateStream(stream, "orders-v2", nil); err != nil {
		t.Fatalf("rename stream: %v", err)
	}
	if _, found, err := c.GetStream(wire.NamedID("orders")); err != nil || found {
		t.Fatalf("old stream name still found: %v %v", found, err)
	}
	if d, found, err := c.GetStream(wire.NamedID("orders-v2")); err != nil || !found || d.Stream.ID != stream.ID {
		t.Fatalf("renamed stream: %+v %v %v", d.Stream, found, err)
	}
	wantCode(t, "rename onto a taken name", c.UpdateStream(stream, "taken", nil), wire.StreamNameAlreadyExists)
	wantCode(t, "missing stream", c.UpdateStream(wire.NumericID(99), "x", nil), wire.StreamIdNotFound)

	before := getTopic(t, c, stream, topic)
	if err := c.UpdateTopic(wire.NamedID("orders-v2"), wire.NamedID("events"), "events-v2", nil); err != nil {
		t.Fatalf("rename topic: %v", err)
	}
	after := getTopic(t, c, stream, topic)
	if after.Name != "events-v2" || len(after.Explicit) != 0 || !optionsEqual(after.Derived, before.Derived) {
		t.Fatalf("renamed topic changed more than its name:\nbefore %+v\nafter  %+v", before, after)
	}
	wantCode(t, "missing topic", c.UpdateTopic(stream, wire.NumericID(9), "x", nil), wire.TopicIdNotFound)
}

func optionsEqual(a, b wire.Options) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Kind != b[i].Kind || !bytes.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// message_expiry is set (from a config-syntax string, stored canonical and
// explicit), then reset to its derived default; max_topic_size stays as set.
// covers RES-5, RES-6, RES-9, RES-12, RES-14, RES-24
func TestUpdateTopicExpiryAndReset(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "retention", "logs", 1)

	if err := c.UpdateTopic(stream, topic, "", wire.Options{strOption(wire.OptMaxTopicSize, "10 GiB")}); err != nil {
		t.Fatalf("set max_topic_size: %v", err)
	}
	if err := c.UpdateTopic(stream, topic, "", wire.Options{strOption(wire.OptMessageExpiry, "7 days")}); err != nil {
		t.Fatalf("set message_expiry: %v", err)
	}
	week := uint64(7 * 24 * 3600 * 1_000_000)
	h := getTopic(t, c, stream, topic)
	if v, ok := u64Option(h.Explicit, wire.OptMessageExpiry); !ok || v != week {
		t.Fatalf("explicit message_expiry %d %v, want %d; topic %+v", v, ok, week, h)
	}
	if _, ok := h.Derived.Get(wire.OptMessageExpiry); ok {
		t.Fatal("message_expiry is still derived after a set")
	}
	if v, ok := u64Option(h.Explicit, wire.OptMaxTopicSize); !ok || v != 10<<30 {
		t.Fatalf("max_topic_size lost by a later update: %d %v", v, ok)
	}

	if err := c.UpdateTopic(stream, topic, "", nil, wire.OptMessageExpiry); err != nil {
		t.Fatalf("reset message_expiry: %v", err)
	}
	h = getTopic(t, c, stream, topic)
	if _, ok := h.Explicit.Get(wire.OptMessageExpiry); ok {
		t.Fatal("message_expiry still explicit after a reset")
	}
	if v, ok := u64Option(h.Derived, wire.OptMessageExpiry); !ok || v != wire.Unlimited {
		t.Fatalf("derived message_expiry %d %v, want the default", v, ok)
	}
	if v, ok := u64Option(h.Explicit, wire.OptMaxTopicSize); !ok || v != 10<<30 {
		t.Fatalf("max_topic_size changed by a reset of another key: %d %v", v, ok)
	}
}

// covers RES-7, RES-8, RES-10, RES-11, RES-12, RES-13
func TestUpdateResourceRefusals(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "refusals", "t", 1)
	before := getTopic(t, c, stream, topic)

	setTopic := func(o wire.Option) error { return c.UpdateTopic(stream, topic, "", wire.Options{o}) }
	expiry := strOption(wire.OptMessageExpiry, "1h")
	wantCode(t, "set segment_size", setTopic(strOption(wire.OptSegmentSize, "2 MiB")), wire.OptionNotUpdatable)
	wantCode(t, "set compression", setTopic(strOption(wire.OptCompressionAlgorithm, "gzip")), wire.OptionNotUpdatable)
	wantCode(t, "set durability", setTopic(strOption(wire.OptDurability, "persisted")), wire.OptionNotUpdatable)
	wantCode(t, "set stream key", c.UpdateStream(stream, "", wire.Options{{Key: wire.OptEncryptionKey,
		Kind: wire.KindRaw, Value: make([]byte, wire.StreamKeyBytes)}}), wire.OptionNotUpdatable)
	wantCode(t, "reset segment_size", c.UpdateTopic(stream, topic, "", nil, wire.OptSegmentSize), wire.OptionNotResettable)
	wantCode(t, "reset name", c.UpdateTopic(stream, topic, "", nil, wire.ResourceKeyName), wire.OptionNotResettable)
	wantCode(t, "set read-only", c.UpdateStream(stream, "", wire.Options{strOption(wire.OptEncryptionKeySource, "none")}), wire.ReadOnlyOption)
	wantCode(t, "reset read-only", c.UpdateStream(stream, "", nil, wire.OptEncryptionKeyFingerprint), wire.ReadOnlyOption)
	wantCode(t, "unknown key", setTopic(strOption("colour", "red")), wire.UnsupportedOptionKey)
	wantCode(t, "username on a topic", setTopic(strOption(wire.ResourceKeyUsername, "abc")), wire.UnsupportedOptionKey)
	wantCode(t, "bad value", setTopic(wire.Option{Key: wire.OptMessageExpiry, Kind: wire.KindBool, Value: []byte{1}}), wire.InvalidOptionValue)
	wantCode(t, "set and reset", c.UpdateTopic(stream, topic, "", wire.Options{expiry}, wire.OptMessageExpiry), wire.InvalidCommand)
	wantCode(t, "max_topic_size below segment", setTopic(strOption(wire.OptMaxTopicSize, "1 KiB")), wire.InvalidTopicSize)

	// A malformed body is 3 before anything is logged.
	h, body, err := c.Do(wire.OpUpdateResource, 0, []byte{byte(wire.ScopeTopic), 1, 4})
	if err != nil || h.Status != wire.InvalidCommand || len(body) != 0 {
		t.Errorf("truncated body: status %d, %d body bytes, err %v", h.Status, len(body), err)
	}
	// The retired update operations stay refused (codes 204, 304, 35 as ops 129, 133, 142).
	for _, op := range []wire.Operation{wire.OpUpdateStream, wire.OpUpdateTopic, wire.OpUpdateUser} {
		w := wire.Writer{}
		wire.UpdateStreamRequest{StreamID: stream, Name: "x"}.Encode(&w)
		h, body, err := c.Do(op, 0, w.Buf)
		if err != nil || h.Status != wire.InvalidCommand || len(body) != 0 {
			t.Errorf("op %d: status %d, %d body bytes, err %v; want 3", op, h.Status, len(body), err)
		}
	}
	if after := getTopic(t, c, stream, topic); !optionsEqual(after.Explicit, before.Explicit) ||
		!optionsEqual(after.Derived, before.Derived) || after.Name != before.Name {
		t.Fatalf("a refused update changed the topic:\nbefore %+v\nafter  %+v", before, after)
	}
}

// Only root may rename root or change its status, and root cannot
// deactivate itself; other users are updated by holders of manage_users.
// covers RES-9, AUTH-3, AUTH-4, AUTH-5, AUTH-6, AUTH-7
func TestUpdateUserRootProtection(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	root := s.root()
	admin := &wire.Permissions{Global: wire.GlobalPermissions{ManageUsers: true}}
	if _, err := root.CreateUser("admin", "admin-pass", wire.UserStatusActive, admin); err != nil {
		t.Fatal(err)
	}
	carol, err := root.CreateUser("carol", "carol-pass", wire.UserStatusActive, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := s.login("admin", "admin-pass")
	rootID := wire.NumericID(0)
	wantCode(t, "admin renames root", a.UpdateUser(rootID, "boss", 0), wire.CannotModifyRootUser)
	wantCode(t, "admin deactivates root", a.UpdateUser(rootID, "", wire.UserStatusInactive), wire.CannotModifyRootUser)
	wantCode(t, "root deactivates itself", root.UpdateUser(rootID, "", wire.UserStatusInactive), wire.CannotModifyRootUser)
	u, found, err := root.GetUser(rootID)
	if err != nil || !found || u.Username != rootUsername || u.Status != wire.UserStatusActive {
		t.Fatalf("root after refused updates: %+v found %v err %v", u.UserInfo, found, err)
	}

	if err := a.UpdateUser(wire.NumericID(carol.ID), "caroline", wire.UserStatusInactive); err != nil {
		t.Fatalf("admin updates carol: %v", err)
	}
	u, found, err = root.GetUser(wire.NamedID("caroline"))
	if err != nil || !found || u.ID != carol.ID || u.Status != wire.UserStatusInactive {
		t.Fatalf("carol after update: %+v found %v err %v", u.UserInfo, found, err)
	}
	wantCode(t, "username taken", a.UpdateUser(wire.NamedID("caroline"), "admin", 0), wire.UserAlreadyExists)
	wantCode(t, "missing user", a.UpdateUser(wire.NumericID(77), "ghost", 0), wire.ResourceNotFound)
	wantCode(t, "status 3 as a key", a.UpdateResource(wire.UpdateResourceRequest{Scope: wire.ScopeUser,
		User: wire.NumericID(carol.ID), Set: wire.Options{{Key: wire.ResourceKeyStatus, Kind: wire.KindUint8,
			Value: []byte{3}}}}), wire.InvalidOptionValue)
	if err := root.UpdateUser(rootID, "superuser", 0); err != nil {
		t.Fatalf("root renames itself: %v", err)
	}
}

// Any node answers 105 with every partition's primary; a standalone node is
// replica 0, in view 0, for every partition.
// covers PLACE-19, PLACE-20
func TestPartitionRoutes(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "routed", "three", 3)
	checkRoutes := func(want int) {
		t.Helper()
		routes, err := c.PartitionRoutes(stream, topic)
		if err != nil || len(routes) != want {
			t.Fatalf("routes: %+v err %v, want %d", routes, err, want)
		}
		for i, r := range routes {
			if r.PartitionID != uint32(i) || r.Primary != 0 || r.View != 0 {
				t.Fatalf("route %d: %+v", i, r)
			}
		}
	}
	checkRoutes(3)
	if err := c.CreatePartitions(stream, topic, 1); err != nil {
		t.Fatal(err)
	}
	checkRoutes(4)
	_, err := c.PartitionRoutes(wire.NumericID(42), topic)
	wantCode(t, "missing stream", err, wire.StreamIdNotFound)
	_, err = c.PartitionRoutes(stream, wire.NamedID("nope"))
	wantCode(t, "missing topic", err, wire.TopicIdNotFound)

	if _, err := c.CreateUser("nobody", "nobody-pass", wire.UserStatusActive, nil); err != nil {
		t.Fatal(err)
	}
	producer := &wire.Permissions{Streams: map[uint32]wire.StreamPermissions{stream.ID: {SendMessages: true}}}
	if _, err := c.CreateUser("producer", "producer-pass", wire.UserStatusActive, producer); err != nil {
		t.Fatal(err)
	}
	_, err = s.login("nobody", "nobody-pass").PartitionRoutes(stream, topic)
	wantCode(t, "no rights", err, wire.Unauthorized)
	if routes, err := s.login("producer", "producer-pass").PartitionRoutes(stream, topic); err != nil || len(routes) != 4 {
		t.Fatalf("producer routes: %+v %v", routes, err)
	}
}
