package e2e

import (
	"testing"
	"time"

	"github.com/iggygo/iggy/wire"
)

// Two members join a group, the server is killed and restarted: their
// sessions come back from the journal with no connection, so their leases run
// out one session timeout (1.2 × heartbeat.interval) after the restart, the
// primary retires them, and a member that joins after the restart holds every
// partition within the timeout plus a small margin. Before leases the dead
// members kept their partitions for good (issue 15: 11 minutes and counting).
// covers CGRP-10, SESS-7
func TestGroupRebalancesAfterRestart(t *testing.T) {
	const interval = 3 * time.Second
	timeout := interval * 6 / 5
	const margin = 1500 * time.Millisecond // a lease sweep (interval/10), a commit, the polls below
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_HEARTBEAT_ENABLED": "true", "IGGY_HEARTBEAT_INTERVAL": "3s"}})
	admin := s.root()
	stream, topic := createStreamTopic(t, admin, "restart", "events", 2)
	g, err := admin.CreateConsumerGroup(stream, topic, "workers")
	if err != nil {
		t.Fatalf("create group: %v", err)
	}
	group := wire.NumericID(g.ID)
	for range 2 {
		if err := s.root().JoinConsumerGroup(stream, topic, group); err != nil {
			t.Fatalf("join: %v", err)
		}
	}
	s.kill()
	s = s.restart()
	restarted := time.Now()
	member := s.root()
	if err := member.JoinConsumerGroup(stream, topic, group); err != nil {
		t.Fatalf("join after restart: %v", err)
	}
	var d wire.ConsumerGroupDetails
	for time.Since(restarted) < timeout+margin {
		var found bool
		d, found, err = member.GetConsumerGroup(stream, topic, group)
		if err != nil || !found {
			t.Fatalf("get group: found %v err %v", found, err)
		}
		if len(d.Members) == 1 && len(d.Members[0].Partitions) == 2 {
			t.Logf("the new member holds both partitions %v after the restart", time.Since(restarted).Round(time.Millisecond))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%v after the restart the group is %+v, want one member holding both partitions", timeout+margin, d.Members)
}

// With clients_table_max = 3, three sessions whose connections closed
// without a logout fill the table: a new login is refused while their leases
// run, and once the leases have run out (1.2 × heartbeat.interval) the
// primary has retired them and logins over TCP and HTTP are admitted again.
// Before leases the table stayed full for good (issue 15).
// covers SESS-7, SESS-30
func TestClientsTableFreedByLeases(t *testing.T) {
	const timeout = 2400 * time.Millisecond // 1.2 × 2 s
	h := startHTTPServer(t, map[string]string{"IGGY_METADATA_CLIENTS_TABLE_MAX": "3",
		"IGGY_HEARTBEAT_ENABLED": "true", "IGGY_HEARTBEAT_INTERVAL": "2s"})
	for range 3 {
		if err := h.root().Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
	}
	closed := time.Now()
	if _, err := h.dial().LoginUser(rootUsername, rootPassword); err == nil {
		if time.Since(closed) < timeout {
			t.Fatal("a fourth session was admitted while three leases ran")
		}
		t.Skip("the machine was too slow to see the table full")
	}
	time.Sleep(timeout + 500*time.Millisecond)
	if _, err := h.dial().LoginUser(rootUsername, rootPassword); err != nil {
		t.Fatalf("TCP login %v after the leases ended: %v", time.Since(closed).Round(time.Millisecond), err)
	}
	h.httpLogin(t, rootUsername, rootPassword)
}
