package httpapi

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"time"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
	"github.com/iggygo/iggy/wire/xxh32"
)

// Limits of the message routes (http.md 5).
const (
	payloadBytesMax   = 64_000_000
	pollCountDefault  = 10
	partitionIDBytes  = 4
	durabilityHeader  = "iggy-durability"
	durabilityReplied = "replicated-memory"
	durabilityNone    = "none"
)

// sendBody is a decoded POST .../messages body.
type sendBody struct {
	partitioning wire.Partitioning
	messages     []batch.Message
}

// parseSendBody decodes and checks the body of a send (http.md 5.1). Decode
// problems are plain 422s; the checks after decoding are JSON 400s: no
// messages (4009), a partitioning value too long or empty (4028).
func parseSendBody(o object, nowMicros uint64) (sendBody, *apiError) {
	var b sendBody
	if !o.present("partitioning") {
		return b, shapeError("partitioning", "missing field")
	}
	if !o.present("messages") {
		return b, shapeError("messages", "missing field")
	}
	p, e := parsePartitioning(o["partitioning"])
	if e != nil {
		return b, e
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(o["messages"], &raws); err != nil {
		return b, shapeError("messages", "expected an array")
	}
	if len(raws) == 0 {
		return b, fromCode(wire.InvalidMessagesCount, "")
	}
	b.partitioning = p
	b.messages = make([]batch.Message, 0, len(raws))
	for _, raw := range raws {
		m, e := parseMessage(raw, nowMicros)
		if e != nil {
			return b, e
		}
		b.messages = append(b.messages, m)
	}
	return b, nil
}

// partitioningKinds are the JSON kind names.
var partitioningKinds = map[string]wire.PartitioningKind{
	"balanced": wire.PartitioningBalanced, "partition_id": wire.PartitioningPartitionID,
	"messages_key": wire.PartitioningMessagesKey,
}

func parsePartitioning(raw json.RawMessage) (wire.Partitioning, *apiError) {
	var pj struct {
		Kind  string `json:"kind"`
		Value string `json:"value"`
	}
	if err := json.Unmarshal(raw, &pj); err != nil {
		return wire.Partitioning{}, shapeError("partitioning", "expected {kind, value}")
	}
	kind, ok := partitioningKinds[pj.Kind]
	if !ok {
		return wire.Partitioning{}, shapeError("partitioning.kind", "expected balanced, partition_id or messages_key")
	}
	value, err := base64.StdEncoding.DecodeString(pj.Value)
	if err != nil {
		return wire.Partitioning{}, shapeError("partitioning.value", "invalid base64")
	}
	switch {
	case len(value) > wire.MessagesKeyBytesMax, kind != wire.PartitioningBalanced && len(value) == 0,
		kind == wire.PartitioningPartitionID && len(value) != partitionIDBytes:
		return wire.Partitioning{}, fromCode(wire.InvalidKeyValueLength, "")
	}
	p := wire.Partitioning{Kind: kind}
	switch kind {
	case wire.PartitioningPartitionID:
		p.PartitionID = binary.LittleEndian.Uint32(value)
	case wire.PartitioningMessagesKey:
		p.Key = value
	}
	return p, nil
}

func parseMessage(raw json.RawMessage, nowMicros uint64) (batch.Message, *apiError) {
	var m struct {
		ID          json.RawMessage `json:"id"`
		Payload     *string         `json:"payload"`
		UserHeaders json.RawMessage `json:"user_headers"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return batch.Message{}, shapeError("messages", "expected message objects")
	}
	id, ok := parseMessageID(m.ID)
	if !ok {
		return batch.Message{}, shapeError("messages[].id", "expected a u128 number, decimal string or UUID")
	}
	if m.Payload == nil {
		return batch.Message{}, shapeError("messages[].payload", "missing field")
	}
	payload, err := base64.StdEncoding.DecodeString(*m.Payload)
	if err != nil || len(payload) == 0 || len(payload) > payloadBytesMax {
		return batch.Message{}, shapeError("messages[].payload", "expected base64 of 1 to 64000000 bytes")
	}
	headers, e := userHeaders(m.UserHeaders)
	if e != nil {
		return batch.Message{}, e
	}
	return batch.Message{ID: id, OriginTimestamp: nowMicros, Payload: payload, Headers: headers}, nil
}

// confirmationJSON is one entry of a replicated send's answer.
type confirmationJSON struct {
	StreamID    uint32 `json:"stream_id"`
	TopicID     uint32 `json:"topic_id"`
	PartitionID uint32 `json:"partition_id"`
	BaseOffset  uint64 `json:"base_offset"`
}

// POST .../messages?ack=replicated|none
func (s *Server) sendMessages(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	ack := r.URL.Query().Get("ack")
	if ack != "" && ack != "replicated" && ack != "none" {
		return plainError(http.StatusBadRequest, "Failed to deserialize query string: ack")
	}
	raw, e := readJSONBody(r)
	if e != nil {
		return e
	}
	o, e := parseObject(raw)
	if e != nil {
		return e
	}
	b, e := parseSendBody(o, uint64(time.Now().UnixMicro()))
	if e != nil {
		return e
	}
	rec, code := batch.Build(b.messages)
	if code != wire.OK {
		return fromCode(code, "")
	}
	req := wire.SendMessagesRequest{StreamID: ref.StreamID, TopicID: ref.TopicID, Partitioning: b.partitioning,
		MessagesCount: uint32(len(b.messages)), Batch: rec}
	serve := func(k callKind, p wire.OptionalPartition) *apiError {
		if p.Given {
			req.Partitioning = wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: p.ID}
		}
		return s.send(c, w, k, encode(req.Encode), ack == "none")
	}
	pc := partitionCall{ref: ref, kind: producing, body: raw, serve: serve,
		pick: func(routes []wire.PartitionRoute) (uint32, *apiError) { return s.pickPartition(routes, b.partitioning) }}
	if b.partitioning.Kind == wire.PartitioningPartitionID {
		pc.named = wire.OptionalPartition{Given: true, ID: b.partitioning.PartitionID}
	}
	return partitionReadError(s.servePartition(c, w, r, pc))
}

// send hands an encoded send to the node and answers: 202 at once with
// ack=none, else 201 with the confirmations once it is replicated.
func (s *Server) send(c caller, w http.ResponseWriter, k callKind, body []byte, noAck bool) *apiError {
	if noAck {
		s.dispatch(c, wire.CmdSendMessages, body)
		w.Header().Set(durabilityHeader, durabilityNone)
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
	confirmations, e := fetch(s, c, k, wire.CmdSendMessages, body, wire.DecodeSendConfirmations)
	if e != nil {
		return e
	}
	out := struct {
		Confirmations []confirmationJSON `json:"confirmations"`
	}{Confirmations: list(confirmations, func(cf wire.SendConfirmation) confirmationJSON { return confirmationJSON(cf) })}
	w.Header().Set(durabilityHeader, durabilityReplied)
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// pickPartition applies a send's partitioning over a topic's partitions as
// the node does (protocol-data.md 5.3), so a relay knows the partition
// before it leaves: balanced takes the next in this adapter's turn,
// messages_key the key's XXH32 modulo the partition count.
func (s *Server) pickPartition(routes []wire.PartitionRoute, p wire.Partitioning) (uint32, *apiError) {
	if len(routes) == 0 {
		return 0, fromCode(wire.NoPartitions, "")
	}
	n := uint32(len(routes))
	switch p.Kind {
	case wire.PartitioningMessagesKey:
		return routes[xxh32.Hash(p.Key, 0)%n].PartitionID, nil
	case wire.PartitioningPartitionID:
		return p.PartitionID, nil
	}
	return routes[s.balanced.Add(1)%n].PartitionID, nil
}

// dispatch hands a send to the node and returns at once (ack=none); the
// reply is awaited in the background and only logged on failure.
func (s *Server) dispatch(c caller, code wire.Command, body []byte) {
	start := time.Now()
	c.conn.dispatch(code, body, writePolicy, func(err error) {
		s.metrics.observeCommand(code.Name(), err == nil, time.Since(start))
		if err != nil {
			s.log.Info("http send with ack=none failed", "err", err)
		}
	})
}

// pollKinds are the ?kind= spellings (http.md 5.2).
var pollKinds = map[string]wire.PollingKind{
	"offset": wire.PollOffset, "o": wire.PollOffset, "timestamp": wire.PollTimestamp, "t": wire.PollTimestamp,
	"first": wire.PollFirst, "f": wire.PollFirst, "last": wire.PollLast, "l": wire.PollLast,
	"next": wire.PollNext, "n": wire.PollNext,
}

// pollQuery reads the poll parameters; a bad one is a plain 400.
func pollQuery(r *http.Request, ref wire.TopicRef) (wire.PollMessagesRequest, *apiError) {
	q := wire.PollMessagesRequest{StreamID: ref.StreamID, TopicID: ref.TopicID}
	consumer, e := queryConsumer(r)
	if e != nil {
		return q, e
	}
	partition, e := queryPartition(r)
	if e != nil {
		return q, e
	}
	kind := wire.PollOffset
	if k := r.URL.Query().Get("kind"); k != "" {
		var ok bool
		if kind, ok = pollKinds[k]; !ok {
			return q, plainError(http.StatusBadRequest, "Failed to deserialize query string: kind")
		}
	}
	value, e := queryUint(r, "value", 0, math.MaxUint64)
	if e != nil {
		return q, e
	}
	count, e := queryUint(r, "count", pollCountDefault, math.MaxUint32)
	if e != nil {
		return q, e
	}
	autoCommit := false
	switch r.URL.Query().Get("auto_commit") {
	case "", "false":
	case "true":
		autoCommit = true
	default:
		return q, plainError(http.StatusBadRequest, "Failed to deserialize query string: auto_commit")
	}
	q.Consumer = consumerOf(consumer)
	q.Partition = wire.OptionalPartition{Given: true, ID: uint32(partition)}
	q.Strategy = wire.PollingStrategy{Kind: kind, Value: value}
	q.Count, q.AutoCommit = uint32(count), autoCommit
	return q, nil
}

// polledJSON is PolledMessages (http.md 5.2).
type polledJSON struct {
	PartitionID   uint32        `json:"partition_id"`
	CurrentOffset uint64        `json:"current_offset"`
	Count         uint32        `json:"count"`
	Messages      []messageJSON `json:"messages"`
}

type messageJSON struct {
	Header      messageHeaderJSON `json:"header"`
	Payload     string            `json:"payload"`
	UserHeaders any               `json:"user_headers"`
}

type messageHeaderJSON struct {
	Checksum          uint64      `json:"checksum"`
	ID                json.Number `json:"id"`
	Offset            uint64      `json:"offset"`
	Timestamp         uint64      `json:"timestamp"`
	OriginTimestamp   uint64      `json:"origin_timestamp"`
	UserHeadersLength uint32      `json:"user_headers_length"`
	PayloadLength     uint32      `json:"payload_length"`
	Reserved          uint64      `json:"reserved"`
}

// GET .../messages
func (s *Server) pollMessages(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	q, e := pollRequestOf(r)
	if e != nil {
		return e
	}
	ref := wire.TopicRef{StreamID: q.StreamID, TopicID: q.TopicID}
	serve := func(k callKind, p wire.OptionalPartition) *apiError {
		if p.Given {
			q.Partition = p
		}
		out, e := fetch(s, c, k, wire.CmdPollMessages, encode(q.Encode), polledView)
		if e != nil {
			return e
		}
		return okJSON(w, out)
	}
	return partitionReadError(s.servePartition(c, w, r, partitionCall{ref: ref, kind: reading, named: q.Partition, serve: serve}))
}

// pollRequestOf reads a poll from the topic path and the query.
func pollRequestOf(r *http.Request) (wire.PollMessagesRequest, *apiError) {
	ref, e := topicPath(r)
	if e != nil {
		return wire.PollMessagesRequest{}, e
	}
	return pollQuery(r, ref)
}

// polledView decodes a poll reply into its JSON.
func polledView(payload []byte) (polledJSON, wire.Code) {
	polled, code := wire.DecodePolledMessages(payload)
	if code != wire.OK {
		return polledJSON{}, code
	}
	return polledJSONOf(polled, len(payload))
}

// polledJSONOf is the JSON of a decoded poll reply of size bytes.
func polledJSONOf(polled wire.PolledMessages, size int) (polledJSON, wire.Code) {
	out := polledJSON{PartitionID: polled.Prefix.PartitionID, CurrentOffset: polled.Prefix.CurrentOffset,
		Messages: make([]messageJSON, 0, min(int(polled.Prefix.MessagesCount), size/batch.FrameHeaderBytes))}
	for _, rec := range polled.Records {
		h := batch.ParseHeader(rec)
		it := batch.FramesOf(rec)
		for f, ok := it.Next(); ok; f, ok = it.Next() {
			out.Messages = append(out.Messages, messageJSON{
				Header: messageHeaderJSON{Checksum: f.Checksum, ID: json.Number(messageIDText(f.ID)),
					Offset: h.BaseOffset + uint64(f.OffsetDelta), Timestamp: h.BaseTimestamp,
					OriginTimestamp:   h.OriginTimestamp + uint64(f.TimestampDelta),
					UserHeadersLength: uint32(len(f.Headers)), PayloadLength: uint32(len(f.Payload))},
				Payload:     base64.StdEncoding.EncodeToString(f.Payload),
				UserHeaders: headersView(f.Headers),
			})
		}
		if it.Err() != wire.OK {
			return polledJSON{}, it.Err()
		}
	}
	out.Count = uint32(len(out.Messages))
	return out, wire.OK
}
