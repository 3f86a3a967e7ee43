package httpapi

import (
	"math"
	"net/http"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/rest"
)

func topicView(t wire.TopicHeader) rest.Topic {
	return rest.Topic{ID: t.ID, CreatedAt: t.CreatedAtMicros, Name: t.Name, Size: sizeText(t.SizeBytes),
		MessagesCount: t.MessagesCount, PartitionsCount: t.PartitionsCount, Options: optionViews(t.Explicit, t.Derived)}
}

func topicDetailsView(d wire.TopicDetails) rest.TopicDetails {
	return rest.TopicDetails{Topic: topicView(d.Topic), Partitions: list(d.Partitions, partitionView)}
}

func partitionView(p wire.PartitionResponse) rest.Partition {
	return rest.Partition{ID: p.ID, CreatedAt: p.CreatedAtMicros, SegmentsCount: p.SegmentsCount,
		CurrentOffset: p.CurrentOffset, Size: sizeText(p.SizeBytes), MessagesCount: p.MessagesCount}
}

// topicPath reads {stream_id} and {topic_id}.
func topicPath(r *http.Request) (wire.TopicRef, *apiError) {
	stream, e := streamPath(r)
	if e != nil {
		return wire.TopicRef{}, e
	}
	topic, e := pathID(r, "topic_id")
	if e != nil {
		return wire.TopicRef{}, e
	}
	return wire.TopicRef{StreamID: stream, TopicID: topic}, nil
}

// GET /streams/{stream_id}/topics
func (s *Server) getTopics(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	stream, e := streamPath(r)
	if e != nil {
		return e
	}
	body := encode(wire.StreamRef{StreamID: stream}.Encode)
	return readList(s, c, w, wire.CmdGetTopics, body, wire.DecodeTopics, topicView)
}

// GET /streams/{stream_id}/topics/{topic_id}
func (s *Server) getTopic(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	return readOne(s, c, w, wire.CmdGetTopic, encode(ref.Encode), wire.DecodeTopicDetails, topicDetailsView)
}

// parseCreateTopic reads a POST /streams/{stream_id}/topics body:
// {"name", "partitions_count", "options"?}; every other member, option keys
// included, is refused naming it (RES-17, RES-18).
func parseCreateTopic(stream wire.Identifier, o object) (wire.CreateTopicRequest, *apiError) {
	if e := o.onlyMembers("name", "partitions_count", "options"); e != nil {
		return wire.CreateTopicRequest{}, e
	}
	name, e := o.name(wire.InvalidTopicName)
	if e != nil {
		return wire.CreateTopicRequest{}, e
	}
	count, _, e := o.uint("partitions_count", math.MaxUint32, true)
	if e != nil {
		return wire.CreateTopicRequest{}, e
	}
	opts, e := optionsObject(wire.TopicCatalog, o)
	if e != nil {
		return wire.CreateTopicRequest{}, e
	}
	return wire.CreateTopicRequest{StreamID: stream, PartitionsCount: uint32(count), Name: name, Options: opts}, nil
}

// POST /streams/{stream_id}/topics
func (s *Server) createTopic(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	stream, o, e := pathAndBody(r, streamPath)
	if e != nil {
		return e
	}
	req, e := parseCreateTopic(stream, o)
	if e != nil {
		return e
	}
	d, e := fetch(s, c, metaWrite, wire.CmdCreateTopic, encode(req.Encode), mustHold(wire.DecodeTopicDetails))
	if e != nil {
		return e
	}
	return okJSON(w, topicDetailsView(d))
}

// PUT /streams/{stream_id}/topics/{topic_id} with a flat body (RES-19..23).
func (s *Server) updateTopic(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	return s.update(c, w, r, wire.UpdateResourceRequest{Scope: wire.ScopeTopic, Stream: ref.StreamID, Topic: ref.TopicID})
}

// DELETE /streams/{stream_id}/topics/{topic_id}
func (s *Server) deleteTopic(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	return s.command(c, w, metaWrite, wire.CmdDeleteTopic, encode(ref.Encode))
}

// POST .../partitions with {"partitions_count": N}: 200 with an empty body.
func (s *Server) createPartitions(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, o, e := pathAndBody(r, topicPath)
	if e != nil {
		return e
	}
	count, _, e := o.uint("partitions_count", math.MaxUint32, true)
	if e != nil {
		return e
	}
	req := wire.PartitionsRequest{StreamID: ref.StreamID, TopicID: ref.TopicID, PartitionsCount: uint32(count)}
	if _, e := s.call(c, wire.CmdCreatePartitions, encode(req.Encode), metaWrite); e != nil {
		return e
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// DELETE .../partitions?partitions_count=N removes the last N partitions.
func (s *Server) deletePartitions(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	count, e := queryUint(r, "partitions_count", 0, math.MaxUint32)
	if e != nil {
		return e
	}
	req := wire.PartitionsRequest{StreamID: ref.StreamID, TopicID: ref.TopicID, PartitionsCount: uint32(count)}
	return s.command(c, w, metaWrite, wire.CmdDeletePartitions, encode(req.Encode))
}

// DELETE .../partitions/{partition_id}?segments_count=N deletes the N oldest
// sealed segments (RES-44).
func (s *Server) deleteSegments(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	partition, e := pathU32(r, "partition_id")
	if e != nil {
		return e
	}
	count, e := queryUint(r, "segments_count", 0, math.MaxUint32)
	if e != nil {
		return e
	}
	req := wire.DeleteSegmentsRequest{StreamID: ref.StreamID, TopicID: ref.TopicID, PartitionID: partition,
		SegmentsCount: uint32(count)}
	serve := func(k callKind, _ wire.OptionalPartition) *apiError {
		return s.command(c, w, k, wire.CmdDeleteSegments, encode(req.Encode))
	}
	return s.servePartition(c, w, r, partitionCall{ref: ref, kind: segmentWrite,
		named: wire.OptionalPartition{Given: true, ID: partition}, serve: serve})
}
