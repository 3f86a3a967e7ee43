package client

import "github.com/iggygo/iggy/wire"

// CreateTopic creates a topic with partitions partitions (code 302). options
// is the topic's options block (protocol-data.md 1.3), sent in the given
// order; nil means every default. The server assigns the id.
func (c *Client) CreateTopic(stream wire.Identifier, name string, partitions uint32, options wire.Options) (wire.TopicDetails, error) {
	if err := checkIDs(stream); err != nil {
		return wire.TopicDetails{}, err
	}
	if err := checkName("topic name", name); err != nil {
		return wire.TopicDetails{}, err
	}
	if err := checkOptions(options); err != nil {
		return wire.TopicDetails{}, err
	}
	req := wire.CreateTopicRequest{StreamID: stream, PartitionsCount: partitions, Name: name, Options: options}
	payload, err := c.call(wire.CmdCreateTopic, encode(req.Encode))
	if err != nil {
		return wire.TopicDetails{}, err
	}
	d, found, code := wire.DecodeTopicDetails(payload)
	if code != wire.OK || !found {
		return wire.TopicDetails{}, decodeFailed("CreateTopic", code)
	}
	return d, nil
}

// GetTopic reads a topic and its partitions (code 300); found is false when
// the server answers "not found" (an empty body).
func (c *Client) GetTopic(stream, topic wire.Identifier) (d wire.TopicDetails, found bool, err error) {
	if err := checkIDs(stream, topic); err != nil {
		return d, false, err
	}
	payload, err := c.call(wire.CmdGetTopic, encode(wire.TopicRef{StreamID: stream, TopicID: topic}.Encode))
	if err != nil {
		return d, false, err
	}
	d, found, code := wire.DecodeTopicDetails(payload)
	if code != wire.OK {
		return d, false, decodeFailed("GetTopic", code)
	}
	return d, found, nil
}

// GetTopics lists a stream's topics (code 301).
func (c *Client) GetTopics(stream wire.Identifier) ([]wire.TopicHeader, error) {
	if err := checkIDs(stream); err != nil {
		return nil, err
	}
	payload, err := c.call(wire.CmdGetTopics, encode(wire.StreamRef{StreamID: stream}.Encode))
	if err != nil {
		return nil, err
	}
	topics, code := wire.DecodeTopics(payload)
	if code != wire.OK {
		return nil, decodeFailed("GetTopics", code)
	}
	return topics, nil
}

// DeleteTopic deletes a topic with its partitions (code 303).
func (c *Client) DeleteTopic(stream, topic wire.Identifier) error {
	if err := checkIDs(stream, topic); err != nil {
		return err
	}
	_, err := c.call(wire.CmdDeleteTopic, encode(wire.TopicRef{StreamID: stream, TopicID: topic}.Encode))
	return err
}

// CreatePartitions appends count partitions to a topic (code 402).
func (c *Client) CreatePartitions(stream, topic wire.Identifier, count uint32) error {
	return c.partitions(wire.CmdCreatePartitions, stream, topic, count)
}

// DeletePartitions removes the count highest-numbered partitions (code 403).
func (c *Client) DeletePartitions(stream, topic wire.Identifier, count uint32) error {
	return c.partitions(wire.CmdDeletePartitions, stream, topic, count)
}

func (c *Client) partitions(code wire.Command, stream, topic wire.Identifier, count uint32) error {
	if err := checkIDs(stream, topic); err != nil {
		return err
	}
	req := wire.PartitionsRequest{StreamID: stream, TopicID: topic, PartitionsCount: count}
	_, err := c.call(code, encode(req.Encode))
	return err
}

// DeleteSegments deletes the count oldest sealed segments of a partition
// (code 503; the server answers it as operation 68).
func (c *Client) DeleteSegments(stream, topic wire.Identifier, partition, count uint32) error {
	if err := checkIDs(stream, topic); err != nil {
		return err
	}
	req := wire.DeleteSegmentsRequest{StreamID: stream, TopicID: topic, PartitionID: partition, SegmentsCount: count}
	_, err := c.call(wire.CmdDeleteSegments, encode(req.Encode))
	return err
}
