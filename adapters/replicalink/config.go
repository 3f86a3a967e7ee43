// Package replicalink carries replica frames between the nodes of a cluster
// over TCP: a listener on the node's tcp_replica port, and a dialer per
// link to every peer of a higher replica id. Each link opens with the
// 8-byte placement preamble (VSR-6) and a handshake (hello, challenge,
// finish) that checks the cluster, protocol, release and storage format
// (VSR-4), the link count (VSR-7, VSR-10) and, with cluster.auth, the
// shared secret by BLAKE3 keyed MACs; cluster.tls wraps the link in TLS
// 1.3. Messages to a peer wait in a bounded queue per link that drops when
// full rather than block the caller. Decoded messages go to Config.Deliver;
// nothing from a link that failed its handshake or sent a malformed frame
// does.
package replicalink

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/wire"
)

// Bounds of the replica plane.
const (
	// LinksMax bounds a node's replica links, all peers together (VSR-9).
	LinksMax = 256
	// handshakesMax bounds the accepted connections still in their
	// handshake: random connections cannot hold more than this.
	handshakesMax = 64
	// writeStallTimeout: a link whose peer takes no bytes this long is
	// closed (its queue then drops; the peer redials or is redialled).
	writeStallTimeout = 10 * time.Second
	// reconnectDelayMin is the first redial delay; it doubles up to
	// Config.ReconnectPeriod.
	reconnectDelayMin = 50 * time.Millisecond
	// writeBufferKeepBytesMax: a writer keeps its encode buffer between
	// frames up to this size, enough for a prepare of a 1 MiB batch
	// (re-allocating it cost a zeroing per frame); a larger one is let go.
	writeBufferKeepBytesMax = 2 << 20
	// readBufferSizeMax bounds message_bus.replica_read_buffer_size as a
	// link's buffer.
	readBufferSizeMax = 64 << 20
)

// Identity is what two replicas must share to link (VSR-4). It names the
// release, not the executable: a rebuilt or stripped binary of the same
// release has the same identity (VSR-5).
type Identity struct {
	Protocol      uint32 // packed protocol version (wire.ProtocolVersionCurrent)
	Release       string // the server's version string, 1..255 bytes
	StorageFormat string // the storage format identity, 1..255 bytes
}

// stamp is the release field of every consensus frame: a 32-bit digest of
// the identity, so a frame of another release is refused even past the
// handshake.
func (id Identity) stamp() uint32 {
	w := wire.Writer{}
	w.U32(id.Protocol)
	w.Name(id.Release)
	w.Name(id.StorageFormat)
	return uint32(xxh3.Hash(w.Buf))
}

// ClusterID is the cluster field of replica frames: a digest of
// cluster.name, so nodes of two clusters never link.
func ClusterID(name string) wire.U128 {
	h := xxh3.HashString128(name)
	return wire.U128{Lo: h.Lo, Hi: h.Hi}
}

// Peer is another node of the roster: its replica id and the host:port of
// its tcp_replica listener.
type Peer struct {
	ID   uint8
	Addr string
}

// Config is one node's replica plane.
type Config struct {
	Self    uint8
	Listen  string // host:port of our tcp_replica listener (":0" in tests)
	Peers   []Peer // every other node of the roster
	Cluster wire.U128
	Identity
	// LinksPerPeer is cluster.coordinator.replica_connections_per_peer,
	// read once here (VSR-12): a peer running another value is refused.
	LinksPerPeer int
	Shards       uint32 // our shard count, told to peers (they may differ, VSR-11)
	// QueueCapacity is message_bus.peer_queue_capacity: the messages one
	// link holds for its writer; past it Send drops.
	QueueCapacity int
	// FrameSizeMax is message_bus.max_message_size.
	FrameSizeMax int
	// ReadBufferSize is message_bus.replica_read_buffer_size (FLOW-9).
	ReadBufferSize int
	// ReconnectPeriod is message_bus.reconnect_period: the longest redial
	// delay.
	ReconnectPeriod time.Duration
	// HandshakeGrace is message_bus.handshake_grace: a link not through
	// its handshake by then is closed.
	HandshakeGrace time.Duration
	// Secret turns on cluster.auth: MACs under it are sent, and MACs under
	// it or PreviousSecret (rotation) are accepted. Nil: no auth.
	Secret, PreviousSecret []byte
	// TLS wraps links in TLS 1.3 (ALPN iggy-replica); nil: plaintext.
	TLS *TLSConfig
	Log *slog.Logger
	// Deliver receives every decoded message, on the link's reader
	// goroutine; it must not block long (the link reads nothing meanwhile).
	Deliver func(node.PeerMessage)
}

// TLSConfig is the two sides of cluster.tls.
type TLSConfig struct {
	Server *tls.Config // for accepted links
	Client *tls.Config // for dialled links; ServerName is set per peer
}

func (c *Config) check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.LinksPerPeer < 1 || c.LinksPerPeer > 255 {
		bad("replica_connections_per_peer %d outside 1..255", c.LinksPerPeer)
	}
	if c.LinksPerPeer*len(c.Peers) > LinksMax {
		bad("%d links per peer x %d peers is over %d links", c.LinksPerPeer, len(c.Peers), LinksMax)
	}
	seen := map[uint8]bool{c.Self: true}
	for _, p := range c.Peers {
		if seen[p.ID] {
			bad("peer %d twice, or ourselves", p.ID)
		}
		seen[p.ID] = true
	}
	if c.QueueCapacity < 1 || c.ReadBufferSize < 1 || c.FrameSizeMax < wire.HeaderSize {
		bad("queue capacity %d, read buffer %d, frame size max %d", c.QueueCapacity, c.ReadBufferSize, c.FrameSizeMax)
	}
	if c.ReconnectPeriod <= 0 || c.HandshakeGrace <= 0 {
		bad("reconnect period %v, handshake grace %v", c.ReconnectPeriod, c.HandshakeGrace)
	}
	if len(c.Release) < 1 || len(c.Release) > 255 || len(c.StorageFormat) < 1 || len(c.StorageFormat) > 255 {
		bad("release %q or storage format %q not 1..255 bytes", c.Release, c.StorageFormat)
	}
	if c.TLS != nil && c.Secret == nil {
		bad("cluster.tls requires cluster.auth")
	}
	if c.Log == nil || c.Deliver == nil {
		bad("no log or no deliver callback")
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("replica links: %w", err)
	}
	return nil
}
