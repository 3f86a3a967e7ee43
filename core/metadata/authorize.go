package metadata

import "github.com/iggygo/iggy/wire"

// Action is a right a command or a read needs.
type Action uint8

const (
	ActionReadStreams Action = iota + 1
	ActionManageStreams
	ActionReadTopics
	ActionManageTopics
	ActionSendMessages
	ActionPollMessages
	ActionReadUsers
	ActionManageUsers
	ActionReadServers
	ActionManageServers
)

// Authorize reports whether user may perform action on stream and topic
// (NoResource where the action is not about one). Root always may; an
// unknown or inactive user never may.
//
// Implications: manage implies read at every level; read implies poll;
// manage implies send; a grant on a stream covers its topics; a global grant
// covers every stream. So manage_streams covers manage_topics, and
// read_streams covers read_topics.
func (s *State) Authorize(user uint32, action Action, stream, topic uint32) bool {
	if user == RootUserID {
		return true
	}
	u, _, ok := s.userByID(user)
	if !ok || u.Status != UserActive || u.Permissions == nil {
		return false
	}
	return grants(u.Permissions, action, stream, topic)
}

func grants(p *wire.Permissions, action Action, stream, topic uint32) bool {
	g := p.Global
	var sp wire.StreamPermissions
	var tp wire.TopicPermissions
	if stream != NoResource {
		sp = p.Streams[stream]
		if topic != NoResource {
			tp = sp.Topics[topic]
		}
	}
	manageStream := g.ManageStreams || sp.ManageStream
	readStream := manageStream || g.ReadStreams || sp.ReadStream
	manageTopic := manageStream || g.ManageTopics || sp.ManageTopics || tp.ManageTopic
	readTopic := manageTopic || readStream || g.ReadTopics || sp.ReadTopics || tp.ReadTopic
	switch action {
	case ActionReadStreams:
		return readStream
	case ActionManageStreams:
		return manageStream
	case ActionReadTopics:
		return readTopic
	case ActionManageTopics:
		return manageTopic
	case ActionPollMessages:
		return readTopic || g.PollMessages || sp.PollMessages || tp.PollMessages
	case ActionSendMessages:
		return manageTopic || g.SendMessages || sp.SendMessages || tp.SendMessages
	case ActionReadUsers:
		return g.ManageUsers || g.ReadUsers
	case ActionManageUsers:
		return g.ManageUsers
	case ActionReadServers:
		return g.ManageServers || g.ReadServers
	case ActionManageServers:
		return g.ManageServers
	}
	return false
}
