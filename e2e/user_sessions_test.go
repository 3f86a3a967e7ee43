package e2e

import (
	"testing"

	"github.com/iggygo/iggy/client"

	"github.com/iggygo/iggy/wire"
)

// Deleting or deactivating a user ends its live sessions: the connection is
// no longer bound, so reads get 40 and writes eviction 1.
// covers SESS-14
func TestDeletedUserLosesItsSessions(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	root := s.root()
	perms := &wire.Permissions{Global: wire.GlobalPermissions{ReadStreams: true, ManageStreams: true}}
	for _, name := range []string{"leaving", "paused"} {
		if _, err := root.CreateUser(name, name+"-pass", wire.UserStatusActive, perms); err != nil {
			t.Fatalf("create user %s: %v", name, err)
		}
	}
	leaving, paused := s.login("leaving", "leaving-pass"), s.login("paused", "paused-pass")
	for _, c := range []*client.Client{leaving, paused} {
		if _, err := c.GetStreams(); err != nil {
			t.Fatalf("read before: %v", err)
		}
	}
	if err := root.DeleteUser(wire.NamedID("leaving")); err != nil {
		t.Fatalf("delete user: %v", err)
	}
	if err := root.UpdateUser(wire.NamedID("paused"), "", wire.UserStatusInactive); err != nil {
		t.Fatalf("deactivate user: %v", err)
	}
	_, err := leaving.GetStreams()
	wantCode(t, "read after the user was deleted", err, wire.Unauthenticated)
	_, err = paused.CreateStream("nope")
	wantEviction(t, "write after the user was deactivated", err, wire.EvictNoSession)
}
