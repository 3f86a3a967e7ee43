package httpapi

import (
	"log/slog"
	"sync"
	"time"
)

// Bound of the revocations.
const (
	// revokedMax caps the remembered revocations, and so the file (at most
	// revocationLineBytesMax bytes an entry). The spent refresh tokens may
	// take three quarters of it, so a quarter always stays for logouts.
	revokedMax = 65536
)

// revocations are the logged-out logins, the logged-out trusted-issuer
// tokens and the spent refresh tokens. They live in a bounded set in
// memory and, when the server has a data directory, in a file under it
// rewritten on every change before the request is answered, so a restart
// revives no revoked token.
//
// When the set is full of live entries: a refresh is refused with 503
// (the client keeps its access token and may log in again); a logout of
// a login is never refused, it raises the cut instead: every self-issued
// token issued up to that second is refused from then on, which covers
// every logged-out login and spent refresh token, so those entries are
// dropped. A trusted issuer's token is not ours to cut, so its logout is
// refused with 503 only when the set is full of such tokens' logouts.
type revocations struct {
	set      *expirySet
	spentMax int    // the spent refresh tokens' share of the set
	dir      string // "" keeps the revocations in memory only
	log      *slog.Logger

	cutMu sync.Mutex
	cut   int64 // Unix seconds; guarded by cutMu

	// writeMu orders the writes of the file: each takes its image after
	// taking the lock, so the last write holds every change made before it.
	writeMu sync.Mutex
	dirty   bool // guarded by writeMu: the last write failed
}

// loadRevocations reads the revocations under dir ("" for none), dropping
// the expired ones.
func loadRevocations(dir string, log *slog.Logger, now time.Time) (*revocations, error) {
	return openRevocations(dir, log, now, revokedMax)
}

// openRevocations is loadRevocations with the bound max (tests fill a small set).
func openRevocations(dir string, log *slog.Logger, now time.Time, max int) (*revocations, error) {
	r := &revocations{set: newExpirySet(max), spentMax: max / 4 * 3, dir: dir, log: log}
	if dir == "" {
		return r, nil
	}
	img, err := readRevocations(dir)
	if err != nil {
		return nil, err
	}
	r.cut = img.cut
	for _, e := range img.entries {
		if now.Before(e.exp) && len(r.set.m) < max {
			r.set.m[e.key] = e.exp
		}
	}
	return r, nil
}

// has reports whether key is revoked.
func (r *revocations) has(key string, now time.Time) bool { return r.set.has(key, now) }

// cutCovers reports whether a self-issued token issued at iat (Unix
// seconds) is refused by the cut.
func (r *revocations) cutCovers(iat int64) bool {
	r.cutMu.Lock()
	defer r.cutMu.Unlock()
	return iat <= r.cut
}

// spend records a used refresh token until exp: used when it was spent
// already, full when the spent tokens fill their share.
func (r *revocations) spend(key string, exp, now time.Time) (used, full bool) {
	if used, full = r.set.claim(key, exp, now, r.spentMax); used || full {
		return used, full
	}
	r.persist()
	return false, false
}

// revokeLogin revokes a login's session until exp. It always succeeds: a
// full set raises the cut to now instead.
func (r *revocations) revokeLogin(key string, exp, now time.Time) {
	if !r.set.add(key, exp, now, r.set.max) {
		r.cutMu.Lock()
		r.cut = max(r.cut, now.Unix())
		r.cutMu.Unlock()
		// The cut refuses these already; dropping them makes room.
		r.set.dropPrefix(keySession)
		r.set.dropPrefix(keyRefresh)
		r.log.Warn("http revocations full: every self-issued token issued until now is refused; clients log in again",
			"max", r.set.max)
	}
	r.persist()
}

// revokeExternal revokes a trusted issuer's token until exp; false when the
// set is full of live entries.
func (r *revocations) revokeExternal(key string, exp, now time.Time) bool {
	if !r.set.add(key, exp, now, r.set.max) {
		return false
	}
	r.persist()
	return true
}

// sweep drops the expired revocations, and writes the file when that
// changed it or an earlier write failed.
func (r *revocations) sweep(now time.Time) {
	dropped := r.set.sweep(now)
	r.writeMu.Lock()
	retry := r.dirty
	r.writeMu.Unlock()
	if dropped > 0 || retry {
		r.persist()
	}
}

// persist writes the current image. A failure is logged and retried by the
// next sweep: the revocation holds in memory meanwhile, and the request
// that made it is answered, because its token is refused already and the
// client could not retry it.
func (r *revocations) persist() {
	if r.dir == "" {
		return
	}
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.cutMu.Lock()
	img := revocationsImage{cut: r.cut}
	r.cutMu.Unlock()
	img.entries = r.set.entries()
	if err := writeRevocations(r.dir, img); err != nil {
		r.dirty = true
		r.log.Error("cannot write the http revocations; a restart would revive logged-out tokens", "err", err)
		return
	}
	r.dirty = false
}
