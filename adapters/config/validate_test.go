package config

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

// Cross-key validation (config.md §9): each case must stop the boot with a
// message naming the key.
// covers ENC-26 (previous_keys), ENC-7 (server key sizes)
func TestValidationRefusals(t *testing.T) {
	key := base64.StdEncoding.EncodeToString(make([]byte, 32))
	k2, k3, k4 := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{2}, 32)),
		base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{3}, 32)), base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{4}, 32))
	cases := []struct {
		env  []string
		want string
	}{
		{[]string{"IGGY_HTTP_JWT_ALGORITHM=RS256"}, "http.jwt.algorithm"},
		{[]string{"IGGY_HTTP_JWT_ACCESS_TOKEN_EXPIRY=server_default"}, "server_default"},
		{[]string{"IGGY_HTTP_METRICS_ENDPOINT=metrics"}, "http.metrics.endpoint"},
		{[]string{"IGGY_HTTP_CORS_ALLOWED_METHODS=[GET, FETCH]"}, "FETCH"},
		{[]string{"IGGY_HTTP_CORS_ALLOWED_ORIGINS=[https://a.example, *]"}, "first entry"},
		{[]string{"IGGY_HTTP_CORS_ALLOW_CREDENTIALS=true"}, "allow_credentials"},
		{[]string{"IGGY_MESSAGE_BUS_MAX_MESSAGE_SIZE=256"}, "message_bus.max_message_size"},
		{[]string{"IGGY_MESSAGE_BUS_MAX_MESSAGE_SIZE=128 MiB"}, "transfer_artifact_bytes_max"},
		{[]string{"IGGY_CLUSTER_REPAIR_CHUNK_MAX=256"}, "peer_queue_capacity"},
		{[]string{"IGGY_WEBSOCKET_MAX_FRAME_SIZE=0"}, "websocket.max_frame_size must be non-zero"},
		{[]string{"IGGY_WEBSOCKET_MAX_FRAME_SIZE=128 MiB"}, "max_frame_size must be at most"},
		{[]string{"IGGY_WEBSOCKET_WRITE_BUFFER_SIZE=1 MiB", "IGGY_WEBSOCKET_MAX_WRITE_BUFFER_SIZE=1 MiB"}, "max_write_buffer_size"},
		{[]string{"IGGY_CONSUMER_GROUP_REBALANCING_TIMEOUT=0s"}, "rebalancing_timeout"},
		{[]string{"IGGY_HEARTBEAT_INTERVAL=0s"}, "heartbeat.interval"},
		{[]string{"IGGY_SYSTEM_SEGMENT_ARCHIVE_EXPIRED=true"}, "archive_expired"},
		{[]string{"IGGY_SYSTEM_RECOVERY_RECREATE_MISSING_STATE=true"}, "recreate_missing_state"},
		{[]string{"IGGY_SYSTEM_MEMORY_POOL_SIZE=100 MiB"}, "memory_pool.size"},
		{[]string{"IGGY_SYSTEM_MEMORY_POOL_BUCKET_CAPACITY=100"}, "bucket_capacity"},
		{[]string{"IGGY_LOGGING_MAX_TOTAL_SIZE=1 MB"}, "max_total_size"},
		{[]string{"IGGY_ENCRYPTION_ENABLED=true"}, "requires encryption.key"},
		{[]string{"IGGY_ENCRYPTION_KEY=" + key, "IGGY_ENCRYPTION_PREVIOUS_KEYS=[" + key + "]"}, "equals encryption.key"},
		{[]string{"IGGY_ENCRYPTION_PREVIOUS_KEYS=[" + k2 + ", " + k3 + ", " + k4 + "]"}, "at most 2 keys"},
		{[]string{"IGGY_ENCRYPTION_KEY=" + base64.StdEncoding.EncodeToString(make([]byte, 31))}, "base64 of 32 bytes"},
		{[]string{"IGGY_ENCRYPTION_KEY=not*base64"}, "base64 of 32 bytes"},
		{[]string{"IGGY_SHARDING_CPU_ALLOCATION=64"}, "available CPUs"},
		{[]string{"IGGY_SHARDING_SHUTDOWN_POLL_INTERVAL=20 s"}, "shutdown_poll_interval"},
		{[]string{"IGGY_QUIC_INITIAL_MTU=1000"}, "quic.initial_mtu"},
		{[]string{"IGGY_TELEMETRY_LOGS_TRANSPORT=udp"}, "telemetry.logs.transport"},
		{[]string{"IGGY_METADATA_JOURNAL_SLOTS=100"}, "journal_slots"},
		{[]string{"IGGY_CLUSTER_HEARTBEAT_TIMEOUT=1s"}, "heartbeat_timeout"},
		{[]string{"IGGY_CLUSTER_SUPERBLOCK_WEDGED_FATAL_TIMEOUT=10s"}, "superblock_wedged_fatal_timeout"},
		{[]string{"IGGY_CLUSTER_TLS_ENABLED=true", "IGGY_CLUSTER_TLS_SELF_SIGNED=true"}, "requires cluster.auth.enabled"},
		{[]string{"IGGY_CLUSTER_AUTH_ENABLED=true", "IGGY_CLUSTER_AUTH_SHARED_SECRET=short"}, "at least 32 bytes"},
		{[]string{"IGGY_EXTERNAL_AUTH_ENABLED=true"}, "external_auth.url"},
		{[]string{"IGGY_CLUSTER_ENABLED=true", "IGGY_CLUSTER_DEFAULT_REPLICATION_FACTOR=3"}, "default_replication_factor"},
		{[]string{"IGGY_CLUSTER_DEFAULT_REPLICATION_FACTOR=33"}, "1..=32"},
		{[]string{"IGGY_CLUSTER_ENABLED=true", "IGGY_CLUSTER_NODES_0_NAME=a", "IGGY_CLUSTER_NODES_0_IP=127.0.0.1",
			"IGGY_CLUSTER_NODES_0_REPLICA_ID=0", "IGGY_CLUSTER_NODES_0_PORTS_TCP=1", "IGGY_CLUSTER_NODES_0_PORTS_TCP_REPLICA=2"},
			"cluster.nodes[0].ports.quic is required"},
		{[]string{"IGGY_CLUSTER_ENABLED=true", "IGGY_HTTP_ENABLED=false", "IGGY_QUIC_ENABLED=false", "IGGY_WEBSOCKET_ENABLED=false",
			"IGGY_CLUSTER_NODES_0_NAME=a", "IGGY_CLUSTER_NODES_0_IP=127.0.0.1", "IGGY_CLUSTER_NODES_0_REPLICA_ID=0",
			"IGGY_CLUSTER_NODES_0_PORTS_TCP=1", "IGGY_CLUSTER_NODES_0_PORTS_TCP_REPLICA=1"}, "also used by"},
	}
	for _, c := range cases {
		_, _, err := load(t, c.env...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.env, err, c.want)
		}
	}
}

// Cases only a file can express: empty strings and partial rosters.
func TestValidationRefusalsFromFile(t *testing.T) {
	cases := []struct{ file, want string }{
		{"[http.tls]\nenabled = true\ncert_file = \"\"\n", "http.tls needs cert_file"},
		{`[cluster]
enabled = true
[[cluster.nodes]]
name = "a"
ip = "10.0.0.1"
replica_id = 0
rack = "r1"
ports = { tcp = 1, quic = 2, http = 3, websocket = 4, tcp_replica = 5 }
[[cluster.nodes]]
name = "a"
ip = "10.0.0.2"
replica_id = 0
ports = { tcp = 1, quic = 2, http = 3, websocket = 4, tcp_replica = 5 }
`, "rack on every node or on none"},
		{"[[http.jwt.trusted_issuers]]\nissuer = \"i\"\naudience = \"a\"\njwks_url = \"\"\nusername = \"u\"\n", "jwks_url must not be empty"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		writeFile(t, dir, "config.toml", c.file)
		_, _, err := Load(LoadOptions{Environ: []string{}, WorkDir: dir})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.file, err, c.want)
		}
	}
}

func TestValidationWarnings(t *testing.T) {
	cfg, warnings := mustLoad(t, "IGGY_CLUSTER_ENABLED=true", "IGGY_PARTITION_TRANSFER_SERVED_CACHE_BYTES_MAX=1 GiB")
	joined := strings.Join(warnings, "\n")
	for _, want := range []string{"node-local", "fewer than 2 transfer artifacts"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", warnings, want)
		}
	}
	if !cfg.Cluster.Enabled {
		t.Error("cluster not enabled")
	}
}

func TestValidHost(t *testing.T) {
	for _, ok := range []string{"localhost", "10.0.0.1", "::1", "node-1.example.com", "a"} {
		if !ValidHost(ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"", "host:80", "example.com.", "-a.example", "a_b", "[::1]"} {
		if ValidHost(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
	for addr, want := range map[string]bool{"0.0.0.0:1": true, "[::]:2": true, ":3": true, "127.0.0.1:4": false, "bad": false} {
		if IsWildcardAddress(addr) != want {
			t.Errorf("IsWildcardAddress(%q) != %v", addr, want)
		}
	}
}

// cluster.coordinator.replica_connections_per_peer defaults to 1 and takes
// 1 up to the node's shard count.
// covers VSR-8
func TestReplicaConnectionsPerPeer(t *testing.T) {
	cfg, _ := mustLoad(t)
	if cfg.Cluster.Coordinator.ReplicaConnectionsPerPeer != 1 {
		t.Fatalf("default %d", cfg.Cluster.Coordinator.ReplicaConnectionsPerPeer)
	}
	for _, c := range []struct {
		shards, links string
		ok            bool
	}{{"2", "2", true}, {"2", "3", false}, {"1", "2", false}, {"2", "0", false}} {
		_, _, err := load(t, "IGGY_SHARDING_CPU_ALLOCATION="+c.shards, "IGGY_CLUSTER_COORDINATOR_REPLICA_CONNECTIONS_PER_PEER="+c.links)
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), "replica_connections_per_peer must be 1..="+c.shards) {
			t.Errorf("%s shards, %s links: %v", c.shards, c.links, err)
		}
	}
}
