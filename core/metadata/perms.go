package metadata

import "github.com/iggygo/iggy/wire"

// clonePermissions deep-copies p so the state never shares maps with a
// command, and drops empty maps so equal rights have one representation.
func clonePermissions(p *wire.Permissions) *wire.Permissions {
	if p == nil {
		return nil
	}
	c := normalizePermissions(*p)
	return &c
}

func normalizePermissions(p wire.Permissions) wire.Permissions {
	out := wire.Permissions{Global: p.Global}
	for id, s := range p.Streams {
		cs := s
		cs.Topics = nil
		for tid, t := range s.Topics {
			if cs.Topics == nil {
				cs.Topics = map[uint32]wire.TopicPermissions{}
			}
			cs.Topics[tid] = t
		}
		if out.Streams == nil {
			out.Streams = map[uint32]wire.StreamPermissions{}
		}
		out.Streams[id] = cs
	}
	return out
}

// rootPermissions are the rights root is created with (root is never
// refused anyway; these make GetUser show it).
func rootPermissions() *wire.Permissions {
	return &wire.Permissions{Global: wire.GlobalPermissions{
		ManageServers: true, ReadServers: true, ManageUsers: true, ReadUsers: true,
		ManageStreams: true, ReadStreams: true, ManageTopics: true, ReadTopics: true,
		PollMessages: true, SendMessages: true,
	}}
}

// pruneStream removes every grant on stream from p; it reports a change.
func pruneStream(p *wire.Permissions, stream uint32) bool {
	if p == nil {
		return false
	}
	if _, ok := p.Streams[stream]; !ok {
		return false
	}
	delete(p.Streams, stream)
	if len(p.Streams) == 0 {
		p.Streams = nil
	}
	return true
}

// pruneTopic removes every grant on one topic from p; it reports a change.
func pruneTopic(p *wire.Permissions, stream, topic uint32) bool {
	if p == nil {
		return false
	}
	s, ok := p.Streams[stream]
	if !ok {
		return false
	}
	if _, ok := s.Topics[topic]; !ok {
		return false
	}
	delete(s.Topics, topic)
	if len(s.Topics) == 0 {
		s.Topics = nil
		p.Streams[stream] = s
	}
	return true
}
