package client

import "github.com/iggygo/iggy/wire"

// CreateConsumerGroup creates a group on a topic (code 602); the server
// assigns the id.
func (c *Client) CreateConsumerGroup(stream, topic wire.Identifier, name string) (wire.ConsumerGroupResponse, error) {
	if err := checkIDs(stream, topic); err != nil {
		return wire.ConsumerGroupResponse{}, err
	}
	if err := checkName("group name", name); err != nil {
		return wire.ConsumerGroupResponse{}, err
	}
	req := wire.CreateConsumerGroupRequest{StreamID: stream, TopicID: topic, Name: name}
	payload, err := c.call(wire.CmdCreateConsumerGroup, encode(req.Encode))
	if err != nil {
		return wire.ConsumerGroupResponse{}, err
	}
	g, code := wire.DecodeConsumerGroupResponse(payload)
	if code != wire.OK {
		return wire.ConsumerGroupResponse{}, decodeFailed("CreateConsumerGroup", code)
	}
	return g, nil
}

// GetConsumerGroup reads a group with its members (code 600); found is
// false when the server answers "not found" (an empty body).
func (c *Client) GetConsumerGroup(stream, topic, group wire.Identifier) (d wire.ConsumerGroupDetails, found bool, err error) {
	payload, err := c.groupCall(wire.CmdGetConsumerGroup, stream, topic, group)
	if err != nil {
		return d, false, err
	}
	d, found, code := wire.DecodeConsumerGroupDetails(payload)
	if code != wire.OK {
		return d, false, decodeFailed("GetConsumerGroup", code)
	}
	return d, found, nil
}

// GetConsumerGroups lists a topic's groups (code 601).
func (c *Client) GetConsumerGroups(stream, topic wire.Identifier) ([]wire.ConsumerGroupResponse, error) {
	if err := checkIDs(stream, topic); err != nil {
		return nil, err
	}
	payload, err := c.call(wire.CmdGetConsumerGroups, encode(wire.TopicRef{StreamID: stream, TopicID: topic}.Encode))
	if err != nil {
		return nil, err
	}
	groups, code := wire.DecodeConsumerGroups(payload)
	if code != wire.OK {
		return nil, decodeFailed("GetConsumerGroups", code)
	}
	return groups, nil
}

// DeleteConsumerGroup deletes a group (code 603).
func (c *Client) DeleteConsumerGroup(stream, topic, group wire.Identifier) error {
	_, err := c.groupCall(wire.CmdDeleteConsumerGroup, stream, topic, group)
	return err
}

// JoinConsumerGroup makes this session a member of a group (code 604).
func (c *Client) JoinConsumerGroup(stream, topic, group wire.Identifier) error {
	_, err := c.groupCall(wire.CmdJoinConsumerGroup, stream, topic, group)
	return err
}

// LeaveConsumerGroup ends this session's membership (code 605).
func (c *Client) LeaveConsumerGroup(stream, topic, group wire.Identifier) error {
	_, err := c.groupCall(wire.CmdLeaveConsumerGroup, stream, topic, group)
	return err
}

// SyncConsumerGroup reads this member's pollable partitions (code 606);
// member is false when the session is not a member (an empty body).
func (c *Client) SyncConsumerGroup(stream, topic, group wire.Identifier) (a wire.GroupAssignment, member bool, err error) {
	payload, err := c.groupCall(wire.CmdSyncConsumerGroup, stream, topic, group)
	if err != nil {
		return a, false, err
	}
	a, member, code := wire.DecodeGroupAssignment(payload)
	if code != wire.OK {
		return a, false, decodeFailed("SyncConsumerGroup", code)
	}
	return a, member, nil
}

func (c *Client) groupCall(code wire.Command, stream, topic, group wire.Identifier) ([]byte, error) {
	if err := checkIDs(stream, topic, group); err != nil {
		return nil, err
	}
	return c.call(code, encode(wire.GroupRef{StreamID: stream, TopicID: topic, GroupID: group}.Encode))
}
