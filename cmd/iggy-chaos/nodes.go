package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Bounds of process handling.
const (
	nodeStartTimeout = 30 * time.Second // a node serves TCP within this of its start
	nodeStopTimeout  = 20 * time.Second // a node exits within this of SIGTERM
	readyPollPeriod  = 50 * time.Millisecond
)

// node is one iggy-server process of the set, started and stopped by PID.
type node struct {
	id      int
	bin     string
	config  string // the roster file
	dataDir string
	logPath string
	addr    string // client TCP address
	cmd     *exec.Cmd
	exited  chan struct{}
}

// freePorts picks n loopback ports that are free now, all different: each
// listener stays open until all are picked (one after another, the kernel
// may hand out a port just released, which the roster refuses as a clash).
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("pick a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// newNodes writes a roster of n nodes on free loopback ports under dir
// and returns the nodes, not started.
func newNodes(bin, dir string, n int) ([]*node, error) {
	var roster strings.Builder
	roster.WriteString("[cluster]\nenabled = true\nname = \"iggy-chaos\"\n")
	ports, err := freePorts(2 * n)
	if err != nil {
		return nil, err
	}
	nodes := make([]*node, n)
	for i := range nodes {
		tcp, replica := ports[i], ports[n+i]
		fmt.Fprintf(&roster, "\n[[cluster.nodes]]\nname = \"node-%d\"\nip = \"127.0.0.1\"\nreplica_id = %d\nports = { tcp = %d, tcp_replica = %d }\n",
			i, i, tcp, replica)
		nodes[i] = &node{id: i, bin: bin, config: filepath.Join(dir, "config.toml"),
			dataDir: filepath.Join(dir, fmt.Sprintf("node-%d", i)), logPath: filepath.Join(dir, fmt.Sprintf("node-%d.log", i)),
			addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp))}
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(roster.String()), 0o600); err != nil {
		return nil, err
	}
	return nodes, nil
}

// start runs the node on its data directory, its output appended to its log.
func (n *node) start() error {
	log, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(n.bin, "--replica-id", strconv.Itoa(n.id), "--with-default-root-credentials")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "IGGY_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "IGGY_CONFIG_PATH="+n.config, "IGGY_SYSTEM_PATH="+n.dataDir,
		"IGGY_TCP_ADDRESS="+n.addr, "IGGY_HTTP_ENABLED=false", "IGGY_QUIC_ENABLED=false", "IGGY_WEBSOCKET_ENABLED=false")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start node %d: %w", n.id, err)
	}
	n.cmd, n.exited = cmd, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		log.Close()
		close(n.exited)
	}()
	return n.waitServing()
}

// waitServing waits until the node accepts TCP connections.
func (n *node) waitServing() error {
	deadline := time.Now().Add(nodeStartTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-n.exited:
			return fmt.Errorf("node %d exited while starting; see %s", n.id, n.logPath)
		default:
		}
		if c, err := net.DialTimeout("tcp", n.addr, readyPollPeriod); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(readyPollPeriod)
	}
	return fmt.Errorf("node %d not serving on %s after %v; see %s", n.id, n.addr, nodeStartTimeout, n.logPath)
}

// running reports a started node that has not exited.
func (n *node) running() bool {
	if n.cmd == nil {
		return false
	}
	select {
	case <-n.exited:
		return false
	default:
		return true
	}
}

// kill is kill -9 of the node's process; it returns once the process is gone.
func (n *node) kill() {
	if n.running() {
		_ = n.cmd.Process.Kill()
		<-n.exited
	}
}

// stop sends SIGTERM and waits; a node that does not exit in time is killed.
func (n *node) stop() error {
	if !n.running() {
		return nil
	}
	_ = n.cmd.Process.Signal(os.Interrupt)
	select {
	case <-n.exited:
		return nil
	case <-time.After(nodeStopTimeout):
		n.kill()
		return fmt.Errorf("node %d did not exit within %v of SIGINT", n.id, nodeStopTimeout)
	}
}
