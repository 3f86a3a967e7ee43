package metadata

// RemoveMembers takes clients out of every group as part of the op being
// applied, not as an op of its own: the sessions of a user that op deleted or
// deactivated end with it (SESS-14), on every replica alike.
func (s *State) RemoveMembers(clients []ClientID) []Effect {
	var effects []Effect
	for _, c := range clients {
		r := s.removeMember(Ctx{Op: s.lastOp, UserID: RootUserID}, &RemoveMember{Client: c})
		effects = append(effects, r.Effects...)
	}
	return effects
}
