package e2e

import (
	"net"
	"strconv"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// Streams, topics, partitions and segments through the client API, plus
// the system reads.
// covers TRAN-1, RES-26, RES-29, RES-44, SESS-38, OPS-1
func TestResourceAdministration(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "admin-stream", "admin-topic", 2)

	d, found, err := c.GetStream(wire.NamedID("admin-stream"))
	if err != nil || !found || d.Stream.TopicsCount != 1 || len(d.Topics) != 1 || d.Topics[0].Name != "admin-topic" {
		t.Fatalf("GetStream by name: %+v found %v err %v", d, found, err)
	}
	topics, err := c.GetTopics(stream)
	if err != nil || len(topics) != 1 {
		t.Fatalf("GetTopics: %+v %v", topics, err)
	}
	part0 := wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: 0}
	if _, err := c.SendMessages(stream, topic, part0, []client.Message{{ID: messageID(0xA0, 1), Payload: []byte("kept")}}); err != nil {
		t.Fatalf("send: %v", err)
	}

	if err := c.CreatePartitions(stream, topic, 2); err != nil {
		t.Fatalf("create partitions: %v", err)
	}
	checkPartitions(t, c, stream, topic, 4)
	if err := c.DeletePartitions(stream, topic, 1); err != nil {
		t.Fatalf("delete partitions: %v", err)
	}
	checkPartitions(t, c, stream, topic, 3)
	if got := pollAll(t, c, stream, topic, 0); len(got) != 1 || string(got[0].Payload) != "kept" {
		t.Fatalf("partition 0 after resizing: %+v", got)
	}
	if err := c.DeleteSegments(stream, topic, 0, 1); err != nil {
		t.Fatalf("delete segments (nothing sealed): %v", err)
	}

	stats, err := c.GetStats()
	if err != nil || stats.StreamsCount != 1 || stats.TopicsCount != 1 || stats.PartitionsCount != 3 || stats.MessagesCount != 1 {
		t.Errorf("stats: %+v err %v", stats, err)
	}
	me, err := c.GetMe()
	if err != nil || me.UserID != 0 || me.Transport != wire.ClientTransportTCP {
		t.Errorf("GetMe: %+v err %v", me, err)
	}
	meta, err := c.GetClusterMetadata()
	_, port, _ := net.SplitHostPort(s.addr)
	if err != nil || len(meta.Nodes) != 1 || strconv.Itoa(int(meta.Nodes[0].TCPPort)) != port {
		t.Errorf("cluster metadata: %+v err %v (port %s)", meta, err, port)
	}

	if err := c.DeleteTopic(stream, topic); err != nil {
		t.Fatalf("delete topic: %v", err)
	}
	if err := c.DeleteStream(stream); err != nil {
		t.Fatalf("delete stream: %v", err)
	}
	if streams, err := c.GetStreams(); err != nil || len(streams) != 0 {
		t.Fatalf("streams after delete: %+v %v", streams, err)
	}
}

func checkPartitions(t *testing.T, c *client.Client, stream, topic wire.Identifier, want int) {
	t.Helper()
	d, found, err := c.GetTopic(stream, topic)
	if err != nil || !found || int(d.Topic.PartitionsCount) != want || len(d.Partitions) != want {
		t.Fatalf("topic: %d partitions (%d records), found %v err %v; want %d",
			d.Topic.PartitionsCount, len(d.Partitions), found, err, want)
	}
}

// Users and personal access tokens through the client API.
// covers AUTH-11, SESS-10, SESS-11
func TestUsersAndTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	root := s.root()
	perms := &wire.Permissions{Global: wire.GlobalPermissions{ReadStreams: true}}
	bob, err := root.CreateUser("bob", "bob-pass-1", wire.UserStatusActive, perms)
	if err != nil || bob.Username != "bob" || bob.Permissions == nil || !bob.Permissions.Global.ReadStreams {
		t.Fatalf("create user: %+v %v", bob, err)
	}
	_, err = root.CreateUser("bob", "other-pass", wire.UserStatusActive, nil)
	wantCode(t, "duplicate username", err, wire.UserAlreadyExists)
	got, found, err := root.GetUser(wire.NamedID("bob"))
	if err != nil || !found || got.ID != bob.ID || got.Permissions == nil || !got.Permissions.Global.ReadStreams {
		t.Fatalf("get user: %+v found %v err %v", got, found, err)
	}
	users, err := root.GetUsers()
	if err != nil || len(users) != 2 {
		t.Fatalf("users: %+v %v", users, err)
	}

	bobConn := s.login("bob", "bob-pass-1")
	if err := bobConn.ChangePassword(wire.NumericID(bob.ID), "bob-pass-1", "bob-pass-2"); err != nil {
		t.Fatalf("change own password: %v", err)
	}
	if err := bobConn.Ping(); err != nil {
		t.Fatalf("session after a password change: %v", err)
	}
	_, err = s.dial().LoginUser("bob", "bob-pass-1")
	wantEviction(t, "old password", err, wire.EvictInvalidCredentials)
	s.login("bob", "bob-pass-2")

	token, err := root.CreatePersonalAccessToken("ci", wire.PATExpiryNever)
	if err != nil || token == "" {
		t.Fatalf("create token: %q %v", token, err)
	}
	_, err = root.CreatePersonalAccessToken("ci", wire.PATExpiryNever)
	wantCode(t, "duplicate token name", err, wire.PersonalAccessTokenAlreadyExists)
	tokens, err := root.GetPersonalAccessTokens()
	if err != nil || len(tokens) != 1 || tokens[0].Name != "ci" {
		t.Fatalf("tokens: %+v %v", tokens, err)
	}
	patConn := s.dial()
	info, err := patConn.LoginWithToken(token)
	if err != nil || info.UserID != 0 {
		t.Fatalf("token login: %+v %v", info, err)
	}
	if err := root.DeletePersonalAccessToken("ci"); err != nil {
		t.Fatalf("delete token: %v", err)
	}
	if err := patConn.Ping(); err != nil {
		t.Fatalf("token session after revocation: %v", err)
	}
	_, err = s.dial().LoginWithToken(token)
	wantEviction(t, "revoked token", err, wire.EvictInvalidToken)

	if err := root.DeleteUser(wire.NumericID(bob.ID)); err != nil {
		t.Fatalf("delete user: %v", err)
	}
	wantCode(t, "delete root", root.DeleteUser(wire.NumericID(0)), wire.CannotDeleteUser)
	if _, found, err := root.GetUser(wire.NamedID("bob")); err != nil || found {
		t.Fatalf("deleted user still found (%v) err %v", found, err)
	}
}

// Consumer groups: create, list, join, leave, delete.
// covers CGRP-1
func TestConsumerGroups(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "groups", "work", 3)
	g, err := c.CreateConsumerGroup(stream, topic, "workers")
	if err != nil || g.Name != "workers" || g.MembersCount != 0 || g.PartitionsCount != 3 {
		t.Fatalf("create group: %+v %v", g, err)
	}
	_, err = c.CreateConsumerGroup(stream, topic, "workers")
	wantCode(t, "duplicate group name", err, wire.ConsumerGroupNameAlreadyExists)
	groups, err := c.GetConsumerGroups(stream, topic)
	if err != nil || len(groups) != 1 || groups[0].ID != g.ID {
		t.Fatalf("groups: %+v %v", groups, err)
	}
	group := wire.NumericID(g.ID)
	if err := c.JoinConsumerGroup(stream, topic, group); err != nil {
		t.Fatalf("join: %v", err)
	}
	d, found, err := c.GetConsumerGroup(stream, topic, group)
	if err != nil || !found || len(d.Members) != 1 || len(d.Members[0].Partitions) != 3 {
		t.Fatalf("group after join: %+v found %v err %v", d, found, err)
	}
	a, member, err := c.SyncConsumerGroup(stream, topic, group)
	if err != nil || !member || len(a.Partitions) != 3 {
		t.Fatalf("sync: %+v member %v err %v", a, member, err)
	}
	if err := c.LeaveConsumerGroup(stream, topic, group); err != nil {
		t.Fatalf("leave: %v", err)
	}
	if d, _, err := c.GetConsumerGroup(stream, topic, group); err != nil || len(d.Members) != 0 {
		t.Fatalf("group after leave: %+v err %v", d, err)
	}
	if err := c.DeleteConsumerGroup(stream, topic, group); err != nil {
		t.Fatalf("delete group: %v", err)
	}
	if _, found, err := c.GetConsumerGroup(stream, topic, group); err != nil || found {
		t.Fatalf("deleted group found %v err %v", found, err)
	}
	wantCode(t, "delete a missing group", c.DeleteConsumerGroup(stream, topic, group), wire.ConsumerGroupIdNotFound)
}

// Offsets: store, read, delete; a stored offset past the end is refused;
// a logged-out connection can log in again.
// covers CGRP-1, AUTH-10
func TestOffsetsAndLogout(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "offsets", "t", 1)
	msgs := make([]client.Message, 10)
	for i := range msgs {
		msgs[i] = client.Message{ID: messageID(0xB0, uint64(i)), Payload: []byte{byte(i)}}
	}
	part := wire.Partitioning{Kind: wire.PartitioningPartitionID}
	if _, err := c.SendMessages(stream, topic, part, msgs); err != nil {
		t.Fatalf("send: %v", err)
	}
	consumer := client.Consumer(3)
	if _, found, err := c.GetOffset(consumer, stream, topic, 0); err != nil || found {
		t.Fatalf("offset before store: found %v err %v", found, err)
	}
	wantCode(t, "store past the end", c.StoreOffset(consumer, stream, topic, 0, 10), wire.InvalidOffset)
	if err := c.StoreOffset(consumer, stream, topic, 0, 4); err != nil {
		t.Fatalf("store: %v", err)
	}
	if o, found, err := c.GetOffset(consumer, stream, topic, 0); err != nil || !found || o.StoredOffset != 4 || o.CurrentOffset != 9 {
		t.Fatalf("offset: %+v found %v err %v", o, found, err)
	}
	if err := c.DeleteOffset(consumer, stream, topic, 0); err != nil {
		t.Fatalf("delete offset: %v", err)
	}
	wantCode(t, "delete a missing offset", c.DeleteOffset(consumer, stream, topic, 0), wire.ConsumerOffsetNotFound)

	if err := c.Logout(); err != nil {
		t.Fatalf("logout: %v", err)
	}
	_, err := c.GetStreams()
	wantCode(t, "read after logout", err, wire.Unauthenticated)
	if _, err := c.LoginUser(rootUsername, rootPassword); err != nil {
		t.Fatalf("login again on the same connection: %v", err)
	}
	if streams, err := c.GetStreams(); err != nil || len(streams) != 1 {
		t.Fatalf("streams after re-login: %+v %v", streams, err)
	}
}
