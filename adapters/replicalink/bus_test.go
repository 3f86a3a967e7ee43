package replicalink

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/replica"
)

var compareCodec = replica.Codec{}

func sameFrame(t *testing.T, a, b node.PeerMessage) bool {
	t.Helper()
	fa, err := compareCodec.Append(nil, a)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := compareCodec.Append(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(fa, fb)
}

// exchange sends every message kind between every pair and checks that
// each arrives intact, in order per group.
func exchange(t *testing.T, nodes []*tnode) {
	t.Helper()
	for _, a := range nodes {
		for _, b := range nodes {
			if a == b {
				continue
			}
			waitLinked(t, a, b.cfg.Self)
			waitLinked(t, b, a.cfg.Self)
			want := every(a.cfg.Self, b.cfg.Self)
			for _, m := range want {
				if !a.bus.Send(m) {
					t.Fatalf("%d -> %d: %s not queued", a.cfg.Self, b.cfg.Self, m.Msg.Command)
				}
			}
			got := map[vsr.Command]node.PeerMessage{}
			for range want {
				m := receive(t, b)
				got[m.Msg.Command] = m
			}
			for _, m := range want {
				if !sameFrame(t, m, got[m.Msg.Command]) {
					t.Fatalf("%d -> %d: %s arrived as %+v", a.cfg.Self, b.cfg.Self, m.Msg.Command, got[m.Msg.Command])
				}
			}
		}
	}
}

// Three nodes with two links per peer and different shard counts link
// (each link opening with its preamble and a hello carrying the link
// count) and exchange every message kind both ways.
// covers VSR-11
func TestLinksExchangeEveryKind(t *testing.T) {
	nodes := cluster(t, 3, func(i int, c *Config) {
		c.LinksPerPeer = 2
		c.Shards = uint32(1 + i) // shard counts differ
	})
	exchange(t, nodes)
	for _, n := range nodes {
		if s := n.bus.Stats(); s.Links != 4 || s.Refused != 0 || s.Malformed != 0 {
			t.Fatalf("node %d: %+v", n.cfg.Self, s)
		}
	}
}

// cluster.auth with TLS 1.3 (self-signed, ALPN iggy-replica): links come
// up and carry every kind.
func TestLinksTLS(t *testing.T) {
	secret := []byte(strings.Repeat("s", 32))
	nodes := cluster(t, 2, func(i int, c *Config) {
		tc, err := NewTLS(true, "", "", "")
		if err != nil {
			t.Fatal(err)
		}
		c.TLS, c.Secret = tc, secret
	})
	defer func() {
		if t.Failed() {
			t.Log(nodes[0].log.b.String(), nodes[1].log.b.String())
		}
	}()
	exchange(t, nodes)
}

// With the same PSK the nodes link; with another each side refuses and
// logs it, and nothing is delivered. During a rotation (each node signs
// with its shared secret and accepts the previous one too) they link.
func TestLinksPSK(t *testing.T) {
	a, b := []byte(strings.Repeat("a", 32)), []byte(strings.Repeat("b", 32))
	nodes := cluster(t, 2, func(i int, c *Config) { c.Secret = [][]byte{a, b}[i] })
	waitFor(t, func() bool { return nodes[1].bus.Stats().Refused >= 2 }, "wrong PSK refused twice")
	if nodes[0].bus.Linked(1) != 0 || nodes[1].bus.Linked(0) != 0 || len(nodes[1].got) != 0 {
		t.Fatal("nodes of different PSKs linked")
	}
	if !nodes[1].log.has("replica link refused", "addr=127.0.0.1:", "wrong PSK") ||
		!nodes[0].log.has("replica link refused", "addr="+nodes[1].addr, "wrong PSK") {
		t.Fatalf("no refusal logged:\n%s\n%s", nodes[1].log.b.String(), nodes[0].log.b.String())
	}
	rotated := cluster(t, 2, func(i int, c *Config) {
		c.Secret, c.PreviousSecret = [][]byte{a, b}[i], [][]byte{b, a}[i]
	})
	exchange(t, rotated)
}

// A peer of another release, protocol, storage format or cluster is
// refused with the reason logged on both sides, and never links.
// covers VSR-4
func TestLinksIdentityRefused(t *testing.T) {
	cases := map[string]func(c *Config){
		"release":        func(c *Config) { c.Release = "0.9.0" },
		"protocol":       func(c *Config) { c.Protocol-- },
		"storage format": func(c *Config) { c.StorageFormat = "IGGY-BOUND-GRANTS-5" },
		"cluster id":     func(c *Config) { c.Cluster = ClusterID("another") },
	}
	for what, edit := range cases {
		t.Run(what, func(t *testing.T) {
			nodes := cluster(t, 2, func(i int, c *Config) {
				if i == 1 {
					edit(c)
				}
			})
			waitFor(t, func() bool { return nodes[1].bus.Stats().Refused >= 1 && nodes[0].bus.Stats().Refused >= 1 }, "refusals")
			if !nodes[1].log.has("replica link refused", "addr=127.0.0.1:", what) || !nodes[0].log.has("refused by the peer", "addr="+nodes[1].addr, what) {
				t.Fatalf("reasons not logged:\n%s\n%s", nodes[1].log.b.String(), nodes[0].log.b.String())
			}
			if nodes[0].bus.Linked(1)+nodes[1].bus.Linked(0) != 0 {
				t.Fatal("linked")
			}
		})
	}
}

// Nodes whose replica_connections_per_peer differ log a warning and
// never link.
// covers VSR-10
func TestLinksCountMismatch(t *testing.T) {
	nodes := cluster(t, 2, func(i int, c *Config) { c.LinksPerPeer = 1 + i })
	waitFor(t, func() bool { return nodes[1].bus.Stats().Refused >= 2 }, "refusals")
	time.Sleep(100 * time.Millisecond)
	if nodes[0].bus.Linked(1)+nodes[1].bus.Linked(0) != 0 {
		t.Fatal("linked")
	}
	if !nodes[1].log.has("level=WARN", "replica_connections_per_peer 1 differs from ours 2") {
		t.Fatalf("no warning:\n%s", nodes[1].log.b.String())
	}
}

// A node refuses more than 256 replica links in total.
// covers VSR-9
func TestLinksBound(t *testing.T) {
	addrs := make([]string, 4)
	cfg := testConfig(0, addrs)
	cfg.LinksPerPeer = 86 // x 3 peers = 258
	cfg.Log, cfg.Deliver = nil, func(node.PeerMessage) {}
	if _, err := New(cfg, nil); err == nil || !strings.Contains(err.Error(), "over 256 links") {
		t.Fatalf("258 links: %v", err)
	}
	cfg.LinksPerPeer = 85 // 255
	cfg.Log = testConfigLog()
	cfg.Listen = "127.0.0.1:0"
	b, err := New(cfg, nil)
	if err != nil {
		t.Fatalf("255 links: %v", err)
	}
	_ = b.Close()
}

// Bytes that are not a replica link's (a client's request frame, random
// bytes, a wrong preamble, a good preamble and then garbage, a frame of
// another kind) are refused: the connection is closed, a line names the
// address and the reason, and nothing is delivered.
// covers VSR-6
func TestLinksRefuseBadInput(t *testing.T) {
	nodes := cluster(t, 2, nil)
	target := nodes[1] // node 0 dials it; the raw connections below are strangers
	waitLinked(t, nodes[0], 1)
	client := make([]byte, wire.HeaderSize)
	binary.LittleEndian.PutUint32(client[48:], wire.HeaderSize)
	client[60] = byte(wire.FrameRequest)
	random := make([]byte, 600)
	_, _ = rand.Read(random)
	pre := preamble(0, 0)
	stranger := preamble(7, 0)
	wrong := preamble(0, 0)
	wrong[4] = 9
	hello := replica.AppendHello(nil, wire.FrameReplicaHello, nodes[0].bus.ourHello(1, 0))
	hello[300-256] ^= 1 // a flipped body bit
	cases := []struct {
		name   string
		bytes  []byte
		reason string
	}{
		{"client frame", client, "no placement preamble"},
		{"random bytes", random, "no placement preamble"},
		{"wrong preamble version", append(wrong[:], random...), "no placement preamble"},
		{"preamble then garbage", append(pre[:], random...), "header checksum"},
		{"preamble of a stranger", append(stranger[:], hello...), "not a peer"},
		{"corrupt hello", append(pre[:], hello...), "checksum"},
	}
	for _, c := range cases {
		conn, err := net.Dial("tcp", target.addr)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = conn.Write(c.bytes)
		_ = conn.SetReadDeadline(time.Now().Add(waitTimeout))
		if _, err := io.ReadAll(conn); err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("%s: the connection was not closed: %v", c.name, err)
		}
		local := conn.LocalAddr().String()
		_ = conn.Close()
		waitFor(t, func() bool { return target.log.has("replica link refused", "addr="+local, c.reason) }, "%s: a log line naming %s and %q", c.name, local, c.reason)
	}
	if len(target.got) != 0 || target.bus.Stats().Received != 0 {
		t.Fatal("a stranger's bytes were delivered")
	}
}

// A peer that completed its handshake and then sends a bad frame loses
// its link, counted and logged; the frame is never delivered.
func TestLinksBadFrameCloses(t *testing.T) {
	nodes := cluster(t, 2, func(i int, c *Config) {
		if i == 0 {
			c.Peers = nil // node 0 is played by hand below
		}
	})
	target := nodes[1]
	fake := &Bus{cfg: testConfig(0, []string{"", target.addr}), keys: nil}
	conn, err := net.Dial("tcp", target.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := fake.dialHandshake(conn, &slot{peer: 1, link: 0}); err != nil {
		t.Fatal(err)
	}
	waitLinked(t, target, 0)
	codec := replica.Codec{Cluster: fake.cfg.Cluster, Release: fake.cfg.Identity.stamp()}
	good, _ := codec.Append(nil, every(0, 1)[5])
	bad, _ := codec.Append(nil, every(0, 1)[5])
	bad[len(bad)-1] ^= 1
	if len(bad) == wire.HeaderSize {
		bad[200] ^= 1
	}
	_, _ = conn.Write(append(good, bad...))
	if m := receive(t, target); m.Msg.Command != vsr.CmdCommit {
		t.Fatalf("got %s", m.Msg.Command)
	}
	waitFor(t, func() bool { return target.bus.Stats().Malformed == 1 && target.bus.Linked(0) == 0 }, "bad frame closes the link")
	if !target.log.has("closed on a bad frame", "addr=127.0.0.1:", "checksum") || len(target.got) != 0 {
		t.Fatalf("not logged, or delivered:\n%s", target.log.b.String())
	}
}
