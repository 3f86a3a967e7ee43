package client

import "github.com/iggygo/iggy/wire"

// CreatePersonalAccessToken creates a token for the caller (code 42) and
// returns the raw token, which the server shows only once. expiry is a
// lifetime in µs, or wire.PATExpiryServerDefault / wire.PATExpiryNever.
func (c *Client) CreatePersonalAccessToken(name string, expiry uint64) (string, error) {
	if err := checkName("token name", name); err != nil {
		return "", err
	}
	payload, err := c.call(wire.CmdCreatePersonalAccessToken, encode(wire.CreatePATRequest{Name: name, Expiry: expiry}.Encode))
	if err != nil {
		return "", err
	}
	reply, code := wire.DecodeCreatePATReply(payload)
	if code != wire.OK {
		return "", decodeFailed("CreatePersonalAccessToken", code)
	}
	return reply.Token, nil
}

// GetPersonalAccessTokens lists the caller's tokens (code 41); an empty list
// is not an error here (unlike the snapshot Go SDK).
func (c *Client) GetPersonalAccessTokens() ([]wire.PATInfo, error) {
	payload, err := c.call(wire.CmdGetPersonalAccessTokens, nil)
	if err != nil {
		return nil, err
	}
	tokens, code := wire.DecodePATs(payload)
	if code != wire.OK {
		return nil, decodeFailed("GetPersonalAccessTokens", code)
	}
	return tokens, nil
}

// DeletePersonalAccessToken deletes one of the caller's tokens by name (code 43).
func (c *Client) DeletePersonalAccessToken(name string) error {
	if err := checkName("token name", name); err != nil {
		return err
	}
	_, err := c.call(wire.CmdDeletePersonalAccessToken, encode(func(w *wire.Writer) { wire.EncodeDeletePAT(w, name) }))
	return err
}
