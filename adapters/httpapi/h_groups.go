package httpapi

import (
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

func memberView(m wire.ConsumerGroupMember) memberJSON {
	parts := append([]uint32{}, m.Partitions...)
	return memberJSON{ID: m.ID, PartitionsCount: uint32(len(parts)), Partitions: parts}
}

func groupDetailsView(d wire.ConsumerGroupDetails) groupDetailsJSON {
	return groupDetailsJSON{groupJSON: groupView(d.Group), Members: list(d.Members, memberView)}
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
	return readList(s, c, w, wire.CmdGetConsumerGroups, encode(ref.Encode), wire.DecodeConsumerGroups, groupView)
}

// GET .../consumer-groups/{group_id}
func (s *Server) getGroup(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := groupPath(r)
	if e != nil {
		return e
	}
	return readOne(s, c, w, wire.CmdGetConsumerGroup, encode(ref.Encode), wire.DecodeConsumerGroupDetails, groupDetailsView)
}

// POST .../consumer-groups with {"name"}.
func (s *Server) createGroup(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, o, e := pathAndBody(r, topicPath)
	if e != nil {
		return e
	}
	name, e := o.name(wire.InvalidConsumerGroupName)
	if e != nil {
		return e
	}
	req := wire.CreateConsumerGroupRequest{StreamID: ref.StreamID, TopicID: ref.TopicID, Name: name}
	g, e := fetch(s, c, metaWrite, wire.CmdCreateConsumerGroup, encode(req.Encode), wire.DecodeConsumerGroupResponse)
	if e != nil {
		return e
	}
	return okJSON(w, groupDetailsJSON{groupJSON: groupView(g), Members: []memberJSON{}})
}

// DELETE .../consumer-groups/{group_id}
func (s *Server) deleteGroup(c caller, w http.ResponseWriter, r *http.Request) *apiError {
	ref, e := groupPath(r)
	if e != nil {
		return e
	}
	return s.command(c, w, metaWrite, wire.CmdDeleteConsumerGroup, encode(ref.Encode))
}
