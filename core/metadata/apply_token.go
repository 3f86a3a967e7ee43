package metadata

import (
	"math"

	"github.com/iggygo/iggy/wire"
)

// caller is the active user behind ctx, if any.
func (s *State) caller(ctx Ctx) (*User, bool) {
	u, _, ok := s.userByID(ctx.UserID)
	if !ok || u.Status != UserActive {
		return nil, false
	}
	return u, true
}

func tokenNameKey(t *PersonalAccessToken) string { return t.Name }

// findToken returns the index of name in u's tokens (ascending by name).
func (u *User) findToken(name string) (int, bool) {
	lo, hi := 0, len(u.tokens)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if tokenNameKey(u.tokens[mid]) < name {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(u.tokens) && u.tokens[lo].Name == name
}

func (s *State) createToken(ctx Ctx, c *CreatePersonalAccessToken) Result {
	u, ok := s.caller(ctx)
	if !ok {
		return reject(wire.Unauthorized)
	}
	i, exists := u.findToken(c.Name)
	if _, dup := s.tokenHashes[c.TokenHash]; exists || dup {
		return reject(wire.PersonalAccessTokenAlreadyExists)
	}
	var expiry uint64
	if c.LifetimeMicros != 0 && c.LifetimeMicros != math.MaxUint64 {
		if c.LifetimeMicros > math.MaxUint64-ctx.NowMicros {
			return reject(wire.InvalidPersonalAccessTokenExpiry)
		}
		expiry = ctx.NowMicros + c.LifetimeMicros
	}
	t := &PersonalAccessToken{UserID: u.ID, Name: c.Name, TokenHash: c.TokenHash, ExpiryAtMicros: expiry}
	u.tokens = insertAt(u.tokens, i, t)
	s.tokenHashes[t.TokenHash] = t
	return Result{User: u, Token: t}
}

func (s *State) deleteToken(ctx Ctx, c *DeletePersonalAccessToken) Result {
	u, ok := s.caller(ctx)
	if !ok {
		return reject(wire.Unauthorized)
	}
	i, exists := u.findToken(c.Name)
	if !exists {
		return reject(wire.ResourceNotFound)
	}
	delete(s.tokenHashes, u.tokens[i].TokenHash)
	u.tokens = removeAt(u.tokens, i)
	return Result{}
}

// deleteExpiredTokens is the cleaner's op (AUTH-14).
func (s *State) deleteExpiredTokens(ctx Ctx) Result {
	if !s.can(ctx, ActionManageServers, NoResource, NoResource) {
		return reject(wire.Unauthorized)
	}
	for _, u := range s.users {
		kept := u.tokens[:0]
		for _, t := range u.tokens {
			if t.Expired(ctx.NowMicros) {
				delete(s.tokenHashes, t.TokenHash)
				continue
			}
			kept = append(kept, t)
		}
		clear(u.tokens[len(kept):])
		u.tokens = kept
	}
	return Result{}
}
