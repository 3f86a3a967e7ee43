package metadata

import "github.com/iggygo/iggy/wire"

// recordChanges appends the records of one applied command (MCL-1, MCL-2).
// It runs only for commands that committed with OK (MCL-3).
func (s *State) recordChanges(ctx Ctx, cmd Command, res Result, pre subject) {
	switch c := cmd.(type) {
	case *CreateStream:
		s.emit(ctx, cmd, wire.GroupStreams, "stream.created", streamBody(res.Stream))
	case *UpdateStream, *SetStreamKeyOptions:
		s.recordStream(ctx, cmd, pre, "stream.updated")
	case *DeleteStream:
		s.emit(ctx, cmd, wire.GroupStreams, "stream.deleted", changeBody{Stream: pre.stream})
		s.recordPruned(ctx, cmd, pre.pruned)
	case *PurgeStream:
		s.emit(ctx, cmd, wire.GroupStreams, "stream.purged", changeBody{Stream: pre.stream})
	case *CreateTopic:
		s.emit(ctx, cmd, wire.GroupTopics, "topic.created", topicBody(res.Stream, res.Topic))
	case *UpdateTopic:
		s.recordTopic(ctx, cmd, pre, "topic.updated")
	case *DeleteTopic:
		s.emit(ctx, cmd, wire.GroupTopics, "topic.deleted", changeBody{Stream: pre.stream, Topic: pre.topic})
		s.recordPruned(ctx, cmd, pre.pruned)
	case *PurgeTopic:
		s.emit(ctx, cmd, wire.GroupTopics, "topic.purged", changeBody{Stream: pre.stream, Topic: pre.topic})
	case *CreatePartitions, *DeletePartitions:
		s.recordPartitions(ctx, cmd, pre)
	case *TruncatePartition:
		s.emit(ctx, cmd, wire.GroupPartitions, "partition.truncated", changeBody{Stream: pre.stream, Topic: pre.topic, Partition: u32p(c.Partition)})
	case *UpdateResource:
		s.recordResource(ctx, c, pre)
	default:
		s.recordMore(ctx, cmd, res, pre)
	}
}

func (s *State) recordMore(ctx Ctx, cmd Command, res Result, pre subject) {
	if membership(cmd.Kind()) && len(res.Effects) == 0 {
		return // a repeated join or a settled move changes nothing (MCL-3)
	}
	switch c := cmd.(type) {
	case *CreateConsumerGroup:
		s.emit(ctx, cmd, wire.GroupConsumerGroups, "consumer_group.created", groupBody(res.Stream, c.Topic, res.Group))
	case *DeleteConsumerGroup:
		s.emit(ctx, cmd, wire.GroupConsumerGroups, "consumer_group.deleted", changeBody{Stream: pre.stream, Topic: pre.topic, Group: pre.group})
	case *JoinConsumerGroup:
		s.emit(ctx, cmd, wire.GroupConsumerGroupMembers, "member.joined", memberBody(pre, c.Client))
	case *LeaveConsumerGroup:
		s.emit(ctx, cmd, wire.GroupConsumerGroupMembers, "member.left", memberBody(pre, c.Client))
	case *RemoveMember:
		s.emit(ctx, cmd, wire.GroupConsumerGroupMembers, "member.removed", changeBody{Member: &memberJSON{ClientLo: c.Client.Lo, ClientHi: c.Client.Hi}})
	case *CompleteRevocation:
		b := changeBody{Stream: pre.stream, Topic: pre.topic, Group: pre.group, Partition: u32p(c.Partition)}
		s.emit(ctx, cmd, wire.GroupConsumerGroupMembers, "member.revocation_completed", b)
	default:
		s.recordUser(ctx, cmd, res, pre)
	}
}

func (s *State) recordUser(ctx Ctx, cmd Command, res Result, pre subject) {
	switch c := cmd.(type) {
	case *CreateUser:
		u := res.User
		s.emit(ctx, cmd, wire.GroupUsers, "user.created", userBody(u))
	case *UpdateUser:
		s.recordUserNow(ctx, cmd, pre, "user.updated")
	case *DeleteUser:
		s.emit(ctx, cmd, wire.GroupUsers, "user.deleted", changeBody{User: pre.user})
	case *ChangePassword:
		s.emit(ctx, cmd, wire.GroupUsers, "user.password_changed", changeBody{User: pre.user})
	case *UpdatePermissions:
		s.recordUserNow(ctx, cmd, pre, "user.permissions_updated")
	case *CreatePersonalAccessToken:
		b := changeBody{User: &ref{ID: ctx.UserID}, Token: c.Name}
		if res.Token != nil && res.Token.ExpiryAtMicros != 0 {
			b.Expiry = &res.Token.ExpiryAtMicros
		}
		s.emit(ctx, cmd, wire.GroupPersonalAccessTokens, "personal_access_token.created", b)
	case *DeletePersonalAccessToken:
		s.emit(ctx, cmd, wire.GroupPersonalAccessTokens, "personal_access_token.deleted", changeBody{User: &ref{ID: ctx.UserID}, Token: c.Name})
	case *DeleteExpiredTokens:
		for _, t := range pre.expired {
			s.emit(ctx, cmd, wire.GroupPersonalAccessTokens, "personal_access_token.expired", changeBody{User: &ref{ID: t.UserID}, Token: t.Name})
		}
	}
}

func statusName(st UserStatus) string {
	if st == UserInactive {
		return "inactive"
	}
	return "active"
}

func groupBody(st *Stream, topic wire.Identifier, g *ConsumerGroup) changeBody {
	b := changeBody{Stream: streamRef(st), Group: &ref{ID: g.ID, Name: g.Name}}
	if t, _, ok := st.findTopic(topic); ok {
		b.Topic = topicRef(t)
	}
	return b
}

func memberBody(pre subject, client ClientID) changeBody {
	return changeBody{Stream: pre.stream, Topic: pre.topic, Group: pre.group, Member: &memberJSON{ClientLo: client.Lo, ClientHi: client.Hi}}
}

func topicBody(st *Stream, t *Topic) changeBody {
	return changeBody{Stream: streamRef(st), Topic: topicRef(t), Partitions: u32p(uint32(len(t.Partitions))), Options: topicOptionsView(t)}
}

// liveStream finds the stream a pre-apply ref named, by id and incarnation.
func (s *State) liveStream(r *ref) *Stream {
	if r == nil {
		return nil
	}
	i, ok := search(s.streams, r.ID, streamKey)
	if !ok || s.streams[i].CreatedOp != r.CreatedOp {
		return nil
	}
	return s.streams[i]
}

func (s *State) liveTopic(pre subject) (*Stream, *Topic) {
	st := s.liveStream(pre.stream)
	if st == nil || pre.topic == nil {
		return st, nil
	}
	i, ok := search(st.Topics, pre.topic.ID, topicKey)
	if !ok {
		return st, nil
	}
	return st, st.Topics[i]
}

func (s *State) recordStream(ctx Ctx, cmd Command, pre subject, kind string) {
	if st := s.liveStream(pre.stream); st != nil {
		s.emitChanged(ctx, cmd, wire.GroupStreams, kind, streamBody(st), pre.before)
	}
}

func (s *State) recordTopic(ctx Ctx, cmd Command, pre subject, kind string) {
	if st, t := s.liveTopic(pre); t != nil {
		s.emitChanged(ctx, cmd, wire.GroupTopics, kind, topicBody(st, t), pre.before)
	}
}

func (s *State) recordPartitions(ctx Ctx, cmd Command, pre subject) {
	kind := "partitions.created"
	if cmd.Kind() == KindDeletePartitions {
		kind = "partitions.deleted"
	}
	if st, t := s.liveTopic(pre); t != nil {
		s.emit(ctx, cmd, wire.GroupPartitions, kind, changeBody{Stream: streamRef(st), Topic: topicRef(t), Partitions: u32p(uint32(len(t.Partitions)))})
	}
}

func (s *State) recordResource(ctx Ctx, c *UpdateResource, pre subject) {
	switch c.Scope {
	case ScopeStream:
		s.recordStream(ctx, c, pre, "stream.updated")
	case ScopeTopic:
		s.recordTopic(ctx, c, pre, "topic.updated")
	case ScopeUser:
		s.recordUserNow(ctx, c, pre, "user.updated")
	}
}

func (s *State) recordUserNow(ctx Ctx, cmd Command, pre subject, kind string) {
	if pre.user == nil {
		return
	}
	if u, _, ok := s.userByID(pre.user.ID); ok {
		s.emitChanged(ctx, cmd, wire.GroupUsers, kind, userBody(u), pre.before)
	}
}

// recordPruned records the grants a stream or topic delete pruned (MCL-2).
func (s *State) recordPruned(ctx Ctx, cmd Command, users []uint32) {
	for _, id := range users {
		if u, _, ok := s.userByID(id); ok {
			s.emit(ctx, cmd, wire.GroupUsers, "user.permissions_updated", changeBody{User: &ref{ID: u.ID, Name: u.Username}, Perms: u.Permissions})
		}
	}
}

func membership(k Kind) bool {
	switch k {
	case KindJoinConsumerGroup, KindLeaveConsumerGroup, KindRemoveMember, KindCompleteRevocation:
		return true
	}
	return false
}

func streamBody(st *Stream) changeBody {
	return changeBody{Stream: streamRef(st), Options: streamOptionsView(st)}
}

func userBody(u *User) changeBody {
	return changeBody{User: &ref{ID: u.ID, Name: u.Username}, Status: statusName(u.Status), Perms: u.Permissions}
}
