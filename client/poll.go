package client

import (
	"fmt"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// PollMessages reads up to count messages of one partition (code 100) and
// returns the partition's current offset (its highest committed offset) and
// the messages. partition nil sends "no partition", which the server
// refuses with 3 InvalidCommand for every consumer kind (MSG-2): a group
// member polls the partitions SyncConsumerGroup assigned it. Every returned record's
// layout and checksums are verified before its messages are returned.
func (c *Client) PollMessages(consumer wire.Consumer, stream, topic wire.Identifier, partition *uint32,
	strategy wire.PollingKind, value uint64, count uint32, autoCommit bool) (uint64, []ReceivedMessage, error) {
	if err := checkIDs(consumer.ID, stream, topic); err != nil {
		return 0, nil, err
	}
	req := wire.PollMessagesRequest{Consumer: consumer, StreamID: stream, TopicID: topic,
		Strategy: wire.PollingStrategy{Kind: strategy, Value: value}, Count: count, AutoCommit: autoCommit}
	if partition != nil {
		req.Partition = wire.OptionalPartition{Given: true, ID: *partition}
	}
	payload, err := c.call(wire.CmdPollMessages, encode(req.Encode))
	if err != nil {
		return 0, nil, err
	}
	return decodePoll(payload)
}

// decodePoll reads and verifies a poll reply body; it never panics on garbage.
func decodePoll(payload []byte) (uint64, []ReceivedMessage, error) {
	polled, code := wire.DecodePolledMessages(payload)
	if code != wire.OK {
		return 0, nil, decodeFailed("PollMessages", code)
	}
	msgs, err := verifiedMessages(polled, len(payload))
	if err != nil {
		return 0, nil, err
	}
	return polled.Prefix.CurrentOffset, msgs, nil
}

// verifiedMessages verifies a decoded poll reply of size bytes and returns
// its messages.
func verifiedMessages(polled wire.PolledMessages, size int) ([]ReceivedMessage, error) {
	// Every message is at least a frame header, which bounds the allocation.
	msgs := make([]ReceivedMessage, 0, min(int(polled.Prefix.MessagesCount), size/batch.FrameHeaderBytes))
	for i, rec := range polled.Records {
		if err := verifyRecord(rec); err != nil {
			return nil, fmt.Errorf("poll record %d: %w", i, err)
		}
		msgs = appendMessages(msgs, rec)
	}
	if uint64(len(msgs)) != uint64(polled.Prefix.MessagesCount) {
		return nil, fmt.Errorf("%w: poll reply declares %d messages, records hold %d",
			ErrProtocol, polled.Prefix.MessagesCount, len(msgs))
	}
	return msgs, nil
}

// verifyRecord checks a polled record. A record that starts at its first
// message gets batch.Validate (layout, every message checksum, the batch
// checksum). A record sliced at its head (first offset_delta > 0) is checked
// for layout - consecutive deltas, exact tiling, the declared count - and for
// its batch checksum by recomputing it with batch.Slice over its own frames.
func verifyRecord(rec []byte) error {
	h := batch.ParseHeader(rec) // DecodePolledMessages guaranteed a whole header
	it := batch.FramesOf(rec)
	first, ok := it.Next()
	if !ok {
		return fmt.Errorf("%w: record without frames", ErrProtocol)
	}
	if first.OffsetDelta == 0 {
		if _, code := batch.Validate(rec); code != wire.OK {
			return fmt.Errorf("%w: record at offset %d: %s", ErrProtocol, h.BaseOffset, code.Name())
		}
		return nil
	}
	n := uint32(1)
	for f, ok := it.Next(); ok; f, ok = it.Next() {
		if f.OffsetDelta != first.OffsetDelta+n {
			return fmt.Errorf("%w: sliced record: delta %d after %d", ErrProtocol, f.OffsetDelta, first.OffsetDelta+n-1)
		}
		n++
	}
	if it.Err() != wire.OK || n != h.Count || h.Length != uint64(len(rec)) {
		return fmt.Errorf("%w: sliced record layout (count %d, frames %d, length %d of %d)",
			ErrProtocol, h.Count, n, h.Length, len(rec))
	}
	resliced, _, _ := batch.Slice(rec, h.BaseOffset+uint64(first.OffsetDelta), h.Count)
	if batch.ParseHeader(resliced[:]).Checksum != h.Checksum {
		return fmt.Errorf("%w: sliced record at offset %d: batch checksum", ErrProtocol, h.BaseOffset)
	}
	return nil
}

// appendMessages appends the messages of a verified record.
func appendMessages(msgs []ReceivedMessage, rec []byte) []ReceivedMessage {
	h := batch.ParseHeader(rec)
	it := batch.FramesOf(rec)
	for f, ok := it.Next(); ok; f, ok = it.Next() {
		msgs = append(msgs, ReceivedMessage{
			Partition:       uint32(h.PartitionID),
			Offset:          h.BaseOffset + uint64(f.OffsetDelta),
			ID:              f.ID,
			Payload:         f.Payload,
			Headers:         f.Headers,
			Timestamp:       h.BaseTimestamp,
			OriginTimestamp: h.OriginTimestamp + uint64(f.TimestampDelta),
		})
	}
	return msgs
}
