package metadata

import (
	"math"

	"github.com/iggygo/iggy/wire"
)

func (s *State) createGroup(ctx Ctx, c *CreateConsumerGroup) Result {
	st, t, _, code := s.findTopicIn(c.Stream, c.Topic)
	if code != wire.OK {
		return reject(code)
	}
	if !s.can(ctx, ActionReadTopics, st.ID, t.ID) {
		return reject(wire.Unauthorized)
	}
	if _, taken := t.groupNames[c.Name]; taken {
		return reject(wire.ConsumerGroupNameAlreadyExists)
	}
	if t.NextGroupID == math.MaxUint32 {
		return reject(wire.InvalidConsumerGroupId)
	}
	g := &ConsumerGroup{ID: t.NextGroupID, Name: c.Name}
	t.NextGroupID++
	t.Groups = append(t.Groups, g) // the counter only grows, so ids stay ascending
	t.groupNames[g.Name] = g.ID
	return Result{Stream: st, Topic: t, Group: g}
}

// groupFor resolves a group and checks the caller may use it.
func (s *State) groupFor(ctx Ctx, stream, topic, group wire.Identifier) (*Stream, *Topic, *ConsumerGroup, int, wire.Code) {
	st, t, g, i, code := s.findGroupIn(stream, topic, group)
	if code != wire.OK {
		return nil, nil, nil, 0, code
	}
	if !s.can(ctx, ActionReadTopics, st.ID, t.ID) {
		return nil, nil, nil, 0, wire.Unauthorized
	}
	return st, t, g, i, wire.OK
}

func (s *State) deleteGroup(ctx Ctx, c *DeleteConsumerGroup) Result {
	st, t, g, i, code := s.groupFor(ctx, c.Stream, c.Topic, c.Group)
	if code != wire.OK {
		return reject(code)
	}
	t.Groups = removeAt(t.Groups, i)
	delete(t.groupNames, g.Name)
	return Result{Effects: []Effect{GroupDeleted{Stream: st.ID, Topic: t.ID, Group: g.ID}}}
}

func (s *State) joinGroup(ctx Ctx, c *JoinConsumerGroup) Result {
	st, t, g, _, code := s.groupFor(ctx, c.Stream, c.Topic, c.Group)
	if code != wire.OK {
		return reject(code)
	}
	if _, member := g.memberIndex(c.Client); member {
		return Result{Group: g} // joining again succeeds and changes nothing
	}
	slot := lowestFreeID(g.Members, memberKey)
	g.Members = insertAt(g.Members, int(slot), Member{ID: slot, Client: c.Client})
	g.rebalanceJoin(t.Partitions, c.Unsettled)
	return Result{Group: g, Effects: []Effect{rebalanced(st, t, g)}}
}

func (s *State) leaveGroup(ctx Ctx, c *LeaveConsumerGroup) Result {
	st, t, g, _, code := s.groupFor(ctx, c.Stream, c.Topic, c.Group)
	if code != wire.OK {
		return reject(code)
	}
	i, member := g.memberIndex(c.Client)
	if !member {
		return reject(wire.ConsumerGroupMemberNotFound)
	}
	g.Members = removeAt(g.Members, i)
	g.rebalanceEager(t.Partitions)
	return Result{Group: g, Effects: []Effect{rebalanced(st, t, g)}}
}

// removeMember takes a disconnected client out of every group it is in.
func (s *State) removeMember(ctx Ctx, c *RemoveMember) Result {
	if !s.can(ctx, ActionManageServers, NoResource, NoResource) {
		return reject(wire.Unauthorized)
	}
	var effects []Effect
	for _, st := range s.streams {
		for _, t := range st.Topics {
			for _, g := range t.Groups {
				i, member := g.memberIndex(c.Client)
				if !member {
					continue
				}
				g.Members = removeAt(g.Members, i)
				g.rebalanceEager(t.Partitions)
				effects = append(effects, rebalanced(st, t, g))
			}
		}
	}
	return Result{Effects: effects}
}

func (s *State) completeRevocation(ctx Ctx, c *CompleteRevocation) Result {
	if !s.can(ctx, ActionManageServers, NoResource, NoResource) {
		return reject(wire.Unauthorized)
	}
	st, t, g, _, code := s.findGroupIn(c.Stream, c.Topic, c.Group)
	if code != wire.OK {
		return reject(code)
	}
	if !g.completeMove(c.Partition) {
		return Result{Group: g} // already settled by a later rebalance
	}
	return Result{Group: g, Effects: []Effect{rebalanced(st, t, g)}}
}

func rebalanced(st *Stream, t *Topic, g *ConsumerGroup) Effect {
	return GroupRebalanced{Stream: st.ID, Topic: t.ID, Group: g.ID, Generation: g.Generation}
}
