package metadata

import "github.com/iggygo/iggy/wire"

func (s *State) createStream(ctx Ctx, c *CreateStream) Result {
	if !s.can(ctx, ActionManageStreams, NoResource, NoResource) {
		return reject(wire.Unauthorized)
	}
	if _, taken := s.streamNames[c.Name]; taken {
		return reject(wire.StreamNameAlreadyExists)
	}
	if len(s.streams) >= streamsMax {
		return reject(wire.TooManyStreams)
	}
	id := lowestFreeID(s.streams, streamKey)
	st := &Stream{
		ID:              id,
		Name:            c.Name,
		CreatedAtMicros: ctx.NowMicros,
		CreatedOp:       ctx.Op,
		Options:         cloneBytes(c.Options),
		topicNames:      map[string]uint32{},
	}
	s.streams = insertAt(s.streams, int(id), st)
	s.streamNames[st.Name] = id
	return Result{Stream: st}
}

// setStreamKeyOptions replaces a stream's options if the incarnation the
// node read is still there (a stream deleted and created again meanwhile
// keeps its own).
func (s *State) setStreamKeyOptions(ctx Ctx, c *SetStreamKeyOptions) Result {
	if !s.can(ctx, ActionManageServers, NoResource, NoResource) {
		return reject(wire.Unauthorized)
	}
	st, _, ok := s.findStream(wire.NumericID(c.Stream))
	if !ok || st.CreatedOp != c.CreatedOp {
		return reject(wire.StreamIdNotFound)
	}
	st.Options = cloneBytes(c.Options)
	return Result{Stream: st}
}

func (s *State) deleteStream(ctx Ctx, c *DeleteStream) Result {
	st, i, ok := s.findStream(c.Stream)
	if !ok {
		return reject(wire.StreamIdNotFound)
	}
	if !s.can(ctx, ActionManageStreams, st.ID, NoResource) {
		return reject(wire.Unauthorized)
	}
	var effects []Effect
	for _, t := range st.Topics {
		effects = appendTopicDeleted(effects, st.ID, t)
	}
	for _, u := range s.users {
		if pruneStream(u.Permissions, st.ID) {
			effects = append(effects, PermissionsPruned{User: u.ID})
		}
	}
	s.streams = removeAt(s.streams, i)
	delete(s.streamNames, st.Name)
	return Result{Effects: effects}
}

// appendTopicDeleted lists what deleting topic t means for the partition logs.
func appendTopicDeleted(effects []Effect, stream uint32, t *Topic) []Effect {
	for _, p := range t.Partitions {
		effects = append(effects, PartitionDeleted{Stream: stream, Topic: t.ID, Partition: p.ID, Revision: p.CreatedRevision})
	}
	for _, g := range t.Groups {
		effects = append(effects, GroupDeleted{Stream: stream, Topic: t.ID, Group: g.ID})
	}
	return effects
}

func (s *State) purgeStream(ctx Ctx, c *PurgeStream) Result {
	st, _, ok := s.findStream(c.Stream)
	if !ok {
		return reject(wire.StreamIdNotFound)
	}
	if !s.can(ctx, ActionManageStreams, st.ID, NoResource) {
		return reject(wire.Unauthorized)
	}
	var effects []Effect
	for _, t := range st.Topics {
		effects = purgePartitions(ctx, effects, st.ID, t)
	}
	return Result{Effects: effects}
}

// purgePartitions gives every partition of t a fresh, empty history.
func purgePartitions(ctx Ctx, effects []Effect, stream uint32, t *Topic) []Effect {
	for i := range t.Partitions {
		p := &t.Partitions[i]
		effects = append(effects, PartitionPurged{
			Stream: stream, Topic: t.ID, Partition: p.ID,
			OldRevision: p.CreatedRevision, Revision: ctx.Op,
		})
		p.CreatedRevision = ctx.Op
		p.FirstPrimary = p.Primary // the new history starts where the old one was led
	}
	return effects
}

func cloneBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
