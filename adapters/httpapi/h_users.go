package httpapi

import (
	"net/http"
	"strings"

	"github.com/iggygo/iggy/wire"
)

// userJSON is UserInfo; userDetailsJSON adds the permissions (http.md 4.2).
type userJSON struct {
	ID        uint32                `json:"id"`
	CreatedAt uint64                `json:"created_at"`
	Status    string                `json:"status"`
	Username  string                `json:"username"`
	Options   map[string]optionView `json:"options"`
}

type userDetailsJSON struct {
	userJSON
	Permissions *permissionsJSON `json:"permissions"`
}

func userView(u wire.UserInfo) userJSON {
	status := "active"
	if u.Status == wire.UserStatusInactive {
		status = "inactive"
	}
	opts, _ := wire.DecodeOptions(u.Options)
	return userJSON{ID: u.ID, CreatedAt: u.CreatedAt, Status: status, Username: u.Username, Options: optionViews(opts, nil)}
}

// userPath reads {user_id}; "me" is the caller.
func userPath(c caller, r *http.Request) (wire.Identifier, *apiError) {
	if r.PathValue("user_id") == "me" {
		return wire.NumericID(c.userID()), nil
	}
	return pathID(r, "user_id")
}

// GET /users
func (s *Server) getUsers(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	payload, e := s.call(c, wire.CmdGetUsers, nil, readPolicy, readTimeout)
	if e != nil {
		return e
	}
	users, code := wire.DecodeUsers(payload)
	if code != wire.OK {
		return badReply("GetUsers")
	}
	out := make([]userJSON, 0, len(users))
	for _, u := range users {
		out = append(out, userView(u))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// GET /users/{user_id}
func (s *Server) getUser(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := userPath(c, r)
	if e != nil {
		return e
	}
	payload, e := s.call(c, wire.CmdGetUser, encode(func(w *wire.Writer) { w.Identifier(id) }), readPolicy, readTimeout)
	if e != nil {
		return e
	}
	if len(payload) == 0 {
		return notFound()
	}
	d, code := wire.DecodeUserDetails(payload)
	if code != wire.OK {
		return badReply("GetUser")
	}
	writeJSON(w, http.StatusOK, userDetailsJSON{userJSON: userView(d.UserInfo), Permissions: permissionsView(d.Permissions)})
	return nil
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
	payload, e := s.call(c, wire.CmdCreateUser, encode(req.Encode), metaPolicy, metaTimeout)
	if e != nil {
		return e
	}
	d, code := wire.DecodeUserDetails(payload)
	if code != wire.OK {
		return badReply("CreateUser")
	}
	writeJSON(w, http.StatusOK, userDetailsJSON{userJSON: userView(d.UserInfo), Permissions: permissionsView(d.Permissions)})
	return nil
}

// PUT /users/{user_id} with a flat body: username, status, reset (RES-19).
func (s *Server) updateUser(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := userPath(c, r)
	if e != nil {
		return e
	}
	return s.update(c, w, r, wire.UpdateResourceRequest{Scope: wire.ScopeUser, User: id})
}

// DELETE /users/{user_id}
func (s *Server) deleteUser(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := userPath(c, r)
	if e != nil {
		return e
	}
	if _, e := s.call(c, wire.CmdDeleteUser, encode(func(w *wire.Writer) { w.Identifier(id) }), metaPolicy, metaTimeout); e != nil {
		return e
	}
	return noContent(w)
}

// PUT /users/{user_id}/password with {"current_password", "new_password"}.
func (s *Server) changePassword(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := userPath(c, r)
	if e != nil {
		return e
	}
	o, e := readObject(r)
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
	if _, e := s.call(c, wire.CmdChangePassword, encode(req.Encode), metaPolicy, metaTimeout); e != nil {
		return e
	}
	return noContent(w)
}

// PUT /users/{user_id}/permissions with {"permissions": object | null}.
func (s *Server) updatePermissions(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	id, e := userPath(c, r)
	if e != nil {
		return e
	}
	o, e := readObject(r)
	if e != nil {
		return e
	}
	perms, e := permissionsMember(o, "permissions")
	if e != nil {
		return e
	}
	req := wire.UpdatePermissionsRequest{UserID: id, Permissions: perms}
	if _, e := s.call(c, wire.CmdUpdatePermissions, encode(req.Encode), metaPolicy, metaTimeout); e != nil {
		return e
	}
	return noContent(w)
}

// patJSON is one token of GET /personal-access-tokens.
type patJSON struct {
	Name     string  `json:"name"`
	ExpiryAt *uint64 `json:"expiry_at"`
}

// GET /personal-access-tokens: the caller's own tokens.
func (s *Server) getTokens(c caller, w http.ResponseWriter, _ *http.Request) *apiError {
	payload, e := s.call(c, wire.CmdGetPersonalAccessTokens, nil, readPolicy, readTimeout)
	if e != nil {
		return e
	}
	tokens, code := wire.DecodePATs(payload)
	if code != wire.OK {
		return badReply("GetPersonalAccessTokens")
	}
	out := make([]patJSON, 0, len(tokens))
	for _, t := range tokens {
		j := patJSON{Name: t.Name}
		if t.ExpiryAt != wire.PATExpiryAtNever {
			at := t.ExpiryAt
			j.ExpiryAt = &at
		}
		out = append(out, j)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// POST /personal-access-tokens with {"name", "expiry"?} (µs; 0 is the
// server default, u64::MAX never): {"token"}, shown once.
func (s *Server) createToken(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	o, e := readObject(r)
	if e != nil {
		return e
	}
	name, _, e := o.str("name", true)
	if e != nil {
		return e
	}
	if !validName(name) {
		return fromCode(wire.InvalidPersonalAccessTokenName, "name")
	}
	expiry, _, e := o.uint("expiry", wire.PATExpiryNever, false)
	if e != nil {
		return e
	}
	req := wire.CreatePATRequest{Name: name, Expiry: expiry}
	payload, e := s.call(c, wire.CmdCreatePersonalAccessToken, encode(req.Encode), metaPolicy, metaTimeout)
	if e != nil {
		return e
	}
	reply, code := wire.DecodeCreatePATReply(payload)
	if code != wire.OK {
		return badReply("CreatePersonalAccessToken")
	}
	writeJSON(w, http.StatusOK, map[string]string{"token": reply.Token})
	return nil
}

// DELETE /personal-access-tokens/{name}
func (s *Server) deleteToken(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	name := r.PathValue("name")
	if !validName(name) {
		return fromCode(wire.InvalidPersonalAccessTokenName, "name")
	}
	body := encode(func(w *wire.Writer) { wire.EncodeDeletePAT(w, name) })
	if _, e := s.call(c, wire.CmdDeletePersonalAccessToken, body, metaPolicy, metaTimeout); e != nil {
		return e
	}
	return noContent(w)
}
