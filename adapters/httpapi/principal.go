package httpapi

import (
	"sync"
	"time"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// principalKind says how a principal's node session is (re)established.
type principalKind uint8

const (
	// kindLogin: a password or PAT login that issued our JWTs. Its first
	// session came from that Register; a later one (after a restart or an
	// eviction) from a TrustedRegister of the token's subject.
	kindLogin principalKind = iota + 1
	// kindPAT: a raw personal access token used as a bearer. Every request
	// registers the token again, so the node checks it each time.
	kindPAT
	// kindExternal: a trusted issuer's JWT, acting as its configured user.
	kindExternal
)

// principal is one authenticated HTTP identity and its node connection.
type principal struct {
	key  string
	kind principalKind
	user wire.Identifier // who a TrustedRegister names (kindLogin, kindExternal)

	mu       sync.Mutex // guards conn (re)establishment
	conn     *nodeConn
	userID   uint32    // the session's user, known once a session exists
	expires  time.Time // when every credential of the principal has expired
	lastUsed time.Time // guarded by the table's lock
}

// principals is the bounded table of principals (http.md 3.1: sessions are
// capped). A full table evicts its least recently used idle principal:
// that only closes a node session, which the next request of that bearer
// registers again, so nothing is revoked by it.
type principals struct {
	mu  sync.Mutex
	max int
	m   map[string]*principal
}

func newPrincipals(max int) *principals {
	if max <= 0 {
		assert.Failf("principals bound %d", max)
	}
	return &principals{max: max, m: make(map[string]*principal)}
}

// get returns key's principal, or makes one with mk when there is room.
// The evicted principal's connection, if any, is returned for the caller to
// release outside the lock; ok is false when every principal is busy.
func (t *principals) get(key string, now time.Time, mk func() *principal) (p *principal, evicted *nodeConn, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p, found := t.m[key]; found {
		p.lastUsed = now
		return p, nil, true
	}
	if len(t.m) >= t.max {
		victim := t.idlestLocked()
		if victim == nil {
			return nil, nil, false
		}
		delete(t.m, victim.key)
		evicted = victim.conn
	}
	p = mk()
	if p.key != key {
		assert.Failf("principal key %q made for %q", p.key, key)
	}
	p.lastUsed = now
	t.m[key] = p
	return p, evicted, true
}

// idlestLocked is the least recently used principal with no request in
// flight (neither its lock nor its connection's held); nil when all are busy.
func (t *principals) idlestLocked() *principal {
	var victim *principal
	for _, p := range t.m {
		if victim != nil && !p.lastUsed.Before(victim.lastUsed) {
			continue
		}
		if p.idle() {
			victim = p
		}
	}
	return victim
}

// idle reports whether p neither establishes a session nor runs a request.
func (p *principal) idle() bool {
	if !p.mu.TryLock() {
		return false
	}
	defer p.mu.Unlock()
	if p.conn == nil {
		return true
	}
	if !p.conn.mu.TryLock() {
		return false
	}
	p.conn.mu.Unlock()
	return true
}

// lookup returns key's principal without making one.
func (t *principals) lookup(key string) (*principal, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.m[key]
	return p, ok
}

// remove forgets key and returns its principal.
func (t *principals) remove(key string) (*principal, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.m[key]
	delete(t.m, key)
	return p, ok
}

// expired removes and returns every principal whose credentials expired.
func (t *principals) expired(now time.Time) []*principal {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*principal
	for k, p := range t.m {
		if !p.expires.IsZero() && !now.Before(p.expires) {
			out = append(out, p)
			delete(t.m, k)
		}
	}
	return out
}

// all removes and returns every principal (shutdown).
func (t *principals) all() []*principal {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*principal, 0, len(t.m))
	for k, p := range t.m {
		out = append(out, p)
		delete(t.m, k)
	}
	return out
}

// extend moves p's expiry later (a refresh issued a longer-lived token).
func (t *principals) extend(p *principal, exp time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if exp.After(p.expires) {
		p.expires = exp
	}
}
