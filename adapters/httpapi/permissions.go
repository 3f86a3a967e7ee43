package httpapi

import (
	"encoding/json"
	"strconv"

	"github.com/iggygo/iggy/wire"
)

// Permissions JSON (http.md 4.2): map keys are numeric ids as strings.
type globalPermsJSON struct {
	ManageServers bool `json:"manage_servers"`
	ReadServers   bool `json:"read_servers"`
	ManageUsers   bool `json:"manage_users"`
	ReadUsers     bool `json:"read_users"`
	ManageStreams bool `json:"manage_streams"`
	ReadStreams   bool `json:"read_streams"`
	ManageTopics  bool `json:"manage_topics"`
	ReadTopics    bool `json:"read_topics"`
	PollMessages  bool `json:"poll_messages"`
	SendMessages  bool `json:"send_messages"`
}

type topicPermsJSON struct {
	ManageTopic  bool `json:"manage_topic"`
	ReadTopic    bool `json:"read_topic"`
	PollMessages bool `json:"poll_messages"`
	SendMessages bool `json:"send_messages"`
}

type streamPermsJSON struct {
	ManageStream bool                      `json:"manage_stream"`
	ReadStream   bool                      `json:"read_stream"`
	ManageTopics bool                      `json:"manage_topics"`
	ReadTopics   bool                      `json:"read_topics"`
	PollMessages bool                      `json:"poll_messages"`
	SendMessages bool                      `json:"send_messages"`
	Topics       map[string]topicPermsJSON `json:"topics"`
}

type permissionsJSON struct {
	Global  globalPermsJSON            `json:"global"`
	Streams map[string]streamPermsJSON `json:"streams"`
}

// permissionsView renders p; nil stays null.
func permissionsView(p *wire.Permissions) *permissionsJSON {
	if p == nil {
		return nil
	}
	out := &permissionsJSON{Global: globalPermsJSON(p.Global)}
	for id, s := range p.Streams {
		if out.Streams == nil {
			out.Streams = map[string]streamPermsJSON{}
		}
		sj := streamPermsJSON{ManageStream: s.ManageStream, ReadStream: s.ReadStream, ManageTopics: s.ManageTopics,
			ReadTopics: s.ReadTopics, PollMessages: s.PollMessages, SendMessages: s.SendMessages}
		for tid, t := range s.Topics {
			if sj.Topics == nil {
				sj.Topics = map[string]topicPermsJSON{}
			}
			sj.Topics[strconv.FormatUint(uint64(tid), 10)] = topicPermsJSON(t)
		}
		out.Streams[strconv.FormatUint(uint64(id), 10)] = sj
	}
	return out
}

// permissionsMember reads an optional permissions member: absent or null is
// none. A malformed object or a non-numeric map key is a plain 422.
func permissionsMember(o object, member string) (*wire.Permissions, *apiError) {
	if !o.present(member) {
		return nil, nil
	}
	var pj permissionsJSON
	if err := json.Unmarshal(o[member], &pj); err != nil {
		return nil, shapeError(member, "expected a permissions object")
	}
	p := &wire.Permissions{Global: wire.GlobalPermissions(pj.Global)}
	for key, s := range pj.Streams {
		id, err := strconv.ParseUint(key, 10, 32)
		if err != nil {
			return nil, shapeError(member, "stream keys must be numeric ids")
		}
		sp := wire.StreamPermissions{ManageStream: s.ManageStream, ReadStream: s.ReadStream,
			ManageTopics: s.ManageTopics, ReadTopics: s.ReadTopics, PollMessages: s.PollMessages,
			SendMessages: s.SendMessages}
		for tkey, t := range s.Topics {
			tid, err := strconv.ParseUint(tkey, 10, 32)
			if err != nil {
				return nil, shapeError(member, "topic keys must be numeric ids")
			}
			if sp.Topics == nil {
				sp.Topics = map[uint32]wire.TopicPermissions{}
			}
			sp.Topics[uint32(tid)] = wire.TopicPermissions(t)
		}
		if p.Streams == nil {
			p.Streams = map[uint32]wire.StreamPermissions{}
		}
		p.Streams[uint32(id)] = sp
	}
	return p, nil
}
