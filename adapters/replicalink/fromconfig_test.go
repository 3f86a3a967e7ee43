package replicalink

import (
	"fmt"
	"net"
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

// twoNodeTOML is a roster of two nodes on the given replica ports with
// links links per peer.
func twoNodeTOML(ports [2]int, links int) string {
	return fmt.Sprintf(`
[cluster]
enabled = true
name = "two"

[cluster.coordinator]
replica_connections_per_peer = %d

[[cluster.nodes]]
name = "a"
ip = "127.0.0.1"
replica_id = 0
ports = { tcp = 18090, http = 13000, quic = 18080, websocket = 18092, tcp_replica = %d }

[[cluster.nodes]]
name = "b"
ip = "127.0.0.1"
replica_id = 1
ports = { tcp = 18091, http = 13001, quic = 18081, websocket = 18093, tcp_replica = %d }
`, links, ports[0], ports[1])
}

// startFromFile loads the config file at path as a server's boot does and
// runs replica self's plane from it on ln.
func startFromFile(t *testing.T, path string, self uint8, ln net.Listener) *tnode {
	t.Helper()
	c, _, err := config.Load(config.LoadOptions{Environ: []string{"IGGY_CONFIG_PATH=" + path}, WorkDir: filepath.Dir(path), NumCPU: 4})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := FromConfig(c, self, testIdentity, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Log = nil // start logs to the node's buffer
	return start(t, cfg, ln)
}

// covers VSR-12
// replica_connections_per_peer is read once, when a node's replica plane
// starts (the server has no configuration reload: SIGHUP is not handled,
// and the file is read at boot only). Two nodes boot from a file with 2
// links per peer; the file then says 3. The running node keeps its 2
// links, and when the other node restarts from the changed file, the
// running node's hellos (it dials peers of higher ids) still carry 2,
// which the restarted node refuses as a count that differs from its own 3
// (VSR-10): the new value reached only the node that booted after the
// change.
func TestLinkCountReadOnlyAtBoot(t *testing.T) {
	var lns [2]net.Listener
	var ports [2]int
	for i := range lns {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns[i], ports[i] = ln, ln.Addr().(*net.TCPAddr).Port
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(twoNodeTOML(ports, 2)), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startFromFile(t, path, 0, lns[0])
	b := startFromFile(t, path, 1, lns[1])
	waitLinked(t, a, 1)
	waitLinked(t, b, 0)
	if err := os.WriteFile(path, []byte(twoNodeTOML(ports, 3)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := b.bus.Close(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", b.addr)
	if err != nil {
		t.Fatal(err)
	}
	b = startFromFile(t, path, 1, ln)
	if b.cfg.LinksPerPeer != 3 {
		t.Fatalf("the restarted node read %d links per peer", b.cfg.LinksPerPeer)
	}
	waitFor(t, func() bool { return b.log.has("level=WARN", "replica_connections_per_peer 2 differs from ours 3") },
		"the running node's hello offering its boot value, 2 links")
	if a.bus.Linked(1) != 0 || b.bus.Linked(0) != 0 {
		t.Fatalf("nodes of 2 and 3 links per peer linked (%d, %d)", a.bus.Linked(1), b.bus.Linked(0))
	}
}
