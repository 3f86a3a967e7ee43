package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// partitioningKindNames are the REST spellings of the partitioning kinds.
var partitioningKindNames = map[wire.PartitioningKind]string{wire.PartitioningBalanced: "balanced",
	wire.PartitioningPartitionID: "partition_id", wire.PartitioningMessagesKey: "messages_key"}

type headerFieldJSON struct {
	Kind  string `json:"kind"`
	Value []byte `json:"value"` // base64 in JSON
}

type headerJSON struct {
	Key   headerFieldJSON `json:"key"`
	Value headerFieldJSON `json:"value"`
}

// headersBody is a message's headers as the REST API's array, sorted by key
// as the binary client encodes them.
func headersBody(hs map[string]client.HeaderValue) []headerJSON {
	out := []headerJSON{}
	for k, v := range hs {
		out = append(out, headerJSON{Key: headerFieldJSON{"string", []byte(k)}, Value: headerFieldJSON{v.Kind.Name(), v.Value}})
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i].Key.Value) < string(out[j].Key.Value) })
	return out
}

func (h *httpAPI) SendMessages(stream, topic wire.Identifier, p wire.Partitioning, msgs []client.Message) (uint64, error) {
	value := p.Key
	if p.Kind == wire.PartitioningPartitionID {
		value = binary.LittleEndian.AppendUint32(nil, p.PartitionID)
	}
	type messageJSON struct {
		Payload     []byte       `json:"payload"`
		UserHeaders []headerJSON `json:"user_headers,omitempty"`
	}
	body := struct {
		Partitioning headerFieldJSON `json:"partitioning"`
		Messages     []messageJSON   `json:"messages"`
	}{Partitioning: headerFieldJSON{partitioningKindNames[p.Kind], value}}
	for _, m := range msgs {
		body.Messages = append(body.Messages, messageJSON{m.Payload, headersBody(m.Headers)})
	}
	var reply struct {
		Confirmations []struct {
			BaseOffset uint64 `json:"base_offset"`
		} `json:"confirmations"`
	}
	if body.Partitioning.Value == nil {
		body.Partitioning.Value = []byte{}
	}
	if _, err := h.do(http.MethodPost, topicPath(stream, topic)+"/messages", nil, body, &reply); err != nil {
		return 0, err
	}
	if len(reply.Confirmations) == 0 {
		return 0, nil
	}
	return reply.Confirmations[0].BaseOffset, nil
}

// pollKindNames are the REST spellings of the polling kinds.
var pollKindNames = map[wire.PollingKind]string{wire.PollOffset: "offset", wire.PollTimestamp: "timestamp",
	wire.PollFirst: "first", wire.PollLast: "last", wire.PollNext: "next"}

type polledJSON struct {
	PartitionID   uint32 `json:"partition_id"`
	CurrentOffset uint64 `json:"current_offset"`
	Messages      []struct {
		Header struct {
			ID              json.Number `json:"id"`
			Offset          uint64      `json:"offset"`
			Timestamp       uint64      `json:"timestamp"`
			OriginTimestamp uint64      `json:"origin_timestamp"`
		} `json:"header"`
		Payload     []byte          `json:"payload"`
		UserHeaders json.RawMessage `json:"user_headers"`
	} `json:"messages"`
}

// PollMessages polls as a plain consumer: HTTP polls cannot act as group
// members (http.md 4.7).
func (h *httpAPI) PollMessages(consumer wire.Consumer, stream, topic wire.Identifier, partition *uint32,
	kind wire.PollingKind, value uint64, count uint32, autoCommit bool) (uint64, []client.ReceivedMessage, error) {
	if consumer.Kind != wire.ConsumerKindConsumer {
		return 0, nil, fmt.Errorf("poll as a consumer group: %w", errNotOverHTTP)
	}
	q := url.Values{"consumer_id": {identifierText(consumer.ID)}, "kind": {pollKindNames[kind]},
		"value": {strconv.FormatUint(value, 10)}, "count": {strconv.FormatUint(uint64(count), 10)},
		"auto_commit": {strconv.FormatBool(autoCommit)}}
	if partition != nil {
		q.Set("partition_id", strconv.FormatUint(uint64(*partition), 10))
	}
	var p polledJSON
	found, err := h.do(http.MethodGet, topicPath(stream, topic)+"/messages", q, nil, &p)
	if err == nil && !found {
		err = fmt.Errorf("poll %s/%s: %w", identifierText(stream), identifierText(topic), &client.Error{Code: wire.ResourceNotFound})
	}
	if err != nil {
		return 0, nil, err
	}
	out := make([]client.ReceivedMessage, len(p.Messages))
	for i, m := range p.Messages {
		hs, err := headersBlock(m.UserHeaders)
		if err != nil {
			return 0, nil, fmt.Errorf("poll: message at offset %d: %w", m.Header.Offset, err)
		}
		out[i] = client.ReceivedMessage{Partition: p.PartitionID, Offset: m.Header.Offset, ID: messageID(m.Header.ID),
			Payload: m.Payload, Headers: hs, Timestamp: m.Header.Timestamp, OriginTimestamp: m.Header.OriginTimestamp}
	}
	return p.CurrentOffset, out, nil
}

// headersBlock is the TLV block of a polled message's user_headers: an
// array of fields, or a base64 string of bytes that are not a header block.
func headersBlock(raw json.RawMessage) ([]byte, error) {
	var fields []headerJSON
	if err := json.Unmarshal(raw, &fields); err != nil {
		var b []byte
		if json.Unmarshal(raw, &b) != nil {
			return nil, fmt.Errorf("user_headers: %w", err)
		}
		return b, nil
	}
	var opts wire.Options
	for _, f := range fields {
		kind, ok := wire.ValueKindNamed(f.Value.Kind)
		if !ok || kind == 0 {
			return nil, fmt.Errorf("user header %q: kind %q", f.Key.Value, f.Value.Kind)
		}
		if !headerFieldValid(f.Key.Value) || !headerFieldValid(f.Value.Value) {
			return nil, fmt.Errorf("user header %q: key or value of %d bytes, want 1..%d", f.Key.Value, len(f.Value.Value), headerFieldBytesMax)
		}
		opts = append(opts, wire.Option{Key: string(f.Key.Value), Kind: kind, Value: f.Value.Value})
	}
	var w wire.Writer
	w.OptionsInOrder(opts)
	return w.Buf, nil
}

// headerFieldBytesMax is the longest header key or value (http.md 5.3).
const headerFieldBytesMax = 255

func headerFieldValid(b []byte) bool { return len(b) >= 1 && len(b) <= headerFieldBytesMax }

// messageID is the id's decimal u128 stored little-endian, as the binary
// protocol carries it.
func messageID(n json.Number) [16]byte {
	var id [16]byte
	v, ok := new(big.Int).SetString(n.String(), 10)
	if !ok || v.Sign() < 0 || v.BitLen() > 128 {
		return id
	}
	var be [16]byte
	v.FillBytes(be[:])
	for i := range be {
		id[i] = be[15-i]
	}
	return id
}

// identifierText is an identifier as a query value.
func identifierText(i wire.Identifier) string {
	if i.Numeric {
		return strconv.FormatUint(uint64(i.ID), 10)
	}
	return i.Name
}

// plainConsumer refuses group offsets: the REST API keeps consumer offsets only (http.md 4.8).
func plainConsumer(c wire.Consumer) error {
	if c.Kind != wire.ConsumerKindConsumer {
		return fmt.Errorf("consumer group offsets: %w", errNotOverHTTP)
	}
	return nil
}

func offsetsPath(stream, topic wire.Identifier) string {
	return topicPath(stream, topic) + "/consumer-offsets"
}

func (h *httpAPI) GetOffset(consumer wire.Consumer, stream, topic wire.Identifier, partition uint32) (wire.ConsumerOffsetInfo, bool, error) {
	if err := plainConsumer(consumer); err != nil {
		return wire.ConsumerOffsetInfo{}, false, err
	}
	var o struct {
		PartitionID   uint32 `json:"partition_id"`
		CurrentOffset uint64 `json:"current_offset"`
		StoredOffset  uint64 `json:"stored_offset"`
	}
	q := url.Values{"consumer_id": {identifierText(consumer.ID)}, "partition_id": {strconv.FormatUint(uint64(partition), 10)}}
	found, err := h.do(http.MethodGet, offsetsPath(stream, topic), q, nil, &o)
	return wire.ConsumerOffsetInfo(o), found, err
}

func (h *httpAPI) StoreOffset(consumer wire.Consumer, stream, topic wire.Identifier, partition uint32, offset uint64) error {
	if err := plainConsumer(consumer); err != nil {
		return err
	}
	body := map[string]any{"consumer_id": identifierText(consumer.ID), "partition_id": partition, "offset": offset}
	if consumer.ID.Numeric {
		body["consumer_id"] = consumer.ID.ID
	}
	_, err := h.do(http.MethodPut, offsetsPath(stream, topic), nil, body, nil)
	return err
}

func (h *httpAPI) DeleteOffset(consumer wire.Consumer, stream, topic wire.Identifier, partition uint32) error {
	if err := plainConsumer(consumer); err != nil {
		return err
	}
	q := url.Values{"partition_id": {strconv.FormatUint(uint64(partition), 10)}}
	_, err := h.do(http.MethodDelete, offsetsPath(stream, topic)+"/"+pathID(consumer.ID), q, nil, nil)
	return err
}
