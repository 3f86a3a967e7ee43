package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/wire"
)

// commandPayload is the reply payload of a committed command: the created
// resource for creates, nothing for the rest.
func (n *Node) commandPayload(cmd metadata.Command, res metadata.Result) []byte {
	w := wire.Writer{}
	switch cmd.(type) {
	case *metadata.CreateStream:
		n.streamResponse(res.Stream).Encode(&w)
	case *metadata.CreateTopic:
		n.topicDetails(res.Stream, res.Topic).Encode(&w)
	case *metadata.CreateUser:
		userDetails(res.User).Encode(&w)
	case *metadata.CreateConsumerGroup:
		groupResponse(res.Topic, res.Group).Encode(&w)
	}
	return w.Buf
}

// partitionStats sums the stats of a topic's partition logs.
func (n *Node) topicStats(s *metadata.Stream, t *metadata.Topic) (size, messages uint64) {
	for _, p := range t.Partitions {
		if st, ok := n.partitionStats(partKey{s.ID, t.ID, p.ID}); ok {
			size += st.SizeBytes
			messages += st.MessagesCount
		}
	}
	return size, messages
}

func (n *Node) streamResponse(s *metadata.Stream) wire.StreamResponse {
	r := wire.StreamResponse{
		ID: s.ID, CreatedAtMicros: s.CreatedAtMicros, TopicsCount: uint32(len(s.Topics)),
		Name: s.Name, Options: n.streamOptionsView(s),
	}
	for _, t := range s.Topics {
		size, messages := n.topicStats(s, t)
		r.SizeBytes += size
		r.MessagesCount += messages
	}
	return r
}

func (n *Node) topicHeader(s *metadata.Stream, t *metadata.Topic) wire.TopicHeader {
	explicit, _ := wire.DecodeOptions(t.ExplicitOptions)
	derived, _ := wire.DecodeOptions(t.DerivedOptions)
	size, messages := n.topicStats(s, t)
	return wire.TopicHeader{
		ID: t.ID, CreatedAtMicros: t.CreatedAtMicros, PartitionsCount: uint32(len(t.Partitions)),
		MessageExpiryMicros: t.MessageExpiry, CompressionAlgorithm: wire.CompressionAlgorithm(t.CompressionAlgorithm),
		MaxTopicSizeBytes: t.MaxTopicSize, SizeBytes: size, MessagesCount: messages,
		Name: t.Name, Explicit: explicit, Derived: derived,
	}
}

func (n *Node) topicDetails(s *metadata.Stream, t *metadata.Topic) wire.TopicDetails {
	d := wire.TopicDetails{Topic: n.topicHeader(s, t)}
	for _, p := range t.Partitions {
		r := wire.PartitionResponse{ID: p.ID, CreatedAtMicros: p.CreatedAtMicros}
		if st, ok := n.partitionStats(partKey{s.ID, t.ID, p.ID}); ok {
			r.SegmentsCount, r.CurrentOffset, r.SizeBytes, r.MessagesCount = st.SegmentsCount, st.CurrentOffset, st.SizeBytes, st.MessagesCount
		}
		d.Partitions = append(d.Partitions, r)
	}
	return d
}

func userDetails(u *metadata.User) wire.UserDetails {
	return wire.UserDetails{
		UserInfo: wire.UserInfo{
			ID: u.ID, CreatedAt: u.CreatedAtMicros, Status: wire.UserStatus(u.Status), Username: u.Username,
		},
		Permissions: u.Permissions,
	}
}
