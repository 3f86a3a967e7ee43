package client

import (
	"fmt"

	"github.com/iggygo/iggy/wire"
)

// NextProducerID asks for a fresh idempotent producer id for a stream and
// topic (code 110; IDEM-1). Binary transports only.
func (c *Client) NextProducerID(stream, topic wire.Identifier) (wire.ProducerID, error) {
	if err := checkIDs(stream, topic); err != nil {
		return wire.ProducerID{}, err
	}
	payload, err := c.call(wire.CmdNextProducerID, encode(wire.TopicRef{StreamID: stream, TopicID: topic}.Encode))
	if err != nil {
		return wire.ProducerID{}, err
	}
	p, code := wire.DecodeProducerID(payload)
	if code != wire.OK {
		return wire.ProducerID{}, decodeFailed("NextProducerId", code)
	}
	return p, nil
}

// SendProducerMessages sends msgs as one idempotent producer batch (code
// 107; IDEM-3) whose first message has sequence firstSeq, and returns the
// offset of the first message: of this write, or of the first write when
// the partition already holds the batch (IDEM-5).
func (c *Client) SendProducerMessages(stream, topic wire.Identifier, partitioning wire.Partitioning,
	producer wire.ProducerID, firstSeq uint64, msgs []Message) (uint64, error) {
	if err := checkIDs(stream, topic); err != nil {
		return 0, err
	}
	rec, err := buildRecord(msgs)
	if err != nil {
		return 0, err
	}
	req := wire.SendProducerMessagesRequest{ProducerID: producer.ID, Epoch: producer.Epoch, FirstSequence: firstSeq,
		Send: wire.SendMessagesRequest{StreamID: stream, TopicID: topic, Partitioning: partitioning,
			MessagesCount: uint32(len(msgs)), Batch: rec}}
	payload, err := c.call(wire.CmdSendProducerMessages, encode(req.Encode))
	if err != nil {
		return 0, err
	}
	confirmations, code := wire.DecodeSendConfirmations(payload)
	if code != wire.OK {
		return 0, decodeFailed("SendProducerMessages", code)
	}
	if len(confirmations) == 0 {
		return 0, ErrNoConfirmation
	}
	return confirmations[0].BaseOffset, nil
}

// Producer is an idempotent producer of one partition: it numbers its
// messages and sends each batch so that sending it again (after a lost
// reply, a reconnect, a server restart) never writes it twice.
type Producer struct {
	Stream, Topic wire.Identifier
	Partition     uint32
	ID            wire.ProducerID
	next          uint64 // sequence of the next new message
}

// NewProducer obtains a producer id for stream and topic and returns a
// producer of partition, starting at sequence 0.
func (c *Client) NewProducer(stream, topic wire.Identifier, partition uint32) (*Producer, error) {
	id, err := c.NextProducerID(stream, topic)
	if err != nil {
		return nil, fmt.Errorf("producer id: %w", err)
	}
	return &Producer{Stream: stream, Topic: topic, Partition: partition, ID: id}, nil
}

// Next reserves the sequences of a batch of count messages and returns the
// first; send the batch with Send(c, first, msgs) as often as needed.
func (p *Producer) Next(count int) uint64 {
	first := p.next
	p.next += uint64(count)
	return first
}

// Send sends msgs, the batch whose first sequence Next returned, through c
// (any connection of the producer's user).
func (p *Producer) Send(c *Client, first uint64, msgs []Message) (uint64, error) {
	part := wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: p.Partition}
	return c.SendProducerMessages(p.Stream, p.Topic, part, p.ID, first, msgs)
}
