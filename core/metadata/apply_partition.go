package metadata

import "github.com/iggygo/iggy/wire"

func (s *State) createPartitions(ctx Ctx, c *CreatePartitions) Result {
	st, t, code := s.resizableTopic(ctx, c.Stream, c.Topic, c.Count)
	if code != wire.OK {
		return reject(code)
	}
	if uint64(nextPartitionID(t))+uint64(c.Count) > partitionIDsMax {
		return reject(wire.PartitionIdSpaceExhausted)
	}
	if code := checkPlacement(&c.Placement, t.ReplicationFactor); code != wire.OK {
		return reject(code)
	}
	effects := s.appendPartitions(ctx, nil, st.ID, t, c.Count, &c.Placement)
	effects = rebalanceTopic(effects, st.ID, t)
	return Result{Effects: effects}
}

func (s *State) deletePartitions(ctx Ctx, c *DeletePartitions) Result {
	st, t, code := s.resizableTopic(ctx, c.Stream, c.Topic, c.Count)
	if code != wire.OK {
		return reject(code)
	}
	if int(c.Count) > len(t.Partitions) {
		return reject(wire.InvalidPartitionsCount)
	}
	keep := len(t.Partitions) - int(c.Count)
	var effects []Effect
	for _, p := range t.Partitions[keep:] {
		effects = append(effects, PartitionDeleted{Stream: st.ID, Topic: t.ID, Partition: p.ID, Revision: p.CreatedRevision})
	}
	clear(t.Partitions[keep:])
	t.Partitions = t.Partitions[:keep]
	effects = rebalanceTopic(effects, st.ID, t)
	return Result{Effects: effects}
}

// resizableTopic resolves a topic whose partition count may change by count.
func (s *State) resizableTopic(ctx Ctx, stream, topic wire.Identifier, count uint32) (*Stream, *Topic, wire.Code) {
	st, t, _, code := s.findTopicIn(stream, topic)
	if code != wire.OK {
		return nil, nil, code
	}
	if !s.can(ctx, ActionManageTopics, st.ID, t.ID) {
		return nil, nil, wire.Unauthorized
	}
	if count == 0 || count > partitionsPerRequestMax {
		return nil, nil, wire.TooManyPartitions
	}
	if t.ResizePolicy == ResizeFixed {
		return nil, nil, wire.PartitionResizeDisabled
	}
	return st, t, wire.OK
}

// rebalanceTopic deals the topic's partitions afresh in every group.
func rebalanceTopic(effects []Effect, stream uint32, t *Topic) []Effect {
	for _, g := range t.Groups {
		g.rebalanceEager(t.Partitions)
		effects = append(effects, GroupRebalanced{Stream: stream, Topic: t.ID, Group: g.ID, Generation: g.Generation})
	}
	return effects
}

func (s *State) truncatePartition(ctx Ctx, c *TruncatePartition) Result {
	st, t, _, code := s.findTopicIn(c.Stream, c.Topic)
	if code != wire.OK {
		return reject(code)
	}
	if !s.can(ctx, ActionManageTopics, st.ID, t.ID) {
		return reject(wire.Unauthorized)
	}
	i, ok := search(t.Partitions, c.Partition, partitionKey)
	if !ok {
		return reject(wire.PartitionNotFound)
	}
	p := t.Partitions[i]
	return Result{Effects: []Effect{PartitionTruncated{
		Stream: st.ID, Topic: t.ID, Partition: p.ID, Revision: p.CreatedRevision, Watermark: c.Watermark,
	}}}
}

// movePrimary records a granted move (PLACE-11): the partition of that
// incarnation, led by From as the metadata primary saw it, goes to To, one
// of its members. A stale grant (the partition went, or To is no member)
// is refused and changes nothing.
func (s *State) movePrimary(c *MovePrimary) Result {
	p := s.PartitionByID(c.Stream, c.Topic, c.Partition)
	if p == nil || p.CreatedRevision != c.Revision {
		return reject(wire.PartitionNotFound)
	}
	if c.To >= replicationFactorMax || !p.IsMember(c.To) || c.From == c.To {
		return reject(wire.InvalidCommand)
	}
	p.Primary = c.To
	return Result{Effects: []Effect{PrimaryMoveGranted{
		Stream: c.Stream, Topic: c.Topic, Partition: c.Partition, Revision: c.Revision, From: c.From, To: c.To,
	}}}
}

// PartitionByID finds a partition by numeric ids, or nil.
func (s *State) PartitionByID(stream, topic, partition uint32) *Partition {
	i, ok := search(s.streams, stream, streamKey)
	if !ok {
		return nil
	}
	st := s.streams[i]
	j, ok := search(st.Topics, topic, topicKey)
	if !ok {
		return nil
	}
	t := st.Topics[j]
	k, ok := search(t.Partitions, partition, partitionKey)
	if !ok {
		return nil
	}
	return &t.Partitions[k]
}
