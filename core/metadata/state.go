package metadata

import (
	"sort"

	"github.com/iggygo/iggy/wire"
)

// State is the whole metadata of a node, as of the last applied op.
type State struct {
	lastOp      uint64
	streams     []*Stream // ascending ids
	streamNames map[string]uint32
	users       []*User // ascending ids
	userNames   map[string]uint32
	nextUserID  uint32
	tokenHashes map[string]*PersonalAccessToken // every user's tokens by hash
	changes     changeLog
}

// New returns the empty state that op 1 (root creation) starts from.
func New() *State {
	return &State{
		streamNames: map[string]uint32{},
		userNames:   map[string]uint32{},
		tokenHashes: map[string]*PersonalAccessToken{},
		changes:     changeLog{resourceCap: ChangeLogResourceCapacityDefault, activityCap: ChangeLogActivityCapacityDefault},
	}
}

// LastOp is the op number of the last applied command (0 before any).
func (s *State) LastOp() uint64 { return s.lastOp }

// search returns the index of id in items (ascending by key), or where it
// would be inserted, and whether it is there.
func search[T any](items []T, id uint32, key func(T) uint32) (int, bool) {
	i := sort.Search(len(items), func(i int) bool { return key(items[i]) >= id })
	return i, i < len(items) && key(items[i]) == id
}

// lowestFreeID is the smallest id missing from items (ascending, distinct,
// from 0). ids[i] >= i always holds, and once ids[i] > i it stays so, which
// makes the first gap binary-searchable.
func lowestFreeID[T any](items []T, key func(T) uint32) uint32 {
	i := sort.Search(len(items), func(i int) bool { return key(items[i]) != uint32(i) })
	return uint32(i)
}

// insertAt inserts v at index i.
func insertAt[T any](items []T, i int, v T) []T {
	var zero T
	items = append(items, zero)
	copy(items[i+1:], items[i:])
	items[i] = v
	return items
}

// removeAt removes the element at index i, keeping the order.
func removeAt[T any](items []T, i int) []T {
	copy(items[i:], items[i+1:])
	var zero T
	items[len(items)-1] = zero
	return items[:len(items)-1]
}

func streamKey(x *Stream) uint32        { return x.ID }
func topicKey(x *Topic) uint32          { return x.ID }
func partitionKey(x Partition) uint32   { return x.ID }
func groupKey(x *ConsumerGroup) uint32  { return x.ID }
func memberKey(x Member) uint32         { return x.ID }
func userKey(x *User) uint32            { return x.ID }
func revocationKey(x Revocation) uint32 { return x.Partition }
func identity(x uint32) uint32          { return x }

// resolve finds the id an identifier names: the number itself, or the id
// the exact name maps to.
func resolve(id wire.Identifier, names map[string]uint32) (uint32, bool) {
	if id.Numeric {
		return id.ID, true
	}
	v, ok := names[id.Name]
	return v, ok
}

func (s *State) findStream(id wire.Identifier) (*Stream, int, bool) {
	n, ok := resolve(id, s.streamNames)
	if !ok {
		return nil, 0, false
	}
	i, ok := search(s.streams, n, streamKey)
	if !ok {
		return nil, 0, false
	}
	return s.streams[i], i, true
}

func (st *Stream) findTopic(id wire.Identifier) (*Topic, int, bool) {
	n, ok := resolve(id, st.topicNames)
	if !ok {
		return nil, 0, false
	}
	i, ok := search(st.Topics, n, topicKey)
	if !ok {
		return nil, 0, false
	}
	return st.Topics[i], i, true
}

func (t *Topic) findGroup(id wire.Identifier) (*ConsumerGroup, int, bool) {
	n, ok := resolve(id, t.groupNames)
	if !ok {
		return nil, 0, false
	}
	i, ok := search(t.Groups, n, groupKey)
	if !ok {
		return nil, 0, false
	}
	return t.Groups[i], i, true
}

func (s *State) findUser(id wire.Identifier) (*User, int, bool) {
	n, ok := resolve(id, s.userNames)
	if !ok {
		return nil, 0, false
	}
	return s.userByID(n)
}

func (s *State) userByID(id uint32) (*User, int, bool) {
	i, ok := search(s.users, id, userKey)
	if !ok {
		return nil, 0, false
	}
	return s.users[i], i, true
}

// findTopicIn resolves a stream and a topic, or the code for the first miss.
func (s *State) findTopicIn(stream, topic wire.Identifier) (*Stream, *Topic, int, wire.Code) {
	st, _, ok := s.findStream(stream)
	if !ok {
		return nil, nil, 0, wire.StreamIdNotFound
	}
	t, i, ok := st.findTopic(topic)
	if !ok {
		return st, nil, 0, wire.TopicIdNotFound
	}
	return st, t, i, wire.OK
}

// findGroupIn resolves stream, topic and group, or the code for the first miss.
func (s *State) findGroupIn(stream, topic, group wire.Identifier) (*Stream, *Topic, *ConsumerGroup, int, wire.Code) {
	st, t, _, code := s.findTopicIn(stream, topic)
	if code != wire.OK {
		return nil, nil, nil, 0, code
	}
	g, i, ok := t.findGroup(group)
	if !ok {
		return nil, nil, nil, 0, wire.ConsumerGroupIdNotFound
	}
	return st, t, g, i, wire.OK
}
