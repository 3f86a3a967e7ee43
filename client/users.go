package client

import (
	"fmt"

	"github.com/iggygo/iggy/wire"
)

// CreateUser creates a user (code 33); perms nil means no permissions.
func (c *Client) CreateUser(username, password string, status wire.UserStatus, perms *wire.Permissions) (wire.UserDetails, error) {
	if err := checkName("username", username); err != nil {
		return wire.UserDetails{}, err
	}
	if len(password) > wireNameBytesMax {
		return wire.UserDetails{}, fmt.Errorf("%w: password longer than %d bytes", ErrInvalidArgument, wireNameBytesMax)
	}
	req := wire.CreateUserRequest{Username: username, Password: password, Status: status, Permissions: perms}
	payload, err := c.call(wire.CmdCreateUser, encode(req.Encode))
	if err != nil {
		return wire.UserDetails{}, err
	}
	d, code := wire.DecodeUserDetails(payload)
	if code != wire.OK {
		return wire.UserDetails{}, decodeFailed("CreateUser", code)
	}
	return d, nil
}

// GetUser reads a user with its permissions (code 31); found is false when
// the server answers "not found" (an empty body).
func (c *Client) GetUser(user wire.Identifier) (d wire.UserDetails, found bool, err error) {
	if err := checkIDs(user); err != nil {
		return d, false, err
	}
	payload, err := c.call(wire.CmdGetUser, encode(func(w *wire.Writer) { w.Identifier(user) }))
	if err != nil || len(payload) == 0 {
		return d, false, err
	}
	d, code := wire.DecodeUserDetails(payload)
	if code != wire.OK {
		return d, false, decodeFailed("GetUser", code)
	}
	return d, true, nil
}

// GetUsers lists every user (code 32).
func (c *Client) GetUsers() ([]wire.UserInfo, error) {
	payload, err := c.call(wire.CmdGetUsers, nil)
	if err != nil {
		return nil, err
	}
	users, code := wire.DecodeUsers(payload)
	if code != wire.OK {
		return nil, decodeFailed("GetUsers", code)
	}
	return users, nil
}

// DeleteUser deletes a user and its tokens (code 34).
func (c *Client) DeleteUser(user wire.Identifier) error {
	if err := checkIDs(user); err != nil {
		return err
	}
	_, err := c.call(wire.CmdDeleteUser, encode(func(w *wire.Writer) { w.Identifier(user) }))
	return err
}

// UpdatePermissions replaces a user's permissions (code 36); nil clears them.
func (c *Client) UpdatePermissions(user wire.Identifier, perms *wire.Permissions) error {
	if err := checkIDs(user); err != nil {
		return err
	}
	req := wire.UpdatePermissionsRequest{UserID: user, Permissions: perms}
	_, err := c.call(wire.CmdUpdatePermissions, encode(req.Encode))
	return err
}

// ChangePassword changes a user's password (code 37).
func (c *Client) ChangePassword(user wire.Identifier, current, next string) error {
	if err := checkIDs(user); err != nil {
		return err
	}
	if len(current) > wireNameBytesMax || len(next) > wireNameBytesMax {
		return fmt.Errorf("%w: password longer than %d bytes", ErrInvalidArgument, wireNameBytesMax)
	}
	req := wire.ChangePasswordRequest{UserID: user, CurrentPassword: current, NewPassword: next}
	_, err := c.call(wire.CmdChangePassword, encode(req.Encode))
	return err
}
