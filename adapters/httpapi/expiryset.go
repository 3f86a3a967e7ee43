package httpapi

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/iggygo/iggy/internal/assert"
)

// expirySet is a bounded set of keys that each matter until an expiry: the
// logged-out sessions and the spent refresh tokens. An entry can be dropped
// once its expiry has passed, because every token it refuses has expired by
// then too. It never drops a live entry to make room (that would revive a
// revoked token): an add past the limit is refused and the caller decides.
type expirySet struct {
	mu  sync.Mutex
	max int
	m   map[string]time.Time
}

// expiryEntry is one key and its expiry, as the set is persisted.
type expiryEntry struct {
	key string
	exp time.Time
}

func newExpirySet(max int) *expirySet {
	if max <= 0 {
		assert.Failf("expiry set bound %d", max)
	}
	return &expirySet{max: max, m: make(map[string]time.Time)}
}

// add records key until exp while the set holds fewer than limit live
// entries (limit <= max); false when it does not. A key already there is
// never refused: its expiry only moves later.
func (s *expirySet) add(key string, exp, now time.Time, limit int) bool {
	if limit <= 0 || limit > s.max {
		assert.Failf("expiry set limit %d of %d", limit, s.max)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[key]; !ok && len(s.m) >= limit {
		s.sweepLocked(now)
		if len(s.m) >= limit {
			return false
		}
	}
	if cur, ok := s.m[key]; !ok || exp.After(cur) {
		s.m[key] = exp
	}
	return true
}

// claim records key until exp only if it is not recorded live already:
// used is true when it was (a refresh token spent before), full when there
// is no room under limit. One lock covers the check and the insert, so
// of two concurrent claims of one key exactly one succeeds.
func (s *expirySet) claim(key string, exp, now time.Time, limit int) (used, full bool) {
	if limit <= 0 || limit > s.max {
		assert.Failf("expiry set limit %d of %d", limit, s.max)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.m[key]; ok && now.Before(cur) {
		return true, false
	}
	delete(s.m, key) // expired: it makes room for itself
	if len(s.m) >= limit {
		s.sweepLocked(now)
		if len(s.m) >= limit {
			return false, true
		}
	}
	s.m[key] = exp
	return false, false
}

// has reports whether key is recorded and not yet expired.
func (s *expirySet) has(key string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.m[key]
	return ok && now.Before(exp)
}

// sweep drops the expired entries and reports how many it dropped.
func (s *expirySet) sweep(now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sweepLocked(now)
}

func (s *expirySet) sweepLocked(now time.Time) int {
	dropped := 0
	for k, exp := range s.m {
		if !now.Before(exp) {
			delete(s.m, k)
			dropped++
		}
	}
	return dropped
}

// dropPrefix forgets every key that starts with prefix (a cut covers them).
func (s *expirySet) dropPrefix(prefix string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.m {
		if strings.HasPrefix(k, prefix) {
			delete(s.m, k)
		}
	}
}

// entries is a copy of the set sorted by key, so a file written from it
// does not depend on map order.
func (s *expirySet) entries() []expiryEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]expiryEntry, 0, len(s.m))
	for k, exp := range s.m {
		out = append(out, expiryEntry{key: k, exp: exp})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

func (s *expirySet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
