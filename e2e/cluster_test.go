package e2e

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// Bounds of the replica-set tests.
const (
	clusterSettleTimeout = 20 * time.Second // root replicated, a view established, a write seen everywhere
	clusterPollPeriod    = 50 * time.Millisecond
)

// testCluster is a replica set of real iggy-server processes on loopback,
// from one generated roster: every listener of every node on a free port.
type testCluster struct {
	t     *testing.T
	nodes []*server
	addrs []string // client TCP addresses by replica id
}

// startCluster starts n nodes from one roster with the development root
// credentials on every node but those of withoutRoot, and waits until
// each serves TCP.
func startCluster(t *testing.T, n int, withoutRoot ...int) *testCluster {
	t.Helper()
	return startClusterWith(t, n, nil, nil, withoutRoot...)
}

// startClusterEnv is startCluster with further variables for every node.
func startClusterEnv(t *testing.T, n int, env map[string]string, withoutRoot ...int) *testCluster {
	t.Helper()
	return startClusterWith(t, n, env, nil, withoutRoot...)
}

// startClusterOf is startCluster with node i running bins[i] when set.
func startClusterOf(t *testing.T, n int, bins map[int]string, withoutRoot ...int) *testCluster {
	t.Helper()
	return startClusterWith(t, n, nil, bins, withoutRoot...)
}

// startClusterWith starts n nodes, each with env added to its variables and
// running bins[i] when set.
func startClusterWith(t *testing.T, n int, env map[string]string, bins map[int]string, withoutRoot ...int) *testCluster {
	t.Helper()
	dir := t.TempDir()
	tc := &testCluster{t: t}
	var replicaPorts []string
	free := distinctFreeAddrs(t, 2*n)
	for i := range n {
		tc.addrs = append(tc.addrs, free[i])
		replicaPorts = append(replicaPorts, portOf(t, free[n+i]))
	}
	tcpPorts := make([]string, n)
	for i, a := range tc.addrs {
		tcpPorts[i] = portOf(t, a)
	}
	path := writeRoster(t, dir, tcpPorts, replicaPorts)
	for i := range n {
		cfg := serverConfig{dataDir: filepath.Join(dir, fmt.Sprintf("node-%d", i), "data"), defaultRoot: !slices.Contains(withoutRoot, i),
			args: []string{"--replica-id", strconv.Itoa(i)}, env: map[string]string{"IGGY_CONFIG_PATH": path}, bin: bins[i]}
		for k, v := range env {
			cfg.env[k] = v
		}
		if err := os.MkdirAll(filepath.Dir(cfg.dataDir), 0o700); err != nil {
			t.Fatal(err)
		}
		tc.nodes = append(tc.nodes, launch(t, cfg, tc.addrs[i]))
	}
	for _, s := range tc.nodes {
		s.waitReady()
	}
	return tc
}

// distinctFreeAddrs picks n free loopback addresses, all different: each
// listener stays open until all are picked (freeAddr one after another may
// hand out a port it just released, which the roster refuses as a clash).
func distinctFreeAddrs(t *testing.T, n int) []string {
	t.Helper()
	var addrs []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("pick a free port: %v", err)
		}
		defer l.Close()
		addrs = append(addrs, l.Addr().String())
	}
	return addrs
}

// writeRoster writes a config file of a replica set on 127.0.0.1 whose
// node i has the tcp and tcp_replica ports given, and returns its path.
func writeRoster(t *testing.T, dir string, tcpPorts, replicaPorts []string) string {
	t.Helper()
	var roster strings.Builder
	roster.WriteString("[cluster]\nenabled = true\nname = \"e2e-cluster\"\n")
	for i := range tcpPorts {
		fmt.Fprintf(&roster, "\n[[cluster.nodes]]\nname = \"node-%d\"\nip = \"127.0.0.1\"\nreplica_id = %d\nports = { tcp = %s, tcp_replica = %s }\n",
			i, i, tcpPorts[i], replicaPorts[i])
	}
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(roster.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func portOf(t *testing.T, addr string) string {
	t.Helper()
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		t.Fatalf("address %q without a port", addr)
	}
	return addr[i+1:]
}

// client is a routing client of the set, trying node first.
func (tc *testCluster) client() *client.Cluster {
	k := client.NewCluster(tc.addrs, rootUsername, rootPassword, client.Options{RequestTimeout: requestTimeout})
	tc.t.Cleanup(k.Close)
	return k
}

// eventually retries fn until it returns nil or the settle timeout passes.
func (tc *testCluster) eventually(what string, fn func() error) {
	tc.t.Helper()
	deadline := time.Now().Add(clusterSettleTimeout)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			tc.t.Fatalf("%s: still failing after %v: %v", what, clusterSettleTimeout, err)
		}
		time.Sleep(clusterPollPeriod)
	}
}

// node is a fresh logged-in connection to replica id, retried while the
// set is settling (root not yet replicated, no view yet).
func (tc *testCluster) node(id int) *client.Client {
	tc.t.Helper()
	var c *client.Client
	tc.eventually(fmt.Sprintf("login on node %d", id), func() error {
		var err error
		c, err = client.NewCluster(tc.addrs, rootUsername, rootPassword, client.Options{RequestTimeout: requestTimeout}).Node(id)
		return err
	})
	tc.t.Cleanup(func() { c.Close() })
	return c
}

// Three processes from one roster form one replica set: root is created
// once through the replicated log, and node 2, started on fresh storage
// without root credentials, boots, waits for it and logs in with it; a stream
// created on node 0 is listed on nodes 1 and 2, a topic created through a
// backup (forwarded to the metadata primary) exists everywhere, and
// GetClusterMetadata on any node lists the roster with one leader.
// covers VSR-1, ROOT-7, VSR-31
func TestClusterReplicatesMetadataAcrossProcesses(t *testing.T) {
	tc := startCluster(t, 3, 2)
	c0 := tc.node(0)
	s, err := c0.CreateStream("replicated")
	if err != nil {
		t.Fatalf("create stream on node 0: %v", err)
	}
	for id := 1; id < 3; id++ {
		c := tc.node(id)
		tc.eventually(fmt.Sprintf("stream listed on node %d", id), func() error {
			streams, err := c.GetStreams()
			if err != nil {
				return err
			}
			if len(streams) != 1 || streams[0].Name != "replicated" || streams[0].ID != s.ID {
				return fmt.Errorf("streams %+v", streams)
			}
			return nil
		})
	}
	c2 := tc.node(2)
	if _, err := c2.CreateTopic(wire.NumericID(s.ID), "through-a-backup", 2, nil); err != nil {
		t.Fatalf("create topic on node 2: %v", err)
	}
	tc.eventually("topic on node 1", func() error {
		_, found, err := tc.node(1).GetTopic(wire.NumericID(s.ID), wire.NamedID("through-a-backup"))
		if err == nil && !found {
			err = errors.New("not found")
		}
		return err
	})
	for id := range 3 {
		tc.eventually(fmt.Sprintf("cluster metadata of node %d", id), func() error {
			return checkRoster(tc, id)
		})
	}
}

// checkRoster asks node id for the cluster metadata: the three roster
// nodes in order with their ports and replica ids (VSR-31), exactly one of
// them the leader, every one healthy.
func checkRoster(tc *testCluster, id int) error {
	m, err := tc.node(id).GetClusterMetadata()
	if err != nil {
		return err
	}
	if m.Name != "e2e-cluster" || len(m.Nodes) != len(tc.addrs) || !m.Replicas {
		return fmt.Errorf("metadata %+v", m)
	}
	leaders := 0
	for i, n := range m.Nodes {
		if n.Name != fmt.Sprintf("node-%d", i) || n.Address != "127.0.0.1" || strconv.Itoa(int(n.TCPPort)) != portOf(tc.t, tc.addrs[i]) ||
			int(n.ReplicaID) != i || n.Status != wire.ClusterStatusHealthy {
			return fmt.Errorf("node record %d: %+v", i, n)
		}
		if n.Role == wire.ClusterRoleLeader {
			leaders++
		}
	}
	if leaders != 1 {
		return fmt.Errorf("%d leaders in %+v", leaders, m.Nodes)
	}
	return nil
}
