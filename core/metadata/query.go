package metadata

import "github.com/iggygo/iggy/wire"

// Queries serve non-replicated reads. They return pointers into the state:
// read them before the next Apply and never change them. Lists are fresh
// slices in ascending id order (tokens: ascending name).

// Stream finds a stream by numeric id or exact name.
func (s *State) Stream(id wire.Identifier) (*Stream, bool) {
	st, _, ok := s.findStream(id)
	return st, ok
}

// Streams lists every stream.
func (s *State) Streams() []*Stream { return append([]*Stream(nil), s.streams...) }

// Topic finds a topic; the code is 1009 or 2010 for a miss.
func (s *State) Topic(stream, topic wire.Identifier) (*Stream, *Topic, wire.Code) {
	st, t, _, code := s.findTopicIn(stream, topic)
	return st, t, code
}

// Group finds a consumer group; the code is 1009, 2010 or 5000 for a miss.
func (s *State) Group(stream, topic, group wire.Identifier) (*ConsumerGroup, wire.Code) {
	_, _, g, _, code := s.findGroupIn(stream, topic, group)
	return g, code
}

// Member finds a client's slot in the group.
func (g *ConsumerGroup) Member(client ClientID) (*Member, bool) {
	i, ok := g.memberIndex(client)
	if !ok {
		return nil, false
	}
	return &g.Members[i], true
}

// Sync is SyncConsumerGroup: the generation and the client's pollable
// partitions; ok is false when the group is unknown or the client is not a
// member (both answer with an empty body).
func (s *State) Sync(stream, topic, group wire.Identifier, client ClientID) (uint64, []uint32, bool) {
	g, code := s.Group(stream, topic, group)
	if code != wire.OK {
		return 0, nil, false
	}
	m, ok := g.Member(client)
	if !ok {
		return 0, nil, false
	}
	return g.Generation, m.Pollable(), true
}

// GroupOwns reports whether client may commit offsets of partition for the
// group: it owns it, pending revocation included (else 5009).
func (s *State) GroupOwns(stream, topic, group wire.Identifier, client ClientID, partition uint32) bool {
	g, code := s.Group(stream, topic, group)
	if code != wire.OK {
		return false
	}
	m, ok := g.Member(client)
	return ok && containsSorted(m.Partitions, partition)
}

// PartitionsTotal counts the partitions of every topic (metadata.partitions_max).
func (s *State) PartitionsTotal() int {
	n := 0
	for _, st := range s.streams {
		for _, t := range st.Topics {
			n += len(t.Partitions)
		}
	}
	return n
}

// User finds a user by numeric id or exact username.
func (s *State) User(id wire.Identifier) (*User, bool) {
	u, _, ok := s.findUser(id)
	return u, ok
}

// Users lists every user.
func (s *State) Users() []*User { return append([]*User(nil), s.users...) }

// Tokens lists a user's tokens by name.
func (s *State) Tokens(user uint32) []*PersonalAccessToken {
	u, _, ok := s.userByID(user)
	if !ok {
		return nil
	}
	return append([]*PersonalAccessToken(nil), u.tokens...)
}

// TokenCount is the number of committed tokens of a user (max_tokens_per_user).
func (s *State) TokenCount(user uint32) int {
	u, _, ok := s.userByID(user)
	if !ok {
		return 0
	}
	return len(u.tokens)
}

// TokenByHash finds a token for a PAT login; the caller checks Expired.
func (s *State) TokenByHash(hash string) (*PersonalAccessToken, bool) {
	t, ok := s.tokenHashes[hash]
	return t, ok
}
