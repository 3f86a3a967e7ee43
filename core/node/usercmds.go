package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/wire"
)

// buildUserCommand handles the user and token ops of protocol-framing.md 8.
func (n *Node) buildUserCommand(c *conn, op wire.Operation, body []byte) (metadata.Command, string, wire.Code) {
	switch op {
	case wire.OpDeleteUser:
		id, code := wire.DecodeUserIdentifier(body)
		return &metadata.DeleteUser{User: id}, "", code
	case wire.OpUpdatePermissions:
		q, code := wire.DecodeUpdatePermissions(body)
		return &metadata.UpdatePermissions{User: q.UserID, Permissions: q.Permissions}, "", code
	case wire.OpCreatePersonalAccessToken:
		return n.buildCreateToken(c, body)
	case wire.OpDeletePersonalAccessToken:
		name, code := wire.DecodeDeletePAT(body)
		return &metadata.DeletePersonalAccessToken{Name: name}, "", code
	}
	return nil, "", wire.InvalidCommand
}

// buildCreateUser hashes the password in a job; only the hash is logged.
func (n *Node) buildCreateUser(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeCreateUser(body)
	if code == wire.OK && len(q.Options) > 0 {
		code = wire.UnsupportedOptionKey
	}
	if code == wire.OK && !wire.NamePrintable(q.Username) {
		code = wire.InvalidUsername
	}
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	n.hashThen(c, h, q.Password, func(hash string) {
		n.proposeCommand(c, h, &metadata.CreateUser{
			Username: q.Username, PasswordHash: hash,
			Status: metadata.UserStatus(q.Status), Permissions: q.Permissions,
		}, "", wire.OK)
	})
}

// buildChangePassword checks the current password before consensus; a wrong
// one still commits, as rejection 42, by carrying a hash that cannot match.
// Both the check and the new hash are jobs.
func (n *Node) buildChangePassword(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeChangePassword(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	u, known := n.meta.User(q.UserID)
	stored := "" // no such user: a stand-in check of the same cost
	if known {
		stored = u.PasswordHash
	}
	verify := compute.Request{Kind: compute.KindVerifyPassword, Password: q.CurrentPassword, Hash: stored}
	n.jobThen(c, h, verify, func(res compute.Result) {
		expected := ""
		if known {
			expected = stored
			if res.Code != 0 {
				expected = "mismatch"
			}
		}
		n.hashThen(c, h, q.NewPassword, func(hash string) {
			n.proposeCommand(c, h, &metadata.ChangePassword{User: q.UserID, ExpectedHash: expected, PasswordHash: hash}, "", wire.OK)
		})
	})
}

// hashThen hashes password in a job and continues with the hash.
func (n *Node) hashThen(c *conn, h wire.RequestHeader, password string, then func(hash string)) {
	job := compute.Request{Kind: compute.KindHashPassword, Password: password}
	n.jobThen(c, h, job, func(res compute.Result) { then(string(res.Data)) })
}

// jobThen runs a job for c's request; c may be gone when it ends, and too
// many jobs in flight answer 58.
func (n *Node) jobThen(c *conn, h wire.RequestHeader, job compute.Request, then func(compute.Result)) {
	started := n.startJob(job, func(res compute.Result) {
		if _, open := n.conns[c.id]; open {
			then(res)
		}
	})
	if !started {
		n.reject(c, h, wire.TransientNotAccepted)
	}
}

func (n *Node) buildCreateToken(c *conn, body []byte) (metadata.Command, string, wire.Code) {
	q, code := wire.DecodeCreatePAT(body)
	if code == wire.OK && !wire.NamePrintable(q.Name) {
		code = wire.InvalidPersonalAccessTokenName
	}
	if code != wire.OK {
		return nil, "", code
	}
	claimed, _ := n.claimed(c.userID)
	code = capacityCode(uint64(n.cfg.MaxTokensPerUser), uint64(n.meta.TokenCount(c.userID)), claimed, 1, wire.PersonalAccessTokensLimitReached)
	if code != wire.OK {
		return nil, "", code
	}
	if n.cfg.MaxTokensPerUser > 0 {
		n.claimNext(c, claim{tokens: 1})
	}
	token := n.crypto.NewToken()
	return &metadata.CreatePersonalAccessToken{
		Name: q.Name, TokenHash: n.crypto.HashToken(token), LifetimeMicros: q.Expiry,
	}, token, wire.OK
}
