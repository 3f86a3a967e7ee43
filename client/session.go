package client

import (
	"fmt"

	"github.com/iggygo/iggy/wire"
)

// wireNameBytesMax is the longest WireName or u8 string the wire carries.
const wireNameBytesMax = 255

// LoginInfo is what a successful login returns (AUTH-11).
type LoginInfo struct {
	UserID        uint32
	Session       uint64
	Protocol      wire.ProtocolVersion
	ServerVersion string
}

// LoginUser registers a session with a username and password (code 40,
// operation 1). A wrong password is an *EvictedError with reason 9.
func (c *Client) LoginUser(username, password string) (LoginInfo, error) {
	if len(username) < 1 || len(username) > wireNameBytesMax || len(password) > wireNameBytesMax {
		return LoginInfo{}, &Error{Code: wire.InvalidCredentials}
	}
	return c.login(func(w *wire.Writer) {
		wire.LoginPassword{Username: username, Password: password}.Encode(w)
	})
}

// LoginWithToken registers a session with a personal access token (code 45,
// operation 1).
func (c *Client) LoginWithToken(token string) (LoginInfo, error) {
	if len(token) > wireNameBytesMax {
		return LoginInfo{}, &Error{Code: wire.InvalidPersonalAccessToken}
	}
	return c.login(func(w *wire.Writer) { wire.LoginToken{Token: token}.Encode(w) })
}

func (c *Client) login(credentials func(*wire.Writer)) (LoginInfo, error) {
	var w wire.Writer
	wire.LoginPrefix{Version: c.opts.ProtocolVersion, SDKName: sdkName, SDKVersion: sdkVersion}.Encode(&w)
	credentials(&w)

	c.mu.Lock()
	defer c.mu.Unlock()
	payload, err := c.callLocked(wire.OpRegister, wire.CmdLoginRegister, w.Buf)
	if err != nil {
		return LoginInfo{}, err
	}
	reg, code := wire.DecodeRegisterReply(payload)
	if code != wire.OK {
		c.closeLocked()
		return LoginInfo{}, fmt.Errorf("%w: malformed Register reply", ErrProtocol)
	}
	c.session.session = reg.Session
	c.session.userID = reg.UserID
	return LoginInfo{UserID: reg.UserID, Session: reg.Session, Protocol: reg.Protocol, ServerVersion: reg.ServerVersion}, nil
}

// Logout ends the session (code 39, operation 3), consuming a request id.
// Afterwards the client draws a fresh client id and its request ids restart
// at 1; it stays connected and may log in again.
func (c *Client) Logout() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.callLocked(wire.OpLogout, wire.CmdLogoutUser, nil); err != nil {
		return err
	}
	return c.resetSession()
}

// Ping (code 1) works before login too.
func (c *Client) Ping() error {
	_, err := c.call(wire.CmdPing, nil)
	return err
}
