package metadata

import (
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// Ctx is what the log knows about an op besides its command.
type Ctx struct {
	Op        uint64 // log op number; strictly increasing across Apply calls
	NowMicros uint64 // the op's timestamp
	UserID    uint32 // the caller; 0 = root (and the node's own internal ops)
}

// Result is the committed outcome of one command. Code is OK or the
// committed rejection (the state is then unchanged and Effects is empty).
// The entity pointers are set by creates and point into the state: read
// them before the next Apply, never change them.
type Result struct {
	Code    wire.Code
	Stream  *Stream
	Topic   *Topic
	Group   *ConsumerGroup
	User    *User
	Token   *PersonalAccessToken
	Effects []Effect
}

func reject(code wire.Code) Result {
	assert.That(code != wire.OK, "reject with OK")
	return Result{Code: code}
}

// Apply applies one committed command. It is deterministic and total: every
// decodable command yields a Result, never a panic.
func (s *State) Apply(ctx Ctx, cmd Command) Result {
	if ctx.Op <= s.lastOp {
		assert.Failf("op %d applied after op %d", ctx.Op, s.lastOp)
	}
	s.lastOp = ctx.Op
	if !wellFormed(cmd) {
		return reject(wire.InvalidCommand)
	}
	pre := s.subjectOf(ctx, cmd)
	res := s.dispatch(ctx, cmd)
	if res.Code == wire.OK {
		s.recordChanges(ctx, cmd, res, pre)
	}
	return res
}

func (s *State) dispatch(ctx Ctx, cmd Command) Result {
	switch c := cmd.(type) {
	case *CreateStream:
		return s.createStream(ctx, c)
	case *UpdateStream:
		return s.updateResource(ctx, &UpdateResource{Scope: ScopeStream, Stream: c.Stream, Name: c.Name, Set: c.Options})
	case *DeleteStream:
		return s.deleteStream(ctx, c)
	case *PurgeStream:
		return s.purgeStream(ctx, c)
	case *CreateTopic:
		return s.createTopic(ctx, c)
	case *UpdateTopic:
		return s.updateResource(ctx, &UpdateResource{Scope: ScopeTopic, Stream: c.Stream, Topic: c.Topic, Name: c.Name, Set: c.Options})
	case *DeleteTopic:
		return s.deleteTopic(ctx, c)
	case *PurgeTopic:
		return s.purgeTopic(ctx, c)
	case *CreatePartitions:
		return s.createPartitions(ctx, c)
	case *DeletePartitions:
		return s.deletePartitions(ctx, c)
	case *TruncatePartition:
		return s.truncatePartition(ctx, c)
	}
	return s.applyMore(ctx, cmd)
}

func (s *State) applyMore(ctx Ctx, cmd Command) Result {
	switch c := cmd.(type) {
	case *CreateConsumerGroup:
		return s.createGroup(ctx, c)
	case *DeleteConsumerGroup:
		return s.deleteGroup(ctx, c)
	case *JoinConsumerGroup:
		return s.joinGroup(ctx, c)
	case *LeaveConsumerGroup:
		return s.leaveGroup(ctx, c)
	case *RemoveMember:
		return s.removeMember(ctx, c)
	case *CompleteRevocation:
		return s.completeRevocation(ctx, c)
	case *MovePrimary:
		return s.movePrimary(c)
	case *UpdateResource:
		return s.updateResource(ctx, c)
	}
	return s.applyUser(ctx, cmd)
}

func (s *State) applyUser(ctx Ctx, cmd Command) Result {
	switch c := cmd.(type) {
	case *CreateUser:
		return s.createUser(ctx, c)
	case *UpdateUser:
		return s.updateResource(ctx, &UpdateResource{Scope: ScopeUser, User: c.User, Name: c.Username, Status: c.Status})
	case *DeleteUser:
		return s.deleteUser(ctx, c)
	case *ChangePassword:
		return s.changePassword(ctx, c)
	case *UpdatePermissions:
		return s.updatePermissions(ctx, c)
	case *CreatePersonalAccessToken:
		return s.createToken(ctx, c)
	case *DeletePersonalAccessToken:
		return s.deleteToken(ctx, c)
	case *DeleteExpiredTokens:
		return s.deleteExpiredTokens(ctx)
	case *SetStreamKeyOptions:
		return s.setStreamKeyOptions(ctx, c)
	}
	assert.Failf("command type %T not handled", cmd)
	return Result{}
}

func (s *State) can(ctx Ctx, action Action, stream, topic uint32) bool {
	return s.Authorize(ctx.UserID, action, stream, topic)
}
