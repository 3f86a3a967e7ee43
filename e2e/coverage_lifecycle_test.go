package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// sendN sends n small messages to one partition.
func sendN(t *testing.T, c *client.Client, stream, topic wire.Identifier, partition uint32, n int) {
	t.Helper()
	msgs := make([]client.Message, n)
	for i := range msgs {
		msgs[i] = client.Message{ID: messageID(9, uint64(i)+1), Payload: []byte("lifecycle")}
	}
	p := wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: partition}
	if _, err := c.SendMessages(stream, topic, p, msgs); err != nil {
		t.Fatalf("send: %v", err)
	}
}

// topicDirs lists the topic directories of the data directory.
func topicDirs(t *testing.T, dataDir string) []string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(dataDir, "streams", "*", "topics", "*"))
	return dirs
}

// gone waits a little for path to disappear: the delete's reply may come
// before the files are unlinked.
func gone(path string) bool {
	deadline := time.Now().Add(2 * time.Second)
	for {
		if _, err := os.Stat(path); os.IsNotExist(err) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Deleting partitions removes their directories, and partitions added again
// start empty. Deleting a topic removes its directory; recreating it (same
// stream, same name) starts with no messages. Deleting the stream removes
// its directory.
// covers STOR-31
func TestCovDeleteRemovesDirectories(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	c := s.root()
	stream, topic := createStreamTopic(t, c, "life", "t", 2)
	sendN(t, c, stream, topic, 0, 5)
	sendN(t, c, stream, topic, 1, 3)
	dirs := topicDirs(t, s.cfg.dataDir)
	if len(dirs) != 1 {
		t.Fatalf("topic directories %v, want one", dirs)
	}
	part := filepath.Join(dirs[0], "partitions", "1")
	if _, err := os.Stat(part); err != nil {
		t.Fatalf("partition 1 directory: %v", err)
	}
	if err := c.DeletePartitions(stream, topic, 1); err != nil {
		t.Fatalf("delete partitions: %v", err)
	}
	if !gone(part) {
		t.Errorf("partition directory %s still there after the delete; holds %v", part, logFiles(t, part))
	}
	if err := c.CreatePartitions(stream, topic, 1); err != nil {
		t.Fatalf("add partition: %v", err)
	}
	if got := pollAll(t, c, stream, topic, 1); len(got) != 0 {
		t.Errorf("re-added partition 1 holds %d messages", len(got))
	}

	if err := c.DeleteTopic(stream, topic); err != nil {
		t.Fatalf("delete topic: %v", err)
	}
	topicGone := gone(dirs[0])
	d, err := c.CreateTopic(stream, "t", 2, nil)
	if err != nil {
		t.Fatalf("recreate: %v", err)
	}
	topic = wire.NumericID(d.Topic.ID)
	for p := uint32(0); p < 2; p++ {
		if got := pollAll(t, c, stream, topic, p); len(got) != 0 {
			t.Errorf("recreated topic: partition %d holds %d messages", p, len(got))
		}
	}
	if !topicGone {
		t.Errorf("topic directory %s still there after the delete", dirs[0])
	}
	if err := c.DeleteStream(stream); err != nil {
		t.Fatalf("delete stream: %v", err)
	}
	if streamDir := filepath.Dir(filepath.Dir(dirs[0])); !gone(streamDir) {
		t.Errorf("stream directory %s still there after the delete", streamDir)
	}
}

// Any activity the server observes renews a session's lease: a consumer-group
// member that keeps sending requests (pings included) stays well past the
// session timeout (1.2 × heartbeat.interval), while a silent one is retired.
// covers SESS-5
func TestCovActivityRenewsLease(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_HEARTBEAT_ENABLED": "true", "IGGY_HEARTBEAT_INTERVAL": "1s"}})
	busy := s.root()
	stream, topic := createStreamTopic(t, busy, "lease", "t", 2)
	g, err := busy.CreateConsumerGroup(stream, topic, "g")
	if err != nil {
		t.Fatal(err)
	}
	group := wire.NumericID(g.ID)
	silent := s.root()
	for _, c := range []*client.Client{busy, silent} {
		if err := c.JoinConsumerGroup(stream, topic, group); err != nil {
			t.Fatalf("join: %v", err)
		}
	}
	deadline := time.Now().Add(4 * time.Second) // more than three session timeouts
	for i := 0; time.Now().Before(deadline); i++ {
		var err error
		if i%2 == 0 {
			err = busy.Ping()
		} else {
			_, err = busy.GetStreams()
		}
		if err != nil {
			t.Fatalf("busy member's request %d: %v", i, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	d, found, err := busy.GetConsumerGroup(stream, topic, group)
	if err != nil || !found || len(d.Members) != 1 {
		t.Fatalf("group: %+v found %v err %v, want the busy member alone", d, found, err)
	}
	if _, member, err := busy.SyncConsumerGroup(stream, topic, group); err != nil || !member {
		t.Errorf("busy member lost its membership: member %v err %v", member, err)
	}
}

// metadata.clients_table_max bounds the sessions: while the table is full a
// new login is refused; an explicit logout retires its session and frees the
// slot for the next login.
// covers SESS-8, SESS-30
func TestCovClientsTableMax(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_METADATA_CLIENTS_TABLE_MAX": "2"}})
	first, _ := s.root(), s.root()
	if _, err := s.dial().LoginUser(rootUsername, rootPassword); err == nil {
		t.Fatal("a third session was admitted to a table of two")
	}
	if err := first.Logout(); err != nil {
		t.Fatalf("logout: %v", err)
	}
	if _, err := s.dial().LoginUser(rootUsername, rootPassword); err != nil {
		t.Fatalf("login after a logout freed a slot: %v", err)
	}
}

// The diagnostic snapshot carries the raw server logs (the log lines the
// server wrote) and host diagnostics (the process list, resource usage).
// covers OPS-9
func TestCovSnapshotCarriesLogs(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	parts := snapshotAll(t, s.root())
	if !strings.Contains(parts["server_logs.txt"], listeningMarker) {
		t.Errorf("server_logs.txt lacks the server's own log lines:\n%.500s", parts["server_logs.txt"])
	}
	if !strings.Contains(parts["process_list.txt"], "iggy-server") {
		t.Errorf("process_list.txt does not list the server:\n%.500s", parts["process_list.txt"])
	}
}
