package client

import "github.com/iggygo/iggy/wire"

// CreateStream creates a stream (code 202). The server assigns the id.
func (c *Client) CreateStream(name string) (wire.StreamResponse, error) {
	return c.CreateStreamWithOptions(name, nil)
}

// CreateStreamWithOptions creates a stream with an options block (its
// encryption_key, for one).
func (c *Client) CreateStreamWithOptions(name string, opts wire.Options) (wire.StreamResponse, error) {
	if err := checkName("stream name", name); err != nil {
		return wire.StreamResponse{}, err
	}
	payload, err := c.call(wire.CmdCreateStream, encode(wire.CreateStreamRequest{Name: name, Options: opts}.Encode))
	if err != nil {
		return wire.StreamResponse{}, err
	}
	r := wire.NewReader(payload)
	s := r.StreamResponse()
	if r.Err() != wire.OK || r.Len() != 0 {
		return wire.StreamResponse{}, decodeFailed("CreateStream", wire.InvalidCommand)
	}
	return s, nil
}

// GetStream reads a stream and its topics (code 200); found is false when
// the server answers "not found" (an empty body).
func (c *Client) GetStream(stream wire.Identifier) (d wire.StreamDetails, found bool, err error) {
	if err := checkIDs(stream); err != nil {
		return d, false, err
	}
	payload, err := c.call(wire.CmdGetStream, encode(wire.StreamRef{StreamID: stream}.Encode))
	if err != nil {
		return d, false, err
	}
	d, found, code := wire.DecodeStreamDetails(payload)
	if code != wire.OK {
		return d, false, decodeFailed("GetStream", code)
	}
	return d, found, nil
}

// GetStreams lists every stream (code 201).
func (c *Client) GetStreams() ([]wire.StreamResponse, error) {
	payload, err := c.call(wire.CmdGetStreams, nil)
	if err != nil {
		return nil, err
	}
	streams, code := wire.DecodeStreams(payload)
	if code != wire.OK {
		return nil, decodeFailed("GetStreams", code)
	}
	return streams, nil
}

// DeleteStream deletes a stream with all its topics (code 203).
func (c *Client) DeleteStream(stream wire.Identifier) error {
	if err := checkIDs(stream); err != nil {
		return err
	}
	_, err := c.call(wire.CmdDeleteStream, encode(wire.StreamRef{StreamID: stream}.Encode))
	return err
}
