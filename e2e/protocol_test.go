package e2e

import (
	"context"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// The login gate admits 0.12.0 through 0.12.2 and refuses anything else with
// Eviction 14 carrying the window [0.12.0, 0.12.2]; a 0.11.0 client is
// refused on its version prefix alone, before its credentials are decoded.
// covers TRAN-6, TRAN-7, TRAN-8, AUTH-11
func TestProtocolVersionGate(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	for _, v := range [][3]uint32{{0, 12, 0}, {0, 12, 1}, {0, 12, 2}} {
		c := dialVersion(t, s, wire.PackProtocolVersion(v[0], v[1], v[2]))
		info, err := c.LoginUser(rootUsername, rootPassword)
		if err != nil || info.UserID != 0 || info.Session == 0 {
			t.Errorf("version %v: login %+v, %v", v, info, err)
		}
	}
	for _, v := range [][3]uint32{{0, 11, 0}, {0, 13, 0}} {
		c := dialVersion(t, s, wire.PackProtocolVersion(v[0], v[1], v[2]))
		_, err := c.LoginUser(rootUsername, rootPassword)
		e := wantEviction(t, "login with an old or new protocol", err, wire.EvictIncompatibleProtocol)
		if e.VersionMin != wire.PackProtocolVersion(0, 12, 0) || e.VersionMax != wire.PackProtocolVersion(0, 12, 2) {
			t.Errorf("version %v: window %s..%s, want 0.12.0..0.12.2", v, e.VersionMin, e.VersionMax)
		}
	}
	// Only the prefix is read: credentials that decode as neither shape still
	// get the version eviction, not MalformedLogin.
	var w wire.Writer
	wire.LoginPrefix{Version: wire.PackProtocolVersion(0, 11, 0), SDKName: "old-sdk", SDKVersion: "0.9.0"}.Encode(&w)
	w.Bytes([]byte{0xFF})
	_, _, err := s.dial().Do(wire.OpRegister, 0, w.Buf)
	wantEviction(t, "0.11.0 prefix with garbage credentials", err, wire.EvictIncompatibleProtocol)
}

func dialVersion(t *testing.T, s *server, v wire.ProtocolVersion) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), s.addr, client.Options{ProtocolVersion: v, RequestTimeout: requestTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Retired and unknown command codes sent as non-replicated requests on a
// bound session get status 3 (InvalidCommand).
// covers SESS-3, RES-8, RES-43, MSG-21
func TestRetiredAndUnknownCodes(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	retired := []wire.Command{14, 103, 104, 123, 124, 204, 205, 304, 305, 35}
	unknown := []wire.Command{0, 7, 99, 999, 7777, 0xFFFFFFFF}
	for _, code := range append(retired, unknown...) {
		h, body, err := c.Do(wire.OpNonReplicated, code, nil)
		if err != nil || h.Status != wire.InvalidCommand || len(body) != 0 {
			t.Errorf("code %d: status %d, %d body bytes, err %v; want status 3", code, h.Status, len(body), err)
		}
	}
	if err := c.Ping(); err != nil {
		t.Fatalf("session unusable after refused codes: %v", err)
	}
}

// Authentication failures: a wrong password is Eviction 9; before login a
// non-replicated read is status 40 and a replicated op is Eviction 1.
// covers AUTH-10, TRAN-1
func TestAuthenticationFailures(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	_, err := s.dial().LoginUser(rootUsername, "not-the-password")
	wantEviction(t, "wrong password", err, wire.EvictInvalidCredentials)

	_, err = s.dial().LoginUser("nobody-here", "whatever")
	wantEviction(t, "unknown user", err, wire.EvictInvalidCredentials)

	c := s.dial()
	if err := c.Ping(); err != nil {
		t.Fatalf("ping before login: %v", err)
	}
	_, err = c.GetStreams()
	wantCode(t, "GetStreams before login", err, wire.Unauthenticated)

	// A replicated op needs session > 0 to pass header validation, so the
	// raw header claims one the connection does not have.
	body := encodeBody(wire.CreateStreamRequest{Name: "never"}.Encode)
	_, _, err = c.DoHeader(wire.RequestHeader{Operation: wire.OpCreateStream, Request: 1, Session: 1}, body)
	wantEviction(t, "CreateStream before login", err, wire.EvictNoSession)
}

// Missing resources and duplicate names are refused with their codes.
// covers TRAN-1, MSG-13
func TestMissingAndDuplicateResources(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "present", "here", 2)
	missing := wire.NumericID(4242)

	_, err := c.CreateTopic(missing, "t", 1, nil)
	wantCode(t, "CreateTopic in a missing stream", err, wire.StreamIdNotFound)
	wantCode(t, "DeleteStream missing", c.DeleteStream(missing), wire.StreamIdNotFound)
	wantCode(t, "DeleteTopic missing", c.DeleteTopic(stream, missing), wire.TopicIdNotFound)

	part := func(id uint32) wire.Partitioning {
		return wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: id}
	}
	msgs := []client.Message{{ID: messageID(0xE0, 1), Payload: []byte("x")}}
	_, err = c.SendMessages(missing, topic, part(0), msgs)
	wantCode(t, "send to a missing stream", err, wire.StreamIdNotFound)
	_, err = c.SendMessages(stream, missing, part(0), msgs)
	wantCode(t, "send to a missing topic", err, wire.TopicIdNotFound)
	_, err = c.SendMessages(stream, topic, part(7), msgs)
	wantCode(t, "send to a missing partition", err, wire.PartitionNotFound)

	p := uint32(7)
	_, _, err = c.PollMessages(client.Consumer(1), stream, topic, &p, wire.PollOffset, 0, 10, false)
	wantCode(t, "poll a missing partition", err, wire.PartitionNotFound)
	p = 0
	_, _, err = c.PollMessages(client.Consumer(1), missing, topic, &p, wire.PollOffset, 0, 10, false)
	wantCode(t, "poll a missing stream", err, wire.StreamIdNotFound)
	_, _, err = c.PollMessages(client.Consumer(1), stream, missing, &p, wire.PollOffset, 0, 10, false)
	wantCode(t, "poll a missing topic", err, wire.TopicIdNotFound)

	_, err = c.CreateStream("present")
	wantCode(t, "duplicate stream name", err, wire.StreamNameAlreadyExists)
	_, err = c.CreateTopic(stream, "here", 1, nil)
	wantCode(t, "duplicate topic name", err, wire.TopicNameAlreadyExists)

	if _, found, err := c.GetStream(missing); err != nil || found {
		t.Errorf("GetStream missing: found %v err %v", found, err)
	}
	if _, found, err := c.GetTopic(stream, missing); err != nil || found {
		t.Errorf("GetTopic missing: found %v err %v", found, err)
	}
}

// A user without permissions is refused with 41 (Unauthorized), and the
// refused create changes nothing.
// covers SESS-12, SESS-24, AUTH-11
func TestPermissionDenied(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	root := s.root()
	u, err := root.CreateUser("alice", "alice-pass", wire.UserStatusActive, nil)
	if err != nil || u.Username != "alice" {
		t.Fatalf("create user: %+v %v", u, err)
	}
	alice := s.dial()
	info, err := alice.LoginUser("alice", "alice-pass")
	if err != nil || info.UserID != u.ID {
		t.Fatalf("login alice: %+v %v (user id %d)", info, err, u.ID)
	}
	_, err = alice.CreateStream("alice-stream")
	wantCode(t, "CreateStream without manage_streams", err, wire.Unauthorized)
	_, err = alice.GetStats()
	wantCode(t, "GetStats without read_servers", err, wire.Unauthorized)
	_, err = alice.CreateUser("mallory", "mallory-pass", wire.UserStatusActive, nil)
	wantCode(t, "CreateUser without manage_users", err, wire.Unauthorized)

	streams, err := root.GetStreams()
	if err != nil || len(streams) != 0 {
		t.Fatalf("streams after a refused create: %v %v", streams, err)
	}
	// Granting the permission takes effect on the live session.
	perms := &wire.Permissions{Global: wire.GlobalPermissions{ManageStreams: true, ReadStreams: true}}
	if err := root.UpdatePermissions(wire.NumericID(u.ID), perms); err != nil {
		t.Fatalf("update permissions: %v", err)
	}
	if _, err := alice.CreateStream("alice-stream"); err != nil {
		t.Fatalf("CreateStream after the grant: %v", err)
	}
}

func encodeBody(f func(*wire.Writer)) []byte {
	var w wire.Writer
	f(&w)
	return w.Buf
}
