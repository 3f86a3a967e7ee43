package httpapi

import (
	"net/http"
	"strings"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/rest"
)

func userDetailsView(d wire.UserDetails) rest.UserDetails {
	return rest.UserDetails{User: userView(d.UserInfo), Permissions: d.Permissions}
}

// encodeIdentifier is the body of a request that names one user.
func encodeIdentifier(id wire.Identifier) []byte {
	return encode(func(w *wire.Writer) { w.Identifier(id) })
}

func userView(u wire.UserInfo) rest.User {
	status := "active"
	if u.Status == wire.UserStatusInactive {
		status = "inactive"
	}
	opts, _ := wire.DecodeOptions(u.Options)
	return rest.User{ID: u.ID, CreatedAt: u.CreatedAt, Status: status, Username: u.Username, Options: optionViews(opts, nil)}
}

// userPath reads {user_id}; "me" is the caller.
func (c caller) userPath(r *http.Request) (wire.Identifier, *apiError) {
	if r.PathValue("user_id") == "me" {
		return wire.NumericID(c.userID()), nil
	}
	return pathID(r, "user_id")
}

// GET /users
func (s *Server) getUsers(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	return readList(s, c, w, wire.CmdGetUsers, nil, wire.DecodeUsers, userView)
}

// GET /users/{user_id}
func (s *Server) getUser(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := c.userPath(r)
	if e != nil {
		return e
	}
	return readOne(s, c, w, wire.CmdGetUser, encodeIdentifier(id), emptyIsAbsent(wire.DecodeUserDetails), userDetailsView)
}

// userStatus reads the status word; absent is active.
func userStatus(o object) (wire.UserStatus, *apiError) {
	s, ok, e := o.str("status", false)
	if e != nil || !ok {
		return wire.UserStatusActive, e
	}
	switch strings.ToLower(s) {
	case "active":
		return wire.UserStatusActive, nil
	case "inactive":
		return wire.UserStatusInactive, nil
	}
	return 0, shapeError("status", "expected active or inactive")
}

// parseCreateUser reads a POST /users body: {"username", "password",
// "status"?, "permissions"?, "options"?}; any other member is refused
// naming it (RES-17, RES-18).
func parseCreateUser(o object) (wire.CreateUserRequest, *apiError) {
	var req wire.CreateUserRequest
	if e := o.onlyMembers("username", "password", "status", "permissions", "options"); e != nil {
		return req, e
	}
	username, _, e := o.str("username", true)
	if e != nil {
		return req, e
	}
	password, _, e := o.str("password", true)
	if e != nil {
		return req, e
	}
	if !validName(username) {
		return req, fromCode(wire.InvalidUsername, "username")
	}
	if len(password) > nameBytesMax {
		return req, fromCode(wire.InvalidPassword, "password")
	}
	status, e := userStatus(o)
	if e != nil {
		return req, e
	}
	perms, e := permissionsMember(o, "permissions")
	if e != nil {
		return req, e
	}
	opts, e := optionsObject(wire.UserCatalog, o)
	if e != nil {
		return req, e
	}
	return wire.CreateUserRequest{Username: username, Password: password, Status: status, Permissions: perms,
		Options: encode(func(w *wire.Writer) { w.OptionsInOrder(opts) })}, nil
}

// POST /users
func (s *Server) createUser(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	o, e := readObject(r)
	if e != nil {
		return e
	}
	req, e := parseCreateUser(o)
	if e != nil {
		return e
	}
	d, e := fetch(s, c, metaWrite, wire.CmdCreateUser, encode(req.Encode), wire.DecodeUserDetails)
	if e != nil {
		return e
	}
	return okJSON(w, userDetailsView(d))
}

// PUT /users/{user_id} with a flat body: username, status, reset (RES-19).
func (s *Server) updateUser(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := c.userPath(r)
	if e != nil {
		return e
	}
	return s.update(c, w, r, wire.UpdateResourceRequest{Scope: wire.ScopeUser, User: id})
}

// DELETE /users/{user_id}
func (s *Server) deleteUser(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := c.userPath(r)
	if e != nil {
		return e
	}
	return s.command(c, w, metaWrite, wire.CmdDeleteUser, encodeIdentifier(id))
}

// PUT /users/{user_id}/password with {"current_password", "new_password"}.
func (s *Server) changePassword(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, o, e := pathAndBody(r, c.userPath)
	if e != nil {
		return e
	}
	current, _, e := o.str("current_password", true)
	if e != nil {
		return e
	}
	next, _, e := o.str("new_password", true)
	if e != nil {
		return e
	}
	if len(current) > nameBytesMax || len(next) > nameBytesMax {
		return fromCode(wire.InvalidPassword, "")
	}
	req := wire.ChangePasswordRequest{UserID: id, CurrentPassword: current, NewPassword: next}
	return s.command(c, w, metaWrite, wire.CmdChangePassword, encode(req.Encode))
}

// PUT /users/{user_id}/permissions with {"permissions": object | null}.
func (s *Server) updatePermissions(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, o, e := pathAndBody(r, c.userPath)
	if e != nil {
		return e
	}
	perms, e := permissionsMember(o, "permissions")
	if e != nil {
		return e
	}
	req := wire.UpdatePermissionsRequest{UserID: id, Permissions: perms}
	return s.command(c, w, metaWrite, wire.CmdUpdatePermissions, encode(req.Encode))
}
