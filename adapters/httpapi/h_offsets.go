package httpapi

import (
	"math"
	"net/http"

	"github.com/iggygo/iggy/wire"
)

// defaultConsumer is the consumer id of HTTP polls and offsets (http.md 4.8).
var defaultConsumer = wire.NumericID(1)

// consumerOf is a plain consumer: HTTP never acts as a group (http.md 4.8).
func consumerOf(id wire.Identifier) wire.Consumer {
	return wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: id}
}

// offsetRef names one consumer's offset in one partition of ref's topic.
func offsetRef(ref wire.TopicRef, consumer wire.Identifier, partition uint64) wire.ConsumerOffsetRef {
	return wire.ConsumerOffsetRef{Consumer: consumerOf(consumer), StreamID: ref.StreamID, TopicID: ref.TopicID,
		Partition: wire.OptionalPartition{Given: true, ID: uint32(partition)}}
}

// queryConsumer reads ?consumer_id= (number or name, default 1).
func queryConsumer(r *http.Request) (wire.Identifier, *apiError) {
	v := r.URL.Query().Get("consumer_id")
	if v == "" {
		return defaultConsumer, nil
	}
	id, e := parseIdentifier(v, "consumer_id")
	if e != nil {
		return wire.Identifier{}, plainError(http.StatusBadRequest, "Failed to deserialize query string: consumer_id")
	}
	return id, nil
}

// queryConsumerKind reads ?kind= of an offset read: consumer (the
// default), consumer_group (CGRP-11: a group's offsets, which its members
// store over the binary protocol, read here without membership) or
// external_group (CGRP-2).
func queryConsumerKind(r *http.Request) (wire.ConsumerKind, *apiError) {
	switch r.URL.Query().Get("kind") {
	case "", "consumer":
		return wire.ConsumerKindConsumer, nil
	case "consumer_group":
		return wire.ConsumerKindGroup, nil
	case "external_group":
		return wire.ConsumerKindExternalGroup, nil
	}
	return 0, plainError(http.StatusBadRequest, "Failed to deserialize query string: kind")
}

// queryPartition reads ?partition_id= (default 0).
func queryPartition(r *http.Request) (uint64, *apiError) {
	return queryUint(r, "partition_id", 0, math.MaxUint32)
}

// partitionReadError: an unknown stream, topic or group is the generic 404
// on the partition plane (http.md 5.2); an unknown partition keeps its
// typed body. nil stays nil, so a whole call can be wrapped.
func partitionReadError(e *apiError) *apiError {
	if e == nil {
		return nil
	}
	switch e.id {
	case uint32(wire.StreamIdNotFound), uint32(wire.TopicIdNotFound), uint32(wire.ConsumerGroupIdNotFound),
		uint32(wire.StreamNameNotFound), uint32(wire.TopicNameNotFound), uint32(wire.ConsumerGroupNameNotFound):
		if !e.plain {
			return notFound()
		}
	}
	return e
}

// offsetJSON is ConsumerOffsetInfo.
type offsetJSON struct {
	PartitionID   uint32 `json:"partition_id"`
	CurrentOffset uint64 `json:"current_offset"`
	StoredOffset  uint64 `json:"stored_offset"`
}

// GET .../consumer-offsets?consumer_id=&partition_id=&kind=
func (s *Server) getOffset(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	consumer, e := queryConsumer(r)
	if e != nil {
		return e
	}
	partition, e := queryPartition(r)
	if e != nil {
		return e
	}
	kind, e := queryConsumerKind(r)
	if e != nil {
		return e
	}
	q := offsetRef(ref, consumer, partition)
	q.Consumer.Kind = kind
	view := func(o wire.ConsumerOffsetInfo) offsetJSON { return offsetJSON(o) }
	return partitionReadError(s.servePartition(c, w, r, s.offsetCall(ref, reading, &q, func(k callKind) *apiError {
		return readOneAs(s, c, w, k, wire.CmdGetConsumerOffset, encode(q.Encode), wire.DecodeConsumerOffsetInfo, view)
	})))
}

// offsetCall is an offset call on q's partition for servePartition: run
// runs it once q names the partition to serve.
func (s *Server) offsetCall(ref wire.TopicRef, k callKind, q *wire.ConsumerOffsetRef, run func(k callKind) *apiError) partitionCall {
	return partitionCall{ref: ref, kind: k, named: q.Partition, serve: func(k callKind, p wire.OptionalPartition) *apiError {
		if p.Given {
			q.Partition = p
		}
		return run(k)
	}}
}

// PUT .../consumer-offsets with {"consumer_id"?, "partition_id"?, "offset"}.
func (s *Server) storeOffset(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	raw, e := readJSONBody(r)
	if e != nil {
		return e
	}
	o, e := parseObject(raw)
	if e != nil {
		return e
	}
	consumer, e := o.identifier("consumer_id", defaultConsumer)
	if e != nil {
		return e
	}
	partition, _, e := o.uint("partition_id", math.MaxUint32, false)
	if e != nil {
		return e
	}
	offset, _, e := o.uint("offset", math.MaxUint64, true)
	if e != nil {
		return e
	}
	q := wire.StoreConsumerOffsetRequest{ConsumerOffsetRef: offsetRef(ref, consumer, partition), Offset: offset,
		Ack: wire.AckQuorum}
	pc := s.offsetCall(ref, offsetWrite, &q.ConsumerOffsetRef, func(k callKind) *apiError {
		return s.command(c, w, k, wire.CmdStoreConsumerOffset, encode(q.Encode))
	})
	pc.body = raw
	return partitionReadError(s.servePartition(c, w, r, pc))
}

// DELETE .../consumer-offsets/{consumer_id}?partition_id=N
func (s *Server) deleteOffset(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	consumer, e := pathID(r, "consumer_id")
	if e != nil {
		return e
	}
	partition, e := queryPartition(r)
	if e != nil {
		return e
	}
	q := wire.DeleteConsumerOffsetRequest{ConsumerOffsetRef: offsetRef(ref, consumer, partition), Ack: wire.AckQuorum}
	return partitionReadError(s.servePartition(c, w, r, s.offsetCall(ref, offsetWrite, &q.ConsumerOffsetRef, func(k callKind) *apiError {
		return s.command(c, w, k, wire.CmdDeleteConsumerOffset, encode(q.Encode))
	})))
}
