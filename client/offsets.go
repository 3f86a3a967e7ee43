package client

import "github.com/iggygo/iggy/wire"

// Consumer returns a plain consumer with a numeric id.
func Consumer(id uint32) wire.Consumer {
	return wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: wire.NumericID(id)}
}

// GroupConsumer returns a consumer-group consumer.
func GroupConsumer(group wire.Identifier) wire.Consumer {
	return wire.Consumer{Kind: wire.ConsumerKindGroup, ID: group}
}

// StoreOffset stores offset as the consumer's last processed offset on a
// partition (code 121, ack Quorum as the SDKs send).
func (c *Client) StoreOffset(consumer wire.Consumer, stream, topic wire.Identifier, partition uint32, offset uint64) error {
	if err := checkIDs(consumer.ID, stream, topic); err != nil {
		return err
	}
	req := wire.StoreConsumerOffsetRequest{ConsumerOffsetRef: offsetRef(consumer, stream, topic, partition),
		Offset: offset, Ack: wire.AckQuorum}
	_, err := c.call(wire.CmdStoreConsumerOffset, encode(req.Encode))
	return err
}

// StoreCheckpoint stores a poll's checkpoint (Polled.Checkpoint): the
// offset, stored only if the partition is still the incarnation the
// checkpoint came from, else 4111 PartitionIncarnationMismatch (MSG-6).
func (c *Client) StoreCheckpoint(consumer wire.Consumer, stream, topic wire.Identifier, partition uint32,
	offset, incarnation uint64) error {
	if err := checkIDs(consumer.ID, stream, topic); err != nil {
		return err
	}
	req := wire.StoreConsumerOffsetRequest{ConsumerOffsetRef: offsetRef(consumer, stream, topic, partition),
		Offset: offset, Ack: wire.AckQuorum, Incarnation: incarnation}
	_, err := c.call(wire.CmdStoreConsumerOffset, encode(req.Encode))
	return err
}

// GetOffset reads the consumer's stored offset on a partition (code 120);
// found is false when nothing is stored.
func (c *Client) GetOffset(consumer wire.Consumer, stream, topic wire.Identifier, partition uint32) (o wire.ConsumerOffsetInfo, found bool, err error) {
	if err := checkIDs(consumer.ID, stream, topic); err != nil {
		return o, false, err
	}
	ref := offsetRef(consumer, stream, topic, partition)
	payload, err := c.call(wire.CmdGetConsumerOffset, encode(ref.Encode))
	if err != nil {
		return o, false, err
	}
	o, found, code := wire.DecodeConsumerOffsetInfo(payload)
	if code != wire.OK {
		return o, false, decodeFailed("GetConsumerOffset", code)
	}
	return o, found, nil
}

// DeleteOffset deletes the consumer's stored offset on a partition (code 122).
func (c *Client) DeleteOffset(consumer wire.Consumer, stream, topic wire.Identifier, partition uint32) error {
	if err := checkIDs(consumer.ID, stream, topic); err != nil {
		return err
	}
	req := wire.DeleteConsumerOffsetRequest{ConsumerOffsetRef: offsetRef(consumer, stream, topic, partition),
		Ack: wire.AckQuorum}
	_, err := c.call(wire.CmdDeleteConsumerOffset, encode(req.Encode))
	return err
}

func offsetRef(consumer wire.Consumer, stream, topic wire.Identifier, partition uint32) wire.ConsumerOffsetRef {
	return wire.ConsumerOffsetRef{Consumer: consumer, StreamID: stream, TopicID: topic,
		Partition: wire.OptionalPartition{Given: true, ID: partition}}
}
