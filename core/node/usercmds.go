package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/wire"
)

// buildUserCommand handles the user and token ops of protocol-framing.md 8.
func (n *Node) buildUserCommand(c *conn, op wire.Operation, body []byte) (metadata.Command, string, wire.Code) {
	switch op {
	case wire.OpCreateUser:
		q, code := wire.DecodeCreateUser(body)
		if code != wire.OK {
			return nil, "", code
		}
		if len(q.Options) > 0 {
			return nil, "", wire.UnsupportedOptionKey
		}
		return &metadata.CreateUser{
			Username: q.Username, PasswordHash: n.crypto.HashPassword(q.Password),
			Status: metadata.UserStatus(q.Status), Permissions: q.Permissions,
		}, "", wire.OK
	case wire.OpDeleteUser:
		id, code := wire.DecodeUserIdentifier(body)
		return &metadata.DeleteUser{User: id}, "", code
	case wire.OpUpdatePermissions:
		q, code := wire.DecodeUpdatePermissions(body)
		return &metadata.UpdatePermissions{User: q.UserID, Permissions: q.Permissions}, "", code
	case wire.OpChangePassword:
		return n.buildChangePassword(body)
	case wire.OpCreatePersonalAccessToken:
		return n.buildCreateToken(c, body)
	case wire.OpDeletePersonalAccessToken:
		name, code := wire.DecodeDeletePAT(body)
		return &metadata.DeletePersonalAccessToken{Name: name}, "", code
	}
	return nil, "", wire.InvalidCommand
}

// buildChangePassword checks the current password before consensus; a wrong
// one still commits, as rejection 42, by carrying a hash that cannot match.
func (n *Node) buildChangePassword(body []byte) (metadata.Command, string, wire.Code) {
	q, code := wire.DecodeChangePassword(body)
	if code != wire.OK {
		return nil, "", code
	}
	expected := ""
	if u, ok := n.meta.User(q.UserID); ok {
		expected = u.PasswordHash
		if !n.crypto.VerifyPassword(u.PasswordHash, q.CurrentPassword) {
			expected = "mismatch"
		}
	}
	return &metadata.ChangePassword{
		User: q.UserID, ExpectedHash: expected, PasswordHash: n.crypto.HashPassword(q.NewPassword),
	}, "", wire.OK
}

func (n *Node) buildCreateToken(c *conn, body []byte) (metadata.Command, string, wire.Code) {
	q, code := wire.DecodeCreatePAT(body)
	if code != wire.OK {
		return nil, "", code
	}
	if n.cfg.MaxTokensPerUser > 0 && uint32(n.meta.TokenCount(c.userID)) >= n.cfg.MaxTokensPerUser {
		return nil, "", wire.PersonalAccessTokensLimitReached
	}
	token := n.crypto.NewToken()
	return &metadata.CreatePersonalAccessToken{
		Name: q.Name, TokenHash: n.crypto.HashToken(token), LifetimeMicros: q.Expiry,
	}, token, wire.OK
}
