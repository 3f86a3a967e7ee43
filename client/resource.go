package client

import (
	"fmt"

	"github.com/iggygo/iggy/wire"
)

// UpdateResource sends code 16 (operation 150): it sets the entries of q.Set,
// resets the keys of q.Reset to their defaults and keeps every other key
// (RES-5, RES-6). Keys the server refuses come back as *Error (3, 4041,
// 4042, 4103, 4104, 4105, 4108, ...).
func (c *Client) UpdateResource(q wire.UpdateResourceRequest) error {
	if err := checkUpdateResource(q); err != nil {
		return err
	}
	_, err := c.call(wire.CmdUpdateResource, encode(q.Encode))
	return err
}

// UpdateStream renames a stream (name "" keeps it) and patches its options.
func (c *Client) UpdateStream(stream wire.Identifier, name string, set wire.Options, reset ...string) error {
	return c.UpdateResource(wire.UpdateResourceRequest{Scope: wire.ScopeStream, Stream: stream,
		Set: withName(wire.ResourceKeyName, name, set), Reset: reset})
}

// UpdateTopic renames a topic (name "" keeps it) and patches its options,
// e.g. set message_expiry "7 days" or reset max_topic_size.
func (c *Client) UpdateTopic(stream, topic wire.Identifier, name string, set wire.Options, reset ...string) error {
	return c.UpdateResource(wire.UpdateResourceRequest{Scope: wire.ScopeTopic, Stream: stream, Topic: topic,
		Set: withName(wire.ResourceKeyName, name, set), Reset: reset})
}

// UpdateUser changes a username and/or status; "" and 0 leave them unchanged.
func (c *Client) UpdateUser(user wire.Identifier, username string, status wire.UserStatus) error {
	set := withName(wire.ResourceKeyUsername, username, nil)
	switch status {
	case 0:
	case wire.UserStatusActive, wire.UserStatusInactive:
		set = append(set, wire.Option{Key: wire.ResourceKeyStatus, Kind: wire.KindString,
			Value: []byte(wire.UserStatusWord(status))})
	default:
		return fmt.Errorf("%w: user status %d", ErrInvalidArgument, status)
	}
	return c.UpdateResource(wire.UpdateResourceRequest{Scope: wire.ScopeUser, User: user, Set: set})
}

// PartitionRoutes reads the primary replica of every partition of a topic
// (code 105; PLACE-20), in ascending partition order.
func (c *Client) PartitionRoutes(stream, topic wire.Identifier) ([]wire.PartitionRoute, error) {
	if err := checkIDs(stream, topic); err != nil {
		return nil, err
	}
	payload, err := c.call(wire.CmdPartitionRoutes, encode(wire.TopicRef{StreamID: stream, TopicID: topic}.Encode))
	if err != nil {
		return nil, err
	}
	routes, code := wire.DecodePartitionRoutes(payload)
	if code != wire.OK {
		return nil, decodeFailed("PartitionRoutes", code)
	}
	return routes, nil
}

// withName puts key = value (a String) in front of set; "" adds nothing.
func withName(key, value string, set wire.Options) wire.Options {
	if value == "" {
		return set
	}
	out := wire.Options{{Key: key, Kind: wire.KindString, Value: []byte(value)}}
	return append(out, set...)
}

// checkUpdateResource refuses what the codec cannot encode: an unknown scope,
// a bad identifier, a malformed set block, or a reset list that is too long
// or holds a key outside 1..255 bytes. Rules about keys are the server's.
func checkUpdateResource(q wire.UpdateResourceRequest) error {
	var err error
	switch q.Scope {
	case wire.ScopeTopic:
		err = checkIDs(q.Stream, q.Topic)
	case wire.ScopeStream:
		err = checkIDs(q.Stream)
	case wire.ScopeUser:
		err = checkIDs(q.User)
	default:
		return fmt.Errorf("%w: resource scope %d", ErrInvalidArgument, q.Scope)
	}
	if err != nil {
		return err
	}
	if err := checkOptions(q.Set); err != nil {
		return err
	}
	if len(q.Reset) > wire.ResetKeysMax {
		return fmt.Errorf("%w: %d reset keys, at most %d", ErrInvalidArgument, len(q.Reset), wire.ResetKeysMax)
	}
	for _, k := range q.Reset {
		if err := checkName("reset key", k); err != nil {
			return err
		}
	}
	return nil
}
