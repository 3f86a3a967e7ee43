package metadata

import (
	"testing"

	"github.com/iggygo/iggy/wire"
)

// covers ROOT-1, ROOT-5, ROOT-6
func TestRootIsCreatedByTheFirstOp(t *testing.T) {
	s := New()
	r := s.Apply(Ctx{Op: 1, NowMicros: 42}, &CreateUser{Username: "admin", PasswordHash: "H", Status: UserInactive})
	if r.Code != wire.OK || r.User.ID != RootUserID || r.User.Status != UserActive || r.User.CreatedAtMicros != 42 {
		t.Fatalf("root %+v code %d", r.User, r.Code)
	}
	if !r.User.Permissions.Global.ManageServers || !r.User.Permissions.Global.SendMessages {
		t.Fatalf("root permissions %+v", r.User.Permissions)
	}
	// A follower applying the same op holds the same username and hash.
	f := New()
	f.Apply(Ctx{Op: 1, NowMicros: 42}, &CreateUser{Username: "admin", PasswordHash: "H"})
	if string(f.Snapshot()) != string(s.Snapshot()) {
		t.Fatal("follower state differs")
	}
	// Only the node itself (user 0) may create root.
	if r := New().Apply(Ctx{Op: 1, UserID: 5}, &CreateUser{Username: "admin", PasswordHash: "H"}); r.Code != wire.Unauthorized {
		t.Fatalf("code %d", r.Code)
	}
	if r := New().Apply(Ctx{Op: 1}, &CreateUser{Username: "ad", PasswordHash: "H"}); r.Code != wire.InvalidUsername {
		t.Fatalf("code %d", r.Code)
	}
}

func TestCreateUser(t *testing.T) {
	h := newHarness(t)
	p := &wire.Permissions{Global: wire.GlobalPermissions{ReadUsers: true}}
	r := h.ok(RootUserID, &CreateUser{Username: "bob", PasswordHash: "hb", Status: UserInactive, Permissions: p})
	u := r.User
	if u.ID != 1 || u.Username != "bob" || u.PasswordHash != "hb" || u.Status != UserInactive || !u.Permissions.Global.ReadUsers {
		t.Fatalf("user %+v", u)
	}
	p.Global.ManageServers = true
	if u.Permissions.Global.ManageServers {
		t.Fatal("state shares the command's permissions")
	}
	h.code(RootUserID, &CreateUser{Username: "bob", PasswordHash: "x"}, wire.UserAlreadyExists)
	h.code(RootUserID, &CreateUser{Username: "ab", PasswordHash: "x"}, wire.InvalidUsername)
	h.code(RootUserID, &CreateUser{Username: "a23456789012345678901234567890123456789012345678901", PasswordHash: "x"}, wire.InvalidUsername)
	h.code(u.ID, &CreateUser{Username: "carl", PasswordHash: "x"}, wire.Unauthorized)
	// Ids come from a counter: a deleted user's id is never given again.
	h.ok(RootUserID, &DeleteUser{User: named("bob")})
	if id := h.user("dave", nil); id != 2 {
		t.Fatalf("id %d, want 2", id)
	}
	if got, ok := h.s.User(named("dave")); !ok || got.ID != 2 {
		t.Fatal("lookup by name")
	}
	if n := len(h.s.Users()); n != 2 {
		t.Fatalf("%d users", n)
	}
}

func TestDeleteUser(t *testing.T) {
	h := newHarness(t)
	u := h.user("bob", nil)
	h.ok(u, &CreatePersonalAccessToken{Name: "a", TokenHash: "ha"})
	r := h.ok(RootUserID, &DeleteUser{User: num(u)})
	if len(r.Effects) != 1 || r.Effects[0] != (UserDeleted{User: u}) {
		t.Fatalf("effects %+v", r.Effects)
	}
	if _, ok := h.s.TokenByHash("ha"); ok {
		t.Fatal("token survived its user")
	}
	h.code(RootUserID, &DeleteUser{User: num(u)}, wire.ResourceNotFound)
	h.code(RootUserID, &DeleteUser{User: num(RootUserID)}, wire.CannotDeleteUser)
	m := h.user("manager", &wire.Permissions{Global: wire.GlobalPermissions{ManageUsers: true}})
	h.code(m, &DeleteUser{User: named("iggy")}, wire.CannotDeleteUser)
	r2 := h.user("reader", &wire.Permissions{Global: wire.GlobalPermissions{ReadUsers: true}})
	h.code(r2, &DeleteUser{User: num(m)}, wire.Unauthorized)
}

func TestUpdateUser(t *testing.T) {
	h := newHarness(t)
	u := h.user("bob", nil)
	h.user("eve", nil)
	r := h.ok(RootUserID, &UpdateUser{User: num(u), Username: "robert", Status: UserInactive})
	if len(r.Effects) != 1 || r.Effects[0] != (UserDeactivated{User: u}) {
		t.Fatalf("effects %+v", r.Effects)
	}
	got, _ := h.s.User(named("robert"))
	if got == nil || got.Status != UserInactive {
		t.Fatalf("user %+v", got)
	}
	h.ok(RootUserID, &UpdateUser{User: num(u), Status: 9}) // ignored
	if got.Status != UserInactive {
		t.Fatal("status 9 applied")
	}
	h.code(RootUserID, &UpdateUser{User: num(u), Username: "eve"}, wire.UserAlreadyExists)
	h.code(RootUserID, &UpdateUser{User: num(u), Username: "ev"}, wire.InvalidUsername)
	h.code(RootUserID, &UpdateUser{User: num(77), Username: "zed"}, wire.ResourceNotFound)
	h.code(u, &UpdateUser{User: num(u), Username: "bobby"}, wire.Unauthorized) // inactive, no rights
	h.code(RootUserID, &UpdateResource{Scope: ScopeUser, User: num(u), Set: block(opt("x", kindString, []byte("y")))}, wire.UnsupportedOptionKey)
}

// covers AUTH-3, AUTH-4, AUTH-5, AUTH-6, AUTH-7
func TestRootProtection(t *testing.T) {
	h := newHarness(t)
	m := h.user("manager", &wire.Permissions{Global: wire.GlobalPermissions{ManageUsers: true}})
	h.code(m, &UpdateUser{User: num(RootUserID), Username: "owned"}, wire.CannotModifyRootUser)
	h.code(m, &UpdateUser{User: named("iggy"), Status: UserInactive}, wire.CannotModifyRootUser)
	h.code(m, &UpdateUser{User: num(RootUserID), Status: UserActive}, wire.CannotModifyRootUser)
	h.code(m, &UpdateResource{Scope: ScopeUser, User: num(RootUserID), Name: "owned"}, wire.CannotModifyRootUser)
	h.code(RootUserID, &UpdateUser{User: num(RootUserID), Status: UserInactive}, wire.CannotModifyRootUser)
	h.code(RootUserID, &UpdateUser{User: num(RootUserID), Username: "admin", Status: UserInactive}, wire.CannotModifyRootUser)
	root, _ := h.s.User(num(RootUserID))
	if root.Username != "iggy" || root.Status != UserActive {
		t.Fatalf("root changed: %+v", root)
	}
	h.ok(RootUserID, &UpdateUser{User: num(RootUserID), Username: "admin"})
	if root.Username != "admin" {
		t.Fatal("root could not rename itself")
	}
	h.code(m, &UpdatePermissions{User: num(RootUserID)}, wire.CannotChangePermissions)
	h.code(m, &ChangePassword{User: num(RootUserID), ExpectedHash: rootHash, PasswordHash: "mine"}, wire.CannotModifyRootUser)
}

func TestChangePassword(t *testing.T) {
	h := newHarness(t)
	u := h.user("bob", nil)
	other := h.user("eve", nil)
	h.ok(u, &ChangePassword{User: num(u), ExpectedHash: "h-bob", PasswordHash: "new"})
	got, _ := h.s.User(num(u))
	if got.PasswordHash != "new" {
		t.Fatal("hash not changed")
	}
	h.code(u, &ChangePassword{User: num(u), ExpectedHash: "h-bob", PasswordHash: "newer"}, wire.InvalidCredentials)
	h.code(u, &ChangePassword{User: num(u), ExpectedHash: "", PasswordHash: "newer"}, wire.InvalidCredentials)
	h.code(u, &ChangePassword{User: num(other), ExpectedHash: "h-eve", PasswordHash: "x"}, wire.Unauthorized)
	h.code(u, &ChangePassword{User: num(99), ExpectedHash: "h", PasswordHash: "x"}, wire.ResourceNotFound)
	h.ok(RootUserID, &ChangePassword{User: num(other), ExpectedHash: "h-eve", PasswordHash: "x"})
	h.ok(RootUserID, &ChangePassword{User: num(RootUserID), ExpectedHash: rootHash, PasswordHash: "r2"})
}

func TestUpdatePermissions(t *testing.T) {
	h := newHarness(t)
	u := h.user("bob", nil)
	p := &wire.Permissions{Global: wire.GlobalPermissions{ReadStreams: true}}
	h.ok(RootUserID, &UpdatePermissions{User: num(u), Permissions: p})
	if !h.s.Authorize(u, ActionReadStreams, 0, NoResource) {
		t.Fatal("grant not applied")
	}
	h.ok(RootUserID, &UpdatePermissions{User: named("bob")})
	if h.s.Authorize(u, ActionReadStreams, 0, NoResource) {
		t.Fatal("grant not cleared")
	}
	h.code(RootUserID, &UpdatePermissions{User: num(9)}, wire.ResourceNotFound)
	h.code(u, &UpdatePermissions{User: num(u), Permissions: rootPermissions()}, wire.Unauthorized)
}
