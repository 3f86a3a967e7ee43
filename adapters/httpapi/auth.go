package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/iggygo/iggy/wire"
)

// registerTimeout bounds one session registration (a password login runs
// one argon2id check on the node's loop).
const registerTimeout = 10 * time.Second

// Principal key prefixes: one namespace per kind of credential.
const (
	keySession  = "sid:"
	keyPAT      = "pat:"
	keyExternal = "ext:"
	keyRefresh  = "jti:"
)

// caller is an authenticated request: its principal and node connection.
type caller struct {
	p    *principal
	conn *nodeConn
	// start is when the request arrived, before its body was read: the
	// forwarding budget and the partition deadline count from it.
	start time.Time
	// relayed is the route of a verified relay from a peer; nil otherwise.
	relayed *relayRoute
}

// userID is the caller's user (the node session's).
func (c caller) userID() uint32 { return c.p.userID }

// authenticate verifies the bearer in the order of http.md 3.1 (self-issued
// JWT, trusted-issuer JWT, personal access token) and returns the caller
// with a live node session.
func (s *Server) authenticate(r *http.Request) (caller, *apiError) {
	cred, e := bearer(r)
	if e != nil {
		return caller{}, e
	}
	if !looksLikeJWT(cred) {
		return s.patCaller(cred, r.RemoteAddr)
	}
	if c, err := s.tokens.verify(cred); err == nil {
		return s.loginCaller(c, r.RemoteAddr)
	}
	if id, err := s.trusted.verify(cred); err == nil {
		return s.externalCaller(cred, id, r.RemoteAddr)
	}
	return caller{}, fromCode(wire.Unauthenticated, "")
}

// bearer reads "Authorization: Bearer <credential>": absent is 77, any
// other form 40.
func bearer(r *http.Request) (string, *apiError) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", fromCode(wire.AccessTokenMissing, "")
	}
	scheme, cred, ok := strings.Cut(h, " ")
	cred = strings.TrimSpace(cred)
	if !ok || !strings.EqualFold(scheme, "Bearer") || cred == "" {
		return "", fromCode(wire.Unauthenticated, "")
	}
	return cred, nil
}

// looksLikeJWT: three dot-separated parts; a raw PAT is base64 without dots.
func looksLikeJWT(s string) bool { return strings.Count(s, ".") == 2 }

func hashKey(prefix, secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return prefix + hex.EncodeToString(sum[:])
}

// loginCaller serves a self-issued access token: its login's principal, or,
// when the adapter no longer holds it (a restart, an eviction), a new one
// whose session a TrustedRegister of the token's username opens; the
// session's user must then carry the token's id too, so a token never acts
// as a user who was renamed or got a reused id.
func (s *Server) loginCaller(c *tokenClaims, addr string) (caller, *apiError) {
	now := s.now()
	if c.Kind != tokenAccess || s.revoked.has(keySession+c.Session, now) || s.revoked.cutCovers(c.IssuedAt) {
		return caller{}, fromCode(wire.Unauthenticated, "")
	}
	uid, _ := c.userID()
	p, e := s.principal(keySession+c.Session, now, func() *principal {
		return &principal{key: keySession + c.Session, kind: kindLogin, user: wire.NamedID(c.Username), userID: uid,
			expires: s.tokens.expiry(c.ExpiresAt)}
	})
	if e != nil {
		return caller{}, e
	}
	s.table.extend(p, s.tokens.expiry(c.ExpiresAt))
	conn, e := s.session(p, "", addr)
	if e != nil {
		return caller{}, e
	}
	if p.userID != uid {
		s.dropPrincipal(p)
		return caller{}, fromCode(wire.Unauthenticated, "")
	}
	return caller{p: p, conn: conn}, nil
}

// patCaller serves a raw personal access token as a bearer.
func (s *Server) patCaller(token, addr string) (caller, *apiError) {
	key := hashKey(keyPAT, token)
	p, e := s.principal(key, s.now(), func() *principal { return &principal{key: key, kind: kindPAT} })
	if e != nil {
		return caller{}, e
	}
	conn, e := s.session(p, token, addr)
	if e != nil {
		return caller{}, e
	}
	return caller{p: p, conn: conn}, nil
}

// externalCaller serves a trusted issuer's token as its configured user;
// root is never such a user (http.md 3.3).
func (s *Server) externalCaller(token string, id externalIdentity, addr string) (caller, *apiError) {
	key := hashKey(keyExternal, token)
	now := s.now()
	if s.revoked.has(key, now) {
		return caller{}, fromCode(wire.Unauthenticated, "")
	}
	p, e := s.principal(key, now, func() *principal {
		return &principal{key: key, kind: kindExternal, user: wire.NamedID(id.username), expires: id.expires}
	})
	if e != nil {
		return caller{}, e
	}
	conn, e := s.session(p, "", addr)
	if e != nil {
		return caller{}, e
	}
	if p.userID == rootUserID {
		s.dropPrincipal(p)
		return caller{}, fromCode(wire.Unauthenticated, "")
	}
	return caller{p: p, conn: conn}, nil
}

// rootUserID is root's id: never an external issuer's user.
const rootUserID = 0

// principal gets or makes key's principal, releasing an evicted one's session.
func (s *Server) principal(key string, now time.Time, mk func() *principal) (*principal, *apiError) {
	p, evicted, ok := s.table.get(key, now, mk)
	if evicted != nil {
		evicted.release()
	}
	if !ok {
		return nil, unavailable("Too many HTTP sessions are busy; retry.")
	}
	return p, nil
}

// session returns p's live node connection, registering a new one when it
// has none. A PAT principal registers its token again on every request, so
// a deleted or expired token stops working at once.
func (s *Server) session(p *principal, token, addr string) (*nodeConn, *apiError) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil && p.conn.alive() {
		if p.kind != kindPAT {
			return p.conn, nil
		}
		if err := p.conn.registerToken(token, registerTimeout); err != nil {
			return nil, bearerFailure(err)
		}
		return p.conn, nil
	}
	if p.conn != nil {
		p.conn.release()
		p.conn = nil
	}
	conn, err := openConn(s.hub, addr)
	if err != nil {
		return nil, unavailable("Cannot open a node session.")
	}
	if p.kind == kindPAT {
		err = conn.registerToken(token, registerTimeout)
	} else {
		err = conn.registerTrusted(p.user, registerTimeout)
	}
	if err != nil {
		conn.release()
		return nil, bearerFailure(err)
	}
	p.conn, p.userID = conn, conn.userID
	return conn, nil
}

// bearerFailure maps a failed registration for a bearer: a refused
// credential or user is 401 (http.md 3.1), a transient refusal 503.
func bearerFailure(err error) *apiError {
	var ce *codeError
	if errors.As(err, &ce) && (ce.code == wire.TransientNotAccepted || ce.code == wire.TransientNotCommitted) {
		return fromCode(ce.code, "")
	}
	if errors.Is(err, errTimeout) || errors.Is(err, errConnClosed) {
		return unavailable("Cannot open a node session now; retry.")
	}
	return fromCode(wire.Unauthenticated, "")
}

// dropPrincipal forgets p and ends its node session.
func (s *Server) dropPrincipal(p *principal) {
	s.table.remove(p.key)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil {
		p.conn.release()
		p.conn = nil
	}
}

// loginFailure maps a failed login Register (http.md 4.1): wrong username
// or password 400/42, inactive user 400/47, bad token 401/53.
func loginFailure(err error) *apiError {
	var ev *evictedError
	if errors.As(err, &ev) {
		switch ev.e.Reason {
		case wire.EvictInvalidCredentials:
			return fromCode(wire.InvalidCredentials, "")
		case wire.EvictUserInactive:
			return fromCode(wire.UserInactive, "")
		case wire.EvictInvalidToken:
			return fromCode(wire.InvalidPersonalAccessToken, "")
		}
	}
	return callError(err, unavailable("The login did not complete in time; retry."))
}
