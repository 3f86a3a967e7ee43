package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// bootRefused starts one node of the roster at path with args and wants
// it to exit 2 before serving, its standard error saying want.
func bootRefused(t *testing.T, path string, args []string, want string) {
	t.Helper()
	cfg := serverConfig{dataDir: newDataDir(t), defaultRoot: true, args: args,
		env: map[string]string{"IGGY_CONFIG_PATH": path}}
	s := launch(t, cfg, freeAddr(t))
	if code := s.waitExit(); code == 0 || !strings.Contains(s.stderr.String(), want) {
		t.Errorf("%v: exit %d, stderr %q; want a refusal saying %q", args, code, s.stderr.String(), want)
	}
}

// numberedPorts are n distinct ports from first (never bound: the boot is
// refused before any listener opens).
func numberedPorts(first, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(first + i)
	}
	return out
}

// A node of a replica set boots only as a replica the roster names, and a
// roster of more than 32 replicas refuses to boot.
// covers VSR-13
func TestClusterBootRefusals(t *testing.T) {
	three := writeRoster(t, t.TempDir(), numberedPorts(20000, 3), numberedPorts(21000, 3))
	bootRefused(t, three, nil, "needs --replica-id")
	bootRefused(t, three, []string{"--replica-id", "9"}, "--replica-id 9 names no [[cluster.nodes]] entry")
	big := writeRoster(t, t.TempDir(), numberedPorts(20000, 33), numberedPorts(21000, 33))
	bootRefused(t, big, []string{"--replica-id", "0"}, "cluster.nodes must hold 1..=32 nodes, got 33")
}

// Storage created as one replica of a set refuses to start as another
// replica: it would vote with the first replica's log.
func TestClusterStorageBoundToReplica(t *testing.T) {
	tc := startCluster(t, 3)
	tc.node(0) // root replicated: every node wrote its storage
	tc.nodes[1].stop()
	cfg := tc.nodes[1].cfg
	cfg.args = []string{"--replica-id", "2"}
	s := launch(t, cfg, freeAddr(t))
	if code := s.waitExit(); code == 0 || !strings.Contains(s.stderr.String(), "refusing "+cfg.dataDir) {
		t.Errorf("node 1's storage as replica 2: exit %d, stderr %q", code, s.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(cfg.dataDir, "iggy-replica")); err != nil {
		t.Errorf("binding file: %v", err)
	}
}

// A roster that sets rack on some nodes only stops the boot, naming the
// rule.
// covers PLACE-18
func TestClusterMixedRackRosterRefused(t *testing.T) {
	path := writeRoster(t, t.TempDir(), numberedPorts(20000, 3), numberedPorts(21000, 3))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mixed := strings.Replace(string(b), "replica_id = 0\n", "replica_id = 0\nrack = \"r1\"\n", 1)
	if err := os.WriteFile(path, []byte(mixed), 0o600); err != nil {
		t.Fatal(err)
	}
	bootRefused(t, path, []string{"--replica-id", "0"}, "set rack on every node or on none")
}
