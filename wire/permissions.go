package wire

import "sort"

// GlobalPermissions are the ten server-wide rights, in wire order.
// The JSON tags are the http.md 4.2 names (change log bodies use them).
type GlobalPermissions struct {
	ManageServers bool `json:"manage_servers"`
	ReadServers   bool `json:"read_servers"`
	ManageUsers   bool `json:"manage_users"`
	ReadUsers     bool `json:"read_users"`
	ManageStreams bool `json:"manage_streams"`
	ReadStreams   bool `json:"read_streams"`
	ManageTopics  bool `json:"manage_topics"`
	ReadTopics    bool `json:"read_topics"`
	PollMessages  bool `json:"poll_messages"`
	SendMessages  bool `json:"send_messages"`
}

// StreamPermissions are a user's rights on one stream and its topics.
type StreamPermissions struct {
	ManageStream bool                        `json:"manage_stream"`
	ReadStream   bool                        `json:"read_stream"`
	ManageTopics bool                        `json:"manage_topics"`
	ReadTopics   bool                        `json:"read_topics"`
	PollMessages bool                        `json:"poll_messages"`
	SendMessages bool                        `json:"send_messages"`
	Topics       map[uint32]TopicPermissions `json:"topics"`
}

// TopicPermissions are a user's rights on one topic.
type TopicPermissions struct {
	ManageTopic  bool `json:"manage_topic"`
	ReadTopic    bool `json:"read_topic"`
	PollMessages bool `json:"poll_messages"`
	SendMessages bool `json:"send_messages"`
}

// Permissions is the permissions block of protocol-framing.md 6.3.
type Permissions struct {
	Global  GlobalPermissions            `json:"global"`
	Streams map[uint32]StreamPermissions `json:"streams"`
}

// permissionsEntriesMax bounds the stream and topic entries one block may hold,
// so a hostile block cannot make the decoder loop or allocate without limit.
const permissionsEntriesMax = 100_000

// Permissions decodes a block of exactly size bytes.
func (r *Reader) Permissions(size int) Permissions {
	start := r.Pos()
	var p Permissions
	g := &p.Global
	for _, f := range []*bool{&g.ManageServers, &g.ReadServers, &g.ManageUsers, &g.ReadUsers,
		&g.ManageStreams, &g.ReadStreams, &g.ManageTopics, &g.ReadTopics, &g.PollMessages, &g.SendMessages} {
		*f = r.Bool()
	}
	more := r.U8() == 1
	for entries := 0; more && r.Err() == OK; entries++ {
		if entries >= permissionsEntriesMax {
			r.Fail(InvalidCommand)
			break
		}
		id := r.U32()
		var s StreamPermissions
		for _, f := range []*bool{&s.ManageStream, &s.ReadStream, &s.ManageTopics, &s.ReadTopics,
			&s.PollMessages, &s.SendMessages} {
			*f = r.Bool()
		}
		topics := r.U8() == 1
		for ; topics && r.Err() == OK; entries++ {
			if entries >= permissionsEntriesMax {
				r.Fail(InvalidCommand)
				break
			}
			tid := r.U32()
			var t TopicPermissions
			for _, f := range []*bool{&t.ManageTopic, &t.ReadTopic, &t.PollMessages, &t.SendMessages} {
				*f = r.Bool()
			}
			if s.Topics == nil {
				s.Topics = map[uint32]TopicPermissions{}
			}
			s.Topics[tid] = t
			topics = r.U8() == 1
		}
		if p.Streams == nil {
			p.Streams = map[uint32]StreamPermissions{}
		}
		p.Streams[id] = s
		more = r.U8() == 1
	}
	if r.Err() == OK && r.Pos()-start != size {
		r.Fail(InvalidCommand)
	}
	return p
}

// Permissions encodes p with streams and topics in ascending id order.
func (w *Writer) Permissions(p Permissions) {
	g := p.Global
	for _, f := range []bool{g.ManageServers, g.ReadServers, g.ManageUsers, g.ReadUsers,
		g.ManageStreams, g.ReadStreams, g.ManageTopics, g.ReadTopics, g.PollMessages, g.SendMessages} {
		w.Bool(f)
	}
	streams := sortedKeys(p.Streams)
	w.Bool(len(streams) > 0)
	for i, id := range streams {
		s := p.Streams[id]
		w.U32(id)
		for _, f := range []bool{s.ManageStream, s.ReadStream, s.ManageTopics, s.ReadTopics,
			s.PollMessages, s.SendMessages} {
			w.Bool(f)
		}
		topics := sortedKeys(s.Topics)
		w.Bool(len(topics) > 0)
		for j, tid := range topics {
			t := s.Topics[tid]
			w.U32(tid)
			for _, f := range []bool{t.ManageTopic, t.ReadTopic, t.PollMessages, t.SendMessages} {
				w.Bool(f)
			}
			w.Bool(j+1 < len(topics))
		}
		w.Bool(i+1 < len(streams))
	}
}

// sortedKeys returns m's keys in ascending order, so no map order reaches the wire.
func sortedKeys[V any](m map[uint32]V) []uint32 {
	keys := make([]uint32, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
