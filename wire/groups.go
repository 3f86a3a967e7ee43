package wire

// Consumer group request and response bodies (protocol-data.md 8).

// GroupRef is the body of GetConsumerGroup (600), DeleteConsumerGroup (603),
// JoinConsumerGroup (604), LeaveConsumerGroup (605) and SyncConsumerGroup
// (606): [stream_id][topic_id][group_id].
type GroupRef struct{ StreamID, TopicID, GroupID Identifier }

func DecodeGroupRef(body []byte) (GroupRef, Code) {
	r := NewReader(body)
	ref := r.topicRef()
	q := GroupRef{StreamID: ref.StreamID, TopicID: ref.TopicID, GroupID: r.Identifier()}
	return q, r.Err()
}

func (q GroupRef) Encode(w *Writer) {
	TopicRef{q.StreamID, q.TopicID}.Encode(w)
	w.Identifier(q.GroupID)
}

// CreateConsumerGroupRequest is the CreateConsumerGroup (602) body:
// [stream_id][topic_id][name]; the server assigns the id.
type CreateConsumerGroupRequest struct {
	StreamID, TopicID Identifier
	Name              string
}

func DecodeCreateConsumerGroupRequest(body []byte) (CreateConsumerGroupRequest, Code) {
	r := NewReader(body)
	ref := r.topicRef()
	q := CreateConsumerGroupRequest{StreamID: ref.StreamID, TopicID: ref.TopicID, Name: r.Name()}
	return q, r.Err()
}

func (q CreateConsumerGroupRequest) Encode(w *Writer) {
	TopicRef{q.StreamID, q.TopicID}.Encode(w)
	writeName(w, q.Name)
}

// ConsumerGroupResponse is one group header (13 + name bytes).
type ConsumerGroupResponse struct {
	ID              uint32
	PartitionsCount uint32 // the topic's partition count
	MembersCount    uint32
	Name            string
}

const consumerGroupResponseBytesMin = 13 + 1

func (g ConsumerGroupResponse) Encode(w *Writer) {
	w.U32(g.ID)
	w.U32(g.PartitionsCount)
	w.U32(g.MembersCount)
	writeName(w, g.Name)
}

func (r *Reader) ConsumerGroupResponse() ConsumerGroupResponse {
	return ConsumerGroupResponse{ID: r.U32(), PartitionsCount: r.U32(), MembersCount: r.U32(), Name: r.Name()}
}

// ConsumerGroupMember is [id u32][partitions_count u32][partition_id u32 ×
// count]; the id is the member's 0-based slot, not a client id.
type ConsumerGroupMember struct {
	ID         uint32
	Partitions []uint32
}

const consumerGroupMemberBytesMin = 8

// u32List reads [count u32][u32 × count], refusing a count the input cannot hold.
func (r *Reader) u32List() []uint32 {
	count := r.U32()
	if r.Err() == OK && uint64(count) > uint64(r.Len()/4) {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return nil
	}
	out := make([]uint32, 0, count)
	for range count {
		out = append(out, r.U32())
	}
	return out
}

func (w *Writer) u32List(list []uint32) {
	w.U32(uint32(len(list)))
	for _, v := range list {
		w.U32(v)
	}
}

// ConsumerGroupDetails is the GetConsumerGroup reply: the header and exactly
// MembersCount members. The CreateConsumerGroup payload is the header alone.
type ConsumerGroupDetails struct {
	Group   ConsumerGroupResponse
	Members []ConsumerGroupMember
}

func (d ConsumerGroupDetails) Encode(w *Writer) {
	d.Group.MembersCount = uint32(len(d.Members))
	d.Group.Encode(w)
	for _, m := range d.Members {
		w.U32(m.ID)
		w.u32List(m.Partitions)
	}
}

// DecodeConsumerGroupDetails reads a GetConsumerGroup reply; an empty body
// means "not found". Members are read by count and nothing may follow.
func DecodeConsumerGroupDetails(body []byte) (d ConsumerGroupDetails, found bool, code Code) {
	if len(body) == 0 {
		return ConsumerGroupDetails{}, false, OK
	}
	r := NewReader(body)
	d.Group = r.ConsumerGroupResponse()
	if r.Err() == OK && uint64(d.Group.MembersCount) > uint64(r.Len()/consumerGroupMemberBytesMin) {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return ConsumerGroupDetails{}, false, r.Err()
	}
	d.Members = make([]ConsumerGroupMember, 0, d.Group.MembersCount)
	for range d.Group.MembersCount {
		d.Members = append(d.Members, ConsumerGroupMember{ID: r.U32(), Partitions: r.u32List()})
	}
	if code := finish(r); code != OK {
		return ConsumerGroupDetails{}, false, code
	}
	return d, true, OK
}

// DecodeConsumerGroupResponse reads a CreateConsumerGroup payload: one header, nothing after.
func DecodeConsumerGroupResponse(payload []byte) (ConsumerGroupResponse, Code) {
	r := NewReader(payload)
	g := r.ConsumerGroupResponse()
	if code := finish(r); code != OK {
		return ConsumerGroupResponse{}, code
	}
	return g, OK
}

// EncodeConsumerGroups writes the GetConsumerGroups reply: headers
// concatenated, no count, no members.
func EncodeConsumerGroups(w *Writer, groups []ConsumerGroupResponse) {
	for _, g := range groups {
		g.Encode(w)
	}
}

// DecodeConsumerGroups reads a GetConsumerGroups reply to the end of the body.
func DecodeConsumerGroups(body []byte) ([]ConsumerGroupResponse, Code) {
	r := NewReader(body)
	out := make([]ConsumerGroupResponse, 0, len(body)/consumerGroupResponseBytesMin)
	for r.Len() > 0 && r.Err() == OK {
		out = append(out, r.ConsumerGroupResponse())
	}
	if r.Err() != OK {
		return nil, r.Err()
	}
	return out, OK
}

// GroupAssignment is the SyncConsumerGroup reply: [generation u64][count
// u32][partition_id u32 × count], the member's pollable partitions.
type GroupAssignment struct {
	Generation uint64
	Partitions []uint32
}

func (a GroupAssignment) Encode(w *Writer) {
	w.U64(a.Generation)
	w.u32List(a.Partitions)
}

// DecodeGroupAssignment reads a Sync reply; an empty body means the caller is
// not a member, or the group was not found (member = false).
func DecodeGroupAssignment(body []byte) (a GroupAssignment, member bool, code Code) {
	if len(body) == 0 {
		return GroupAssignment{}, false, OK
	}
	r := NewReader(body)
	a = GroupAssignment{Generation: r.U64(), Partitions: r.u32List()}
	if code := finish(r); code != OK {
		return GroupAssignment{}, false, code
	}
	return a, true, OK
}
