package httpapi

import (
	"sync"
	"time"

	"github.com/iggygo/iggy/internal/assert"
)

// expirySet is a bounded set of keys that each matter until an expiry: the
// logged-out sessions and the spent refresh tokens. An entry can be dropped
// once its expiry has passed, because every token it refuses has expired by
// then too. When full of live entries it refuses to grow, and the caller
// answers 503: dropping a live entry would revive a revoked token.
type expirySet struct {
	mu  sync.Mutex
	max int
	m   map[string]time.Time
}

func newExpirySet(max int) *expirySet {
	assert.That(max > 0, "expiry set bound %d", max)
	return &expirySet{max: max, m: make(map[string]time.Time)}
}

// add records key until exp; false when the set is full of live entries.
func (s *expirySet) add(key string, exp, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[key]; !ok && len(s.m) >= s.max {
		s.sweepLocked(now)
		if len(s.m) >= s.max {
			return false
		}
	}
	if cur, ok := s.m[key]; !ok || exp.After(cur) {
		s.m[key] = exp
	}
	return true
}

// has reports whether key is recorded and not yet expired.
func (s *expirySet) has(key string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.m[key]
	return ok && now.Before(exp)
}

func (s *expirySet) sweep(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
}

func (s *expirySet) sweepLocked(now time.Time) {
	for k, exp := range s.m {
		if !now.Before(exp) {
			delete(s.m, k)
		}
	}
}

func (s *expirySet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
