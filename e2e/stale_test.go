package e2e

import (
	"testing"
	"time"

	"github.com/iggygo/iggy/wire"
)

// A group member silent past 1.2 × heartbeat.interval is evicted with reason
// 13 and leaves its group; the group's other members are untouched.
// covers SESS-6, CGRP-10
func TestStaleGroupMemberEvicted(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_HEARTBEAT_ENABLED": "true", "IGGY_HEARTBEAT_INTERVAL": "1s"}})
	admin := s.root()
	stream, topic := createStreamTopic(t, admin, "stale", "events", 2)
	g, err := admin.CreateConsumerGroup(stream, topic, "workers")
	if err != nil {
		t.Fatalf("create group: %v", err)
	}
	group := wire.NumericID(g.ID)
	idle := s.root()
	if err := idle.JoinConsumerGroup(stream, topic, group); err != nil {
		t.Fatalf("join: %v", err)
	}
	if err := admin.JoinConsumerGroup(stream, topic, group); err != nil {
		t.Fatalf("join: %v", err)
	}
	deadline := time.Now().Add(4 * time.Second)
	for time.Now().Before(deadline) { // admin stays busy, idle stays silent
		if err := admin.Ping(); err != nil {
			t.Fatalf("ping: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	wantEviction(t, "idle member's next request", idle.Ping(), wire.EvictStaleClient)
	d, found, err := admin.GetConsumerGroup(stream, topic, group)
	if err != nil || !found || len(d.Members) != 1 {
		t.Fatalf("group after eviction: %+v found %v err %v, want one member", d, found, err)
	}
}
