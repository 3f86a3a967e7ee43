package metadata

import (
	"math"

	"github.com/iggygo/iggy/wire"
)

func validUsername(name string) bool {
	return len(name) >= usernameBytesMin && len(name) <= usernameBytesMax
}

// createUser creates root (id 0, every right) when no user exists yet, and
// an ordinary user otherwise.
func (s *State) createUser(ctx Ctx, c *CreateUser) Result {
	root := len(s.users) == 0
	if root && ctx.UserID != RootUserID || !root && !s.can(ctx, ActionManageUsers, NoResource, NoResource) {
		return reject(wire.Unauthorized)
	}
	if !validUsername(c.Username) {
		return reject(wire.InvalidUsername)
	}
	if _, taken := s.userNames[c.Username]; taken {
		return reject(wire.UserAlreadyExists)
	}
	if s.nextUserID == math.MaxUint32 {
		return reject(wire.UsersLimitReached)
	}
	u := &User{
		ID:              s.nextUserID,
		Username:        c.Username,
		PasswordHash:    c.PasswordHash,
		Status:          UserActive,
		Permissions:     clonePermissions(c.Permissions),
		CreatedAtMicros: ctx.NowMicros,
	}
	if c.Status == UserInactive && !root {
		u.Status = UserInactive
	}
	if root {
		u.Permissions = rootPermissions()
	}
	s.nextUserID++
	s.users = append(s.users, u) // ids only grow, so the slice stays ascending
	s.userNames[u.Username] = u.ID
	return Result{User: u}
}

func (s *State) deleteUser(ctx Ctx, c *DeleteUser) Result {
	if !s.can(ctx, ActionManageUsers, NoResource, NoResource) {
		return reject(wire.Unauthorized)
	}
	u, i, ok := s.findUser(c.User)
	if !ok {
		return reject(wire.ResourceNotFound)
	}
	if u.ID == RootUserID {
		return reject(wire.CannotDeleteUser)
	}
	for _, t := range u.tokens {
		delete(s.tokenHashes, t.TokenHash)
	}
	s.users = removeAt(s.users, i)
	delete(s.userNames, u.Username)
	return Result{Effects: []Effect{UserDeleted{User: u.ID}}}
}

// changePassword: a caller may change its own password; another user's
// needs manage_users, and root's needs root. The node verified the current
// password against ExpectedHash before logging.
func (s *State) changePassword(ctx Ctx, c *ChangePassword) Result {
	u, _, ok := s.findUser(c.User)
	if !ok {
		return reject(wire.ResourceNotFound)
	}
	if u.ID != ctx.UserID && !s.can(ctx, ActionManageUsers, NoResource, NoResource) {
		return reject(wire.Unauthorized)
	}
	if u.ID == RootUserID && ctx.UserID != RootUserID {
		return reject(wire.CannotModifyRootUser)
	}
	if c.ExpectedHash == "" || c.ExpectedHash != u.PasswordHash {
		return reject(wire.InvalidCredentials)
	}
	u.PasswordHash = c.PasswordHash
	return Result{}
}

func (s *State) updatePermissions(ctx Ctx, c *UpdatePermissions) Result {
	if !s.can(ctx, ActionManageUsers, NoResource, NoResource) {
		return reject(wire.Unauthorized)
	}
	u, _, ok := s.findUser(c.User)
	if !ok {
		return reject(wire.ResourceNotFound)
	}
	if u.ID == RootUserID {
		return reject(wire.CannotChangePermissions)
	}
	u.Permissions = clonePermissions(c.Permissions)
	return Result{}
}
