package replicalink

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/core/node"
)

const rosterTOML = `
[cluster]
enabled = true
name = "three"

[cluster.auth]
enabled = true
shared_secret = "0123456789abcdef0123456789abcdef"
previous_shared_secret = "fedcba9876543210fedcba9876543210"

[cluster.coordinator]
replica_connections_per_peer = 1

[message_bus]
peer_queue_capacity = 300

[[cluster.nodes]]
name = "a"
ip = "127.0.0.1"
replica_id = 0
ports = { tcp = 18090, http = 13000, quic = 18080, websocket = 18092, tcp_replica = 19090 }

[[cluster.nodes]]
name = "b"
ip = "127.0.0.2"
replica_id = 1
ports = { tcp = 18091, http = 13001, quic = 18081, websocket = 18093, tcp_replica = 19091 }

[[cluster.nodes]]
name = "c"
ip = "127.0.0.3"
replica_id = 2
ports = { tcp = 18094, http = 13002, quic = 18082, websocket = 18095, tcp_replica = 19092 }
`

// The replica plane of a roster node comes from the server's config: its
// listen address, its peers, the bounds and the PSKs; a replica id that
// is not in the roster is refused.
func TestFromConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(rosterTOML), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, err := config.Load(config.LoadOptions{Environ: []string{"IGGY_CONFIG_PATH=" + path}, WorkDir: dir, NumCPU: 2})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := FromConfig(c, 1, testIdentity, 1, testConfigLog(), func(node.PeerMessage) {})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != "127.0.0.2:19091" || len(cfg.Peers) != 2 || cfg.Peers[0] != (Peer{0, "127.0.0.1:19090"}) ||
		cfg.Peers[1] != (Peer{2, "127.0.0.3:19092"}) || cfg.QueueCapacity != 300 || cfg.LinksPerPeer != 1 ||
		cfg.ReadBufferSize != 32<<10 || cfg.ReconnectPeriod != 5*time.Second || cfg.Cluster != ClusterID("three") ||
		string(cfg.Secret) != "0123456789abcdef0123456789abcdef" || len(cfg.PreviousSecret) != 32 || cfg.TLS != nil {
		t.Fatalf("%+v", cfg)
	}
	if err := cfg.check(); err != nil {
		t.Fatal(err)
	}
	if _, err := FromConfig(c, 9, testIdentity, 1, testConfigLog(), nil); err == nil || !strings.Contains(err.Error(), "replica id 9") {
		t.Fatalf("replica 9: %v", err)
	}
}
