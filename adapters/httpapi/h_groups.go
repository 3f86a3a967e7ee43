package httpapi

import (
	"math"
	"net/http"

	"github.com/iggygo/iggy/wire"
)

// groupJSON is a consumer group (http.md 4.7); details add the members.
type groupJSON struct {
	ID              uint32 `json:"id"`
	Name            string `json:"name"`
	PartitionsCount uint32 `json:"partitions_count"`
	MembersCount    uint32 `json:"members_count"`
}

type memberJSON struct {
	ID              uint32   `json:"id"`
	PartitionsCount uint32   `json:"partitions_count"`
	Partitions      []uint32 `json:"partitions"`
}

type groupDetailsJSON struct {
	groupJSON
	Members []memberJSON `json:"members"`
}

func groupView(g wire.ConsumerGroupResponse) groupJSON {
	return groupJSON{ID: g.ID, Name: g.Name, PartitionsCount: g.PartitionsCount, MembersCount: g.MembersCount}
}

// groupPath reads {stream_id}, {topic_id} and {group_id}.
func groupPath(r *http.Request) (wire.GroupRef, *apiError) {
	ref, e := topicPath(r)
	if e != nil {
		return wire.GroupRef{}, e
	}
	group, e := pathID(r, "group_id")
	if e != nil {
		return wire.GroupRef{}, e
	}
	return wire.GroupRef{StreamID: ref.StreamID, TopicID: ref.TopicID, GroupID: group}, nil
}

// GET .../consumer-groups
func (s *Server) getGroups(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	payload, e := s.call(c, wire.CmdGetConsumerGroups, encode(ref.Encode), readPolicy, readTimeout)
	if e != nil {
		return e
	}
	groups, code := wire.DecodeConsumerGroups(payload)
	if code != wire.OK {
		return badReply("GetConsumerGroups")
	}
	out := make([]groupJSON, 0, len(groups))
	for _, g := range groups {
		out = append(out, groupView(g))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// GET .../consumer-groups/{group_id}
func (s *Server) getGroup(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := groupPath(r)
	if e != nil {
		return e
	}
	payload, e := s.call(c, wire.CmdGetConsumerGroup, encode(ref.Encode), readPolicy, readTimeout)
	if e != nil {
		return e
	}
	d, found, code := wire.DecodeConsumerGroupDetails(payload)
	switch {
	case code != wire.OK:
		return badReply("GetConsumerGroup")
	case !found:
		return notFound()
	}
	out := groupDetailsJSON{groupJSON: groupView(d.Group), Members: make([]memberJSON, 0, len(d.Members))}
	for _, m := range d.Members {
		parts := append([]uint32{}, m.Partitions...)
		out.Members = append(out.Members, memberJSON{ID: m.ID, PartitionsCount: uint32(len(parts)), Partitions: parts})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// POST .../consumer-groups with {"name"}.
func (s *Server) createGroup(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	o, e := readObject(r)
	if e != nil {
		return e
	}
	name, _, e := o.str("name", true)
	if e != nil {
		return e
	}
	if !validName(name) {
		return fromCode(wire.InvalidConsumerGroupName, "name")
	}
	req := wire.CreateConsumerGroupRequest{StreamID: ref.StreamID, TopicID: ref.TopicID, Name: name}
	payload, e := s.call(c, wire.CmdCreateConsumerGroup, encode(req.Encode), metaPolicy, metaTimeout)
	if e != nil {
		return e
	}
	g, code := wire.DecodeConsumerGroupResponse(payload)
	if code != wire.OK {
		return badReply("CreateConsumerGroup")
	}
	writeJSON(w, http.StatusOK, groupDetailsJSON{groupJSON: groupView(g), Members: []memberJSON{}})
	return nil
}

// DELETE .../consumer-groups/{group_id}
func (s *Server) deleteGroup(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := groupPath(r)
	if e != nil {
		return e
	}
	if _, e := s.call(c, wire.CmdDeleteConsumerGroup, encode(ref.Encode), metaPolicy, metaTimeout); e != nil {
		return e
	}
	return noContent(w)
}

// defaultConsumer is the consumer id of HTTP polls and offsets (http.md 4.8).
var defaultConsumer = wire.NumericID(1)

// consumerOf is a plain consumer: HTTP never acts as a group (http.md 4.8).
func consumerOf(id wire.Identifier) wire.Consumer {
	return wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: id}
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

// partitionReadError: an unknown stream, topic or group is the generic 404
// on the partition plane (http.md 5.2); an unknown partition keeps its
// typed body.
func partitionReadError(e *apiError) *apiError {
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

// GET .../consumer-offsets?consumer_id=&partition_id=
func (s *Server) getOffset(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	consumer, e := queryConsumer(r)
	if e != nil {
		return e
	}
	partition, e := queryUint(r, "partition_id", 0, math.MaxUint32)
	if e != nil {
		return e
	}
	q := wire.ConsumerOffsetRef{Consumer: consumerOf(consumer), StreamID: ref.StreamID, TopicID: ref.TopicID,
		Partition: wire.OptionalPartition{Given: true, ID: uint32(partition)}}
	payload, e := s.call(c, wire.CmdGetConsumerOffset, encode(q.Encode), readPolicy, readTimeout)
	if e != nil {
		return partitionReadError(e)
	}
	o, found, code := wire.DecodeConsumerOffsetInfo(payload)
	switch {
	case code != wire.OK:
		return badReply("GetConsumerOffset")
	case !found:
		return notFound()
	}
	writeJSON(w, http.StatusOK, offsetJSON{PartitionID: o.PartitionID, CurrentOffset: o.CurrentOffset, StoredOffset: o.StoredOffset})
	return nil
}

// PUT .../consumer-offsets with {"consumer_id"?, "partition_id"?, "offset"}.
func (s *Server) storeOffset(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := topicPath(r)
	if e != nil {
		return e
	}
	o, e := readObject(r)
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
	q := wire.StoreConsumerOffsetRequest{ConsumerOffsetRef: wire.ConsumerOffsetRef{Consumer: consumerOf(consumer),
		StreamID: ref.StreamID, TopicID: ref.TopicID, Partition: wire.OptionalPartition{Given: true, ID: uint32(partition)}},
		Offset: offset, Ack: wire.AckQuorum}
	if _, e := s.call(c, wire.CmdStoreConsumerOffset, encode(q.Encode), writePolicy, offsetTimeout); e != nil {
		return partitionReadError(e)
	}
	return noContent(w)
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
	partition, e := queryUint(r, "partition_id", 0, math.MaxUint32)
	if e != nil {
		return e
	}
	q := wire.DeleteConsumerOffsetRequest{ConsumerOffsetRef: wire.ConsumerOffsetRef{Consumer: consumerOf(consumer),
		StreamID: ref.StreamID, TopicID: ref.TopicID, Partition: wire.OptionalPartition{Given: true, ID: uint32(partition)}},
		Ack: wire.AckQuorum}
	if _, e := s.call(c, wire.CmdDeleteConsumerOffset, encode(q.Encode), writePolicy, offsetTimeout); e != nil {
		return partitionReadError(e)
	}
	return noContent(w)
}
