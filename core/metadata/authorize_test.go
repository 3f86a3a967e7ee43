package metadata

import (
	"testing"

	"github.com/iggygo/iggy/wire"
)

// TestPermissionMatrix checks every action against grants at each level.
// Stream 1 / topic 2 is the target; stream 3 and topic 4 are elsewhere.
func TestPermissionMatrix(t *testing.T) {
	type grant struct {
		name string
		p    wire.Permissions
	}
	onStream := func(sp wire.StreamPermissions) wire.Permissions {
		return wire.Permissions{Streams: map[uint32]wire.StreamPermissions{1: sp}}
	}
	onTopic := func(tp wire.TopicPermissions) wire.Permissions {
		return onStream(wire.StreamPermissions{Topics: map[uint32]wire.TopicPermissions{2: tp}})
	}
	G := func(g wire.GlobalPermissions) wire.Permissions { return wire.Permissions{Global: g} }
	// Columns: ReadStreams, ManageStreams, ReadTopics, ManageTopics, Send, Poll,
	// ReadUsers, ManageUsers, ReadServers, ManageServers (on stream 1, topic 2).
	cases := []struct {
		grant
		want string
	}{
		{grant{"none", wire.Permissions{}}, "----------"},
		{grant{"g.manage_servers", G(wire.GlobalPermissions{ManageServers: true})}, "--------RM"},
		{grant{"g.read_servers", G(wire.GlobalPermissions{ReadServers: true})}, "--------R-"},
		{grant{"g.manage_users", G(wire.GlobalPermissions{ManageUsers: true})}, "------RM--"},
		{grant{"g.read_users", G(wire.GlobalPermissions{ReadUsers: true})}, "------R---"},
		{grant{"g.manage_streams", G(wire.GlobalPermissions{ManageStreams: true})}, "RMRMSP----"},
		{grant{"g.read_streams", G(wire.GlobalPermissions{ReadStreams: true})}, "R-R--P----"},
		{grant{"g.manage_topics", G(wire.GlobalPermissions{ManageTopics: true})}, "--RMSP----"},
		{grant{"g.read_topics", G(wire.GlobalPermissions{ReadTopics: true})}, "--R--P----"},
		{grant{"g.poll", G(wire.GlobalPermissions{PollMessages: true})}, "-----P----"},
		{grant{"g.send", G(wire.GlobalPermissions{SendMessages: true})}, "----S-----"},
		{grant{"s.manage_stream", onStream(wire.StreamPermissions{ManageStream: true})}, "RMRMSP----"},
		{grant{"s.read_stream", onStream(wire.StreamPermissions{ReadStream: true})}, "R-R--P----"},
		{grant{"s.manage_topics", onStream(wire.StreamPermissions{ManageTopics: true})}, "--RMSP----"},
		{grant{"s.read_topics", onStream(wire.StreamPermissions{ReadTopics: true})}, "--R--P----"},
		{grant{"s.poll", onStream(wire.StreamPermissions{PollMessages: true})}, "-----P----"},
		{grant{"s.send", onStream(wire.StreamPermissions{SendMessages: true})}, "----S-----"},
		{grant{"t.manage_topic", onTopic(wire.TopicPermissions{ManageTopic: true})}, "--RMSP----"},
		{grant{"t.read_topic", onTopic(wire.TopicPermissions{ReadTopic: true})}, "--R--P----"},
		{grant{"t.poll", onTopic(wire.TopicPermissions{PollMessages: true})}, "-----P----"},
		{grant{"t.send", onTopic(wire.TopicPermissions{SendMessages: true})}, "----S-----"},
	}
	actions := []Action{ActionReadStreams, ActionManageStreams, ActionReadTopics, ActionManageTopics,
		ActionSendMessages, ActionPollMessages, ActionReadUsers, ActionManageUsers, ActionReadServers, ActionManageServers}
	h := newHarness(t)
	for _, c := range cases {
		p := c.p
		u := h.user("u-"+c.name, &p)
		got := []byte("----------")
		for i, a := range actions {
			if h.s.Authorize(u, a, 1, 2) {
				got[i] = c.want[i]
				if c.want[i] == '-' {
					got[i] = '!'
				}
			}
		}
		if string(got) != c.want {
			t.Errorf("%s: got %s want %s", c.name, got, c.want)
		}
		// Nothing a stream or topic grant gives reaches another stream or topic.
		for _, a := range actions {
			if c.name[0] != 'g' && (h.s.Authorize(u, a, 3, 2) || c.name[0] == 't' && h.s.Authorize(u, a, 1, 4)) {
				t.Errorf("%s: action %d leaks to another resource", c.name, a)
			}
		}
	}
}

func TestAuthorizeSpecialUsers(t *testing.T) {
	h := newHarness(t)
	for a := ActionReadStreams; a <= ActionManageServers; a++ {
		if !h.s.Authorize(RootUserID, a, 5, 6) {
			t.Fatalf("root refused action %d", a)
		}
		if h.s.Authorize(99, a, 5, 6) {
			t.Fatalf("unknown user allowed action %d", a)
		}
	}
	all := rootPermissions()
	u := h.user("inactive", all)
	h.ok(RootUserID, &UpdateUser{User: num(u), Status: UserInactive})
	if h.s.Authorize(u, ActionReadStreams, NoResource, NoResource) {
		t.Fatal("inactive user allowed")
	}
	// A stream grant never allows an action that is not about that stream.
	s := h.user("streamer", &wire.Permissions{Streams: map[uint32]wire.StreamPermissions{0: {ManageStream: true}}})
	if h.s.Authorize(s, ActionManageStreams, NoResource, NoResource) {
		t.Fatal("stream grant allowed creating a stream")
	}
	if !h.s.Authorize(s, ActionManageTopics, 0, NoResource) {
		t.Fatal("manage_stream does not allow creating its topics")
	}
}

// TestCommandsCheckRights applies commands as users without and with the right.
func TestCommandsCheckRights(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	h.topic(s, "t", 1)
	nobody := h.user("nobody", nil)
	streamMgr := h.user("smgr", &wire.Permissions{Streams: map[uint32]wire.StreamPermissions{s: {ManageStream: true}}})
	topicMgr := h.user("tmgr", &wire.Permissions{Streams: map[uint32]wire.StreamPermissions{
		s: {Topics: map[uint32]wire.TopicPermissions{0: {ManageTopic: true}}}}})
	cmds := []struct {
		cmd     Command
		allowed uint32
	}{
		{&UpdateStream{Stream: num(s), Name: "s"}, streamMgr},
		{&PurgeStream{Stream: num(s)}, streamMgr},
		{newTopic(num(s), "new", 1), streamMgr},
		{&UpdateTopic{Stream: num(s), Topic: num(0), Name: "t"}, topicMgr},
		{&PurgeTopic{Stream: num(s), Topic: num(0)}, topicMgr},
		{&CreatePartitions{Stream: num(s), Topic: num(0), Count: 1}, topicMgr},
		{&DeletePartitions{Stream: num(s), Topic: num(0), Count: 1}, topicMgr},
		{&TruncatePartition{Stream: num(s), Topic: num(0), Partition: 0}, topicMgr},
		{&CreateConsumerGroup{Stream: num(s), Topic: num(0), Name: "g"}, topicMgr},
		{&DeleteTopic{Stream: num(s), Topic: num(0)}, topicMgr},
	}
	for _, c := range cmds {
		h.code(nobody, c.cmd, wire.Unauthorized)
		h.ok(c.allowed, c.cmd)
	}
	h.code(nobody, &CreateStream{Name: "x"}, wire.Unauthorized)
	h.code(streamMgr, &CreateStream{Name: "x"}, wire.Unauthorized)
	h.code(nobody, &DeleteStream{Stream: num(s)}, wire.Unauthorized)
	h.ok(streamMgr, &DeleteStream{Stream: num(s)})
}
