package httpapi

import (
	"net/http"

	"github.com/iggygo/iggy/wire"
)

// identityInfo is the answer of every login and refresh (http.md 4.1), with
// the refresh token of the target release beside the access token.
type identityInfo struct {
	UserID       uint32      `json:"user_id"`
	AccessToken  mintedToken `json:"access_token"`
	RefreshToken mintedToken `json:"refresh_token"`
}

// POST /users/login: a password Register on a fresh node connection, which
// becomes the session of the tokens it returns (AUTH-11).
func (s *Server) login(w http.ResponseWriter, r *http.Request) *apiError {
	o, e := readObject(r)
	if e != nil {
		return e
	}
	username, _, e := o.str("username", true)
	if e != nil {
		return e
	}
	password, _, e := o.str("password", true)
	if e != nil {
		return e
	}
	if !validName(username) || len(password) > nameBytesMax {
		return fromCode(wire.InvalidCredentials, "")
	}
	return s.openLogin(w, r, func(c *nodeConn) error { return c.registerPassword(username, password, registerTimeout) })
}

// POST /personal-access-tokens/login: the same with a token Register.
func (s *Server) patLogin(w http.ResponseWriter, r *http.Request) *apiError {
	o, e := readObject(r)
	if e != nil {
		return e
	}
	token, _, e := o.str("token", true)
	if e != nil {
		return e
	}
	if len(token) > nameBytesMax {
		return fromCode(wire.InvalidPersonalAccessToken, "")
	}
	return s.openLogin(w, r, func(c *nodeConn) error { return c.registerToken(token, registerTimeout) })
}

// openLogin registers a node session with register and issues the tokens
// of a new login session for it.
func (s *Server) openLogin(w http.ResponseWriter, r *http.Request, register func(*nodeConn) error) *apiError {
	conn, err := openConn(s.hub, r.RemoteAddr)
	if err != nil {
		return unavailable("Cannot open a node session.")
	}
	if err := register(conn); err != nil {
		conn.release()
		return loginFailure(err)
	}
	user, e := s.tokenUser(conn)
	if e != nil {
		conn.release()
		return e
	}
	sid, err := randomKey()
	if err != nil {
		conn.release()
		return unavailable("Cannot draw a session id.")
	}
	info, e := s.issue(sid, user)
	if e != nil {
		conn.release()
		return e
	}
	key := keySession + sid
	p, e := s.principal(key, s.now(), func() *principal {
		return &principal{key: key, kind: kindLogin, user: wire.NamedID(user.name), userID: user.id,
			conn: conn, expires: s.tokens.expiry(info.RefreshToken.Expiry)}
	})
	if e != nil {
		conn.release()
		return e
	}
	if p.conn != conn {
		conn.release() // a session id collision: impossible with 128 random bits
		return unavailable("Session id collision; retry.")
	}
	writeJSON(w, http.StatusOK, info)
	return nil
}

// tokenUser reads the session's own user (a self read needs no right), so
// the tokens name the user by id and username.
func (s *Server) tokenUser(conn *nodeConn) (tokenUser, *apiError) {
	body := encodeIdentifier(wire.NumericID(conn.userID))
	d, e := fetch(s, caller{conn: conn}, reading, wire.CmdGetUser, body, wire.DecodeUserDetails)
	if e != nil {
		return tokenUser{}, e
	}
	return tokenUser{id: d.ID, name: d.Username}, nil
}

// issue mints an access and a refresh token of session sid.
func (s *Server) issue(sid string, user tokenUser) (identityInfo, *apiError) {
	access, err := s.tokens.mint(tokenAccess, sid, user)
	if err != nil {
		return identityInfo{}, unavailable("Cannot sign a token.")
	}
	refresh, err := s.tokens.mint(tokenRefresh, sid, user)
	if err != nil {
		return identityInfo{}, unavailable("Cannot sign a token.")
	}
	return identityInfo{UserID: user.id, AccessToken: access, RefreshToken: refresh}, nil
}

// POST /users/refresh-token with {"token": ...}: a refresh token (used
// once) or a still valid access token gives new tokens of the same session.
// A trusted issuer's token cannot be refreshed (78).
func (s *Server) refresh(w http.ResponseWriter, r *http.Request) *apiError {
	o, e := readObject(r)
	if e != nil {
		return e
	}
	token, _, e := o.str("token", false)
	if e != nil {
		return e
	}
	if token == "" {
		return fromCode(wire.Unauthenticated, "")
	}
	c, err := s.tokens.verify(token)
	if err != nil {
		if _, extErr := s.trusted.verify(token); extErr == nil {
			return fromCode(wire.InvalidAccessToken, "")
		}
		return fromCode(wire.Unauthenticated, "")
	}
	now := s.now()
	if s.revoked.has(keySession+c.Session, now) || s.revoked.cutCovers(c.IssuedAt) {
		return fromCode(wire.Unauthenticated, "")
	}
	if c.Kind == tokenRefresh {
		used, full := s.revoked.spend(keyRefresh+c.ID, s.tokens.expiry(c.ExpiresAt), now)
		if used {
			return fromCode(wire.Unauthenticated, "")
		}
		if full {
			return unavailable("Too many spent refresh tokens are remembered; retry later.")
		}
	}
	uid, _ := c.userID()
	info, e := s.issue(c.Session, tokenUser{id: uid, name: c.Username})
	if e != nil {
		return e
	}
	if p, ok := s.table.lookup(keySession + c.Session); ok {
		s.table.extend(p, s.tokens.expiry(info.RefreshToken.Expiry))
	}
	writeJSON(w, http.StatusOK, info)
	return nil
}

// DELETE /users/logout: ends the caller's node session and, for our own
// tokens, revokes every token of the login (they stay refused until they
// expire); a trusted issuer's token is revoked the same way.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) *apiError {
	c, e := s.authenticate(r)
	if e != nil {
		return e
	}
	p := c.p
	now := s.now()
	switch p.kind {
	case kindLogin:
		s.revoked.revokeLogin(p.key, s.tokens.chainExpiry(now), now) // outlives every token the login holds
	case kindExternal:
		if !s.revoked.revokeExternal(p.key, p.expires, now) {
			return unavailable("Too many logouts of trusted issuers' tokens are remembered; retry later.")
		}
	}
	s.table.remove(p.key)
	p.mu.Lock()
	if p.conn != nil {
		p.conn.logout(registerTimeout)
		p.conn = nil
	}
	p.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
	return nil
}
