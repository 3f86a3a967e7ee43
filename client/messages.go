package client

import (
	"crypto/rand"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// HeaderValue is one user header value: its kind code and raw bytes.
type HeaderValue struct {
	Kind  wire.ValueKind
	Value []byte
}

// Message is one message to send.
type Message struct {
	// ID is opaque to the server; an all-zero id is replaced by a random
	// UUID v4, as the SDKs do.
	ID      [16]byte
	Payload []byte
	// Headers are user headers with String keys, encoded sorted by key.
	Headers map[string]HeaderValue
	// RawHeaders is a pre-encoded user-headers TLV block, sent as is when
	// Headers is nil (tests of malformed headers use it).
	RawHeaders []byte
	// OriginTimestamp is the producer's clock in µs since the epoch; 0 means now.
	OriginTimestamp uint64
}

// ReceivedMessage is one polled message.
type ReceivedMessage struct {
	Partition       uint32
	Offset          uint64
	ID              [16]byte
	Payload         []byte
	Headers         []byte // the raw user-headers TLV block, possibly empty
	Timestamp       uint64 // broker append time (the record's base_timestamp), µs
	OriginTimestamp uint64 // producer time, µs
}

// HeaderMap decodes the message's user headers (String keys only).
func (m ReceivedMessage) HeaderMap() (map[string]HeaderValue, error) {
	entries, code := wire.DecodeOptions(m.Headers)
	if code != wire.OK {
		return nil, fmt.Errorf("%w: user headers: %s", ErrProtocol, code.Name())
	}
	out := make(map[string]HeaderValue, len(entries))
	for _, e := range entries {
		out[e.Key] = HeaderValue{Kind: e.Kind, Value: e.Value}
	}
	return out, nil
}

// ErrNoConfirmation is returned by SendMessages when the server committed
// the batch but reported no confirmation (count 0), so no offset is known.
var ErrNoConfirmation = errors.New("iggy: send committed without a confirmation")

// SendMessages sends msgs as one batch record (code 101) and returns the
// offset the server gave the first message.
func (c *Client) SendMessages(stream, topic wire.Identifier, partitioning wire.Partitioning, msgs []Message) (uint64, error) {
	if err := checkIDs(stream, topic); err != nil {
		return 0, err
	}
	if partitioning.Kind == wire.PartitioningMessagesKey && (len(partitioning.Key) < 1 || len(partitioning.Key) > wire.MessagesKeyBytesMax) {
		return 0, fmt.Errorf("%w: messages key of %d bytes", ErrInvalidArgument, len(partitioning.Key))
	}
	rec, err := buildRecord(msgs)
	if err != nil {
		return 0, err
	}
	req := wire.SendMessagesRequest{StreamID: stream, TopicID: topic, Partitioning: partitioning,
		MessagesCount: uint32(len(msgs)), Batch: rec}
	payload, err := c.call(wire.CmdSendMessages, encode(req.Encode))
	if err != nil {
		return 0, err
	}
	confirmations, code := wire.DecodeSendConfirmations(payload)
	if code != wire.OK {
		return 0, decodeFailed("SendMessages", code)
	}
	if len(confirmations) == 0 {
		return 0, ErrNoConfirmation
	}
	return confirmations[0].BaseOffset, nil
}

// buildRecord encodes msgs as one producer batch record.
func buildRecord(msgs []Message) ([]byte, error) {
	nowMicros := uint64(time.Now().UnixMicro())
	out := make([]batch.Message, len(msgs))
	for i, m := range msgs {
		headers, err := encodeHeaders(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out[i] = batch.Message{ID: m.ID, OriginTimestamp: m.OriginTimestamp, Payload: m.Payload, Headers: headers}
		if out[i].OriginTimestamp == 0 {
			out[i].OriginTimestamp = nowMicros
		}
		if out[i].ID == ([16]byte{}) {
			out[i].ID = randomUUID()
		}
	}
	rec, code := batch.Build(out)
	if code != wire.OK {
		return nil, &Error{Code: code}
	}
	return rec, nil
}

// encodeHeaders returns the message's user-headers block: the map encoded
// with String keys in key order, or RawHeaders as is.
func encodeHeaders(m Message) ([]byte, error) {
	if m.Headers == nil {
		return m.RawHeaders, nil
	}
	keys := make([]string, 0, len(m.Headers))
	for k := range m.Headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	entries := make(wire.Options, 0, len(keys))
	for _, k := range keys {
		v := m.Headers[k]
		entries = append(entries, wire.Option{Key: k, Kind: v.Kind, Value: v.Value})
	}
	if err := checkOptions(entries); err != nil {
		return nil, fmt.Errorf("user headers: %w", err)
	}
	return encode(func(w *wire.Writer) { w.OptionsInOrder(entries) }), nil
}

// randomUUID is a random UUID v4, the id the SDKs give a message sent with 0.
func randomUUID() [16]byte {
	var id [16]byte
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails on supported platforms
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return id
}
