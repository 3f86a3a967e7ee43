package e2e

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// pollChunk is how many messages one verification poll asks for.
const pollChunk = 1000

// sentMessage is a message the test expects at a known offset.
type sentMessage struct {
	offset uint64
	msg    client.Message
}

// createStreamTopic creates a stream and a topic and returns their ids.
func createStreamTopic(t *testing.T, c *client.Client, stream, topic string, partitions uint32) (wire.Identifier, wire.Identifier) {
	t.Helper()
	s, err := c.CreateStream(stream)
	if err != nil {
		t.Fatalf("create stream %q: %v", stream, err)
	}
	d, err := c.CreateTopic(wire.NumericID(s.ID), topic, partitions, nil)
	if err != nil {
		t.Fatalf("create topic %q: %v", topic, err)
	}
	if d.Topic.PartitionsCount != partitions {
		t.Fatalf("topic has %d partitions, want %d", d.Topic.PartitionsCount, partitions)
	}
	return wire.NumericID(s.ID), wire.NumericID(d.Topic.ID)
}

// messageID encodes a test's own message number in a message id.
func messageID(tag byte, n uint64) [16]byte {
	var id [16]byte
	id[0] = tag
	binary.LittleEndian.PutUint64(id[8:], n)
	return id
}

// pollAll reads a partition from offset 0 to its end in chunks.
func pollAll(t *testing.T, c *client.Client, stream, topic wire.Identifier, partition uint32) []client.ReceivedMessage {
	t.Helper()
	var out []client.ReceivedMessage
	for {
		_, msgs, err := c.PollMessages(client.Consumer(1), stream, topic, &partition, wire.PollOffset,
			uint64(len(out)), pollChunk, false)
		if err != nil {
			t.Fatalf("poll partition %d from %d: %v", partition, len(out), err)
		}
		if len(msgs) == 0 {
			return out
		}
		out = append(out, msgs...)
	}
}

// checkContiguous fails unless the messages carry offsets 0, 1, 2, ... in order.
func checkContiguous(t *testing.T, partition uint32, got []client.ReceivedMessage) {
	t.Helper()
	for i, m := range got {
		if m.Offset != uint64(i) {
			t.Fatalf("partition %d: message %d has offset %d (gap or duplicate)", partition, i, m.Offset)
		}
		if m.Partition != partition {
			t.Fatalf("partition %d: message %d reports partition %d", partition, i, m.Partition)
		}
	}
}

// checkMessage compares one polled message with what was sent.
func checkMessage(got client.ReceivedMessage, want sentMessage) error {
	if got.Offset != want.offset {
		return fmt.Errorf("offset %d, want %d", got.Offset, want.offset)
	}
	if got.ID != want.msg.ID {
		return fmt.Errorf("offset %d: id %x, want %x", got.Offset, got.ID, want.msg.ID)
	}
	if !bytes.Equal(got.Payload, want.msg.Payload) {
		return fmt.Errorf("offset %d: payload differs", got.Offset)
	}
	if want.msg.OriginTimestamp != 0 && got.OriginTimestamp != want.msg.OriginTimestamp {
		return fmt.Errorf("offset %d: origin timestamp %d, want %d", got.Offset, got.OriginTimestamp, want.msg.OriginTimestamp)
	}
	headers, err := got.HeaderMap()
	if err != nil {
		return fmt.Errorf("offset %d: %w", got.Offset, err)
	}
	if len(headers) != len(want.msg.Headers) {
		return fmt.Errorf("offset %d: %d headers, want %d", got.Offset, len(headers), len(want.msg.Headers))
	}
	for k, v := range want.msg.Headers {
		h, ok := headers[k]
		if !ok || h.Kind != v.Kind || !bytes.Equal(h.Value, v.Value) {
			return fmt.Errorf("offset %d: header %q is %+v, want %+v", got.Offset, k, h, v)
		}
	}
	return nil
}

// wantCode fails unless err is a server *client.Error with code.
func wantCode(t *testing.T, what string, err error, code wire.Code) {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Errorf("%s: got %v, want error %d (%s)", what, err, code, code.Name())
	}
}

// wantEviction fails unless err is an eviction with reason, and returns it.
func wantEviction(t *testing.T, what string, err error, reason wire.EvictionReason) *client.EvictedError {
	t.Helper()
	var e *client.EvictedError
	if !errors.As(err, &e) || e.Reason != reason {
		t.Fatalf("%s: got %v, want eviction %d", what, err, reason)
	}
	return e
}
