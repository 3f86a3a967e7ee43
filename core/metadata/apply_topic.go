package metadata

import "github.com/iggygo/iggy/wire"

const (
	compressionNone = 1
	compressionGzip = 2
)

func (s *State) createTopic(ctx Ctx, c *CreateTopic) Result {
	st, _, ok := s.findStream(c.Stream)
	if !ok {
		return reject(wire.StreamIdNotFound)
	}
	if !s.can(ctx, ActionManageTopics, st.ID, NoResource) {
		return reject(wire.Unauthorized)
	}
	if code := checkNewTopic(st, c); code != wire.OK {
		return reject(code)
	}
	if code := checkPlacement(&c.Placement, c.ReplicationFactor); code != wire.OK {
		return reject(code)
	}
	id := lowestFreeID(st.Topics, topicKey)
	t := &Topic{
		ID: id, Name: c.Name, CreatedAtMicros: ctx.NowMicros, CreatedOp: ctx.Op,
		ExplicitOptions: cloneBytes(c.ExplicitOptions), DerivedOptions: cloneBytes(c.DerivedOptions),
		MessageExpiry: c.MessageExpiry, MaxTopicSize: c.MaxTopicSize,
		CompressionAlgorithm: c.CompressionAlgorithm, ReplicationFactor: c.ReplicationFactor,
		ResizePolicy: c.ResizePolicy, groupNames: map[string]uint32{},
	}
	effects := s.appendPartitions(ctx, nil, st.ID, t, c.PartitionsCount, &c.Placement)
	st.Topics = insertAt(st.Topics, int(id), t)
	st.topicNames[t.Name] = id
	return Result{Stream: st, Topic: t, Effects: effects}
}

// checkNewTopic gives the committed rejection of a create, or OK.
func checkNewTopic(st *Stream, c *CreateTopic) wire.Code {
	if _, taken := st.topicNames[c.Name]; taken {
		return wire.TopicNameAlreadyExists
	}
	if len(st.Topics) >= topicsPerStreamMax {
		return wire.TooManyTopics
	}
	if c.PartitionsCount > partitionsPerRequestMax {
		return wire.TooManyPartitions
	}
	if c.ReplicationFactor > replicationFactorMax {
		return wire.InvalidReplicationFactor
	}
	if c.ResizePolicy > ResizeFixed {
		return wire.InvalidOptionValue
	}
	if c.CompressionAlgorithm != compressionNone && c.CompressionAlgorithm != compressionGzip {
		return wire.InvalidOptionValue
	}
	explicit, _ := parseOptions(c.ExplicitOptions)
	derived, _ := parseOptions(c.DerivedOptions)
	if !fitsSegment(c.MaxTopicSize, explicit, derived) {
		return wire.InvalidTopicSize
	}
	return wire.OK
}

// fitsSegment: a max topic size other than the two sentinels must be at least
// the topic's segment size (1019).
func fitsSegment(maxTopicSize uint64, explicit, derived []option) bool {
	if maxTopicSize == 0 || maxTopicSize == ^uint64(0) {
		return true
	}
	o, ok := findOption(explicit, keySegmentSize)
	if !ok {
		o, ok = findOption(derived, keySegmentSize)
	}
	if !ok {
		return true
	}
	segment, ok := o.uint64Value()
	return !ok || segment == 0 || maxTopicSize >= segment
}

// appendPartitions adds count partitions after the highest id, placed at
// the topic's factor; the caller has checked the id space and placement.
func (s *State) appendPartitions(ctx Ctx, effects []Effect, stream uint32, t *Topic, count uint32, pl *Placement) []Effect {
	next := nextPartitionID(t)
	places := s.placePartitions(ctx, pl, t.ReplicationFactor, next, count)
	for i := uint32(0); i < count; i++ {
		p := Partition{ID: next + i, CreatedAtMicros: ctx.NowMicros, CreatedRevision: ctx.Op,
			Members: places[i].members, FirstPrimary: places[i].primary, Primary: places[i].primary}
		t.Partitions = append(t.Partitions, p)
		effects = append(effects, PartitionCreated{Stream: stream, Topic: t.ID, Partition: p.ID, Revision: p.CreatedRevision})
	}
	return effects
}

func nextPartitionID(t *Topic) uint32 {
	if len(t.Partitions) == 0 {
		return 0
	}
	return t.Partitions[len(t.Partitions)-1].ID + 1
}

func (s *State) deleteTopic(ctx Ctx, c *DeleteTopic) Result {
	st, t, i, code := s.findTopicIn(c.Stream, c.Topic)
	if code != wire.OK {
		return reject(code)
	}
	if !s.can(ctx, ActionManageTopics, st.ID, t.ID) {
		return reject(wire.Unauthorized)
	}
	effects := appendTopicDeleted(nil, st.ID, t)
	for _, u := range s.users {
		if pruneTopic(u.Permissions, st.ID, t.ID) {
			effects = append(effects, PermissionsPruned{User: u.ID})
		}
	}
	st.Topics = removeAt(st.Topics, i)
	delete(st.topicNames, t.Name)
	return Result{Effects: effects}
}

func (s *State) purgeTopic(ctx Ctx, c *PurgeTopic) Result {
	st, t, _, code := s.findTopicIn(c.Stream, c.Topic)
	if code != wire.OK {
		return reject(code)
	}
	if !s.can(ctx, ActionManageTopics, st.ID, t.ID) {
		return reject(wire.Unauthorized)
	}
	return Result{Effects: purgePartitions(ctx, nil, st.ID, t)}
}
