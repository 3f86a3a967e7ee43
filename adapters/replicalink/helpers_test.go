package replicalink

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// waitTimeout bounds every wait of these tests for a link or a message.
const waitTimeout = 10 * time.Second

// logBuf is a slog sink tests can search.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) has(parts ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(l.b.String(), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

// tnode is one node of a test cluster: its bus and what it received.
type tnode struct {
	bus  *Bus
	cfg  Config
	log  *logBuf
	got  chan node.PeerMessage
	addr string
}

var testIdentity = Identity{Protocol: uint32(wire.ProtocolVersionCurrent), Release: "0.10.0-go", StorageFormat: "IGGY-METADATA-CHANGE-LOG-1"}

// testConfig is node id's config in a cluster whose replica ports are addrs.
func testConfig(id int, addrs []string) Config {
	cfg := Config{Self: uint8(id), Cluster: ClusterID("test-cluster"), Identity: testIdentity, LinksPerPeer: 1,
		Shards: 1, QueueCapacity: 256, FrameSizeMax: wire.FrameSizeMax, ReadBufferSize: 32 << 10,
		ReconnectPeriod: 200 * time.Millisecond, HandshakeGrace: 2 * time.Second}
	for j, a := range addrs {
		if j != id {
			cfg.Peers = append(cfg.Peers, Peer{ID: uint8(j), Addr: a})
		}
	}
	return cfg
}

// cluster starts n nodes on 127.0.0.1:0; tune adjusts each config.
func cluster(t testing.TB, n int, tune func(i int, c *Config)) []*tnode {
	t.Helper()
	lns := make([]net.Listener, n)
	addrs := make([]string, n)
	for i := range lns {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns[i], addrs[i] = ln, ln.Addr().String()
	}
	nodes := make([]*tnode, n)
	for i := range nodes {
		cfg := testConfig(i, addrs)
		if tune != nil {
			tune(i, &cfg)
		}
		nodes[i] = start(t, cfg, lns[i])
	}
	return nodes
}

// start runs a node on ln (or on a fresh listener of addr when ln is nil).
func start(t testing.TB, cfg Config, ln net.Listener) *tnode {
	t.Helper()
	tn := &tnode{cfg: cfg, log: &logBuf{}, got: make(chan node.PeerMessage, 4096)}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(tn.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if cfg.Deliver == nil {
		cfg.Deliver = func(m node.PeerMessage) { tn.got <- m }
	}
	b, err := New(cfg, ln)
	if err != nil {
		t.Fatal(err)
	}
	tn.bus, tn.addr = b, b.Addr().String()
	t.Cleanup(func() { _ = b.Close() })
	return tn
}

// waitLinked waits until a has every link to peer up.
func waitLinked(t *testing.T, a *tnode, peer uint8) {
	t.Helper()
	want := a.cfg.LinksPerPeer
	waitFor(t, func() bool { return a.bus.Linked(peer) == want }, "links of %d to %d up", a.cfg.Self, peer)
}

func waitFor(t *testing.T, cond func() bool, format string, args ...any) {
	t.Helper()
	end := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting: "+format, args...)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func receive(t *testing.T, n *tnode) node.PeerMessage {
	t.Helper()
	select {
	case m := <-n.got:
		return m
	case <-time.After(waitTimeout):
		t.Fatalf("node %d received nothing", n.cfg.Self)
	}
	return node.PeerMessage{}
}

// every returns one message of every command from -> to, prepares and
// data included, partition groups for even commands.
func every(from, to uint8) []node.PeerMessage {
	p := vsr.Prepare{Op: 5, View: 2, Kind: vsr.KindAppend, Operation: 160, Body: []byte("a batch of messages")}
	vsr.Seal(&p)
	q := vsr.Prepare{Op: 6, View: 2, Kind: vsr.KindBarrier}
	vsr.Seal(&q)
	cmds := []vsr.Command{vsr.CmdPing, vsr.CmdPong, vsr.CmdRequest, vsr.CmdPrepare, vsr.CmdPrepareOk, vsr.CmdCommit,
		vsr.CmdStartViewChange, vsr.CmdDoViewChange, vsr.CmdStartView, vsr.CmdRequestStartView, vsr.CmdRequestPrepares,
		vsr.CmdRepairPrepare, vsr.CmdRangeEvicted, vsr.CmdRequestStateTransfer, vsr.CmdStateTransferTarget,
		vsr.CmdRequestStateChunk, vsr.CmdStateChunk, vsr.CmdRequestLogData, vsr.CmdLogData}
	var out []node.PeerMessage
	for i, c := range cmds {
		m := node.PeerMessage{Msg: vsr.Message{Command: c, From: from, To: to, View: 2, LogView: 1, Op: uint64(i), Commit: 4,
			Checksum: 77, Parent: 3, Checkpoint: vsr.Checkpoint{Op: 2, Size: 10}}}
		if i%2 == 0 {
			m.Group = node.GroupID{IsPartition: true, Stream: 1, Topic: 2, Partition: uint32(i), Revision: 9}
		}
		switch c {
		case vsr.CmdRequest, vsr.CmdPrepare:
			m.Msg.Prepares = []vsr.Prepare{p}
		case vsr.CmdDoViewChange, vsr.CmdStartView, vsr.CmdRepairPrepare:
			m.Msg.Prepares, m.Msg.Untrusted = []vsr.Prepare{p, q}, true
		case vsr.CmdStateChunk, vsr.CmdLogData:
			m.Msg.Data = []byte("image or log bytes")
		}
		out = append(out, m)
	}
	return out
}

func testConfigLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
