package replicalink

import (
	"fmt"
	"log/slog"
	"net"
	"strconv"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/wire"
)

// FromConfig builds node self's replica plane from the server's
// configuration: it listens on its roster entry's ip and tcp_replica port
// and links to every other roster node's; [message_bus] gives the bounds,
// cluster.coordinator.replica_connections_per_peer the links per peer,
// cluster.auth and cluster.tls the security. id, shards, log and deliver
// come from the server.
func FromConfig(c *config.Config, self uint8, id Identity, shards uint32, log *slog.Logger, deliver func(node.PeerMessage)) (Config, error) {
	cl, bus := &c.Cluster, &c.MessageBus
	cfg := Config{Self: self, Cluster: ClusterID(cl.Name), Identity: id,
		LinksPerPeer: int(cl.Coordinator.ReplicaConnectionsPerPeer), Shards: shards,
		QueueCapacity: int(bus.PeerQueueCapacity), FrameSizeMax: int(min(bus.MaxMessageSize, uint64(wire.FrameSizeMax))),
		ReadBufferSize: int(min(bus.ReplicaReadBufferSize, readBufferSizeMax)), ReconnectPeriod: bus.ReconnectPeriod,
		HandshakeGrace: bus.HandshakeGrace, Log: log, Deliver: deliver}
	found := false
	for _, n := range cl.Nodes {
		if n.Ports.TCPReplica == nil {
			return Config{}, fmt.Errorf("replica links: cluster node %q has no tcp_replica port", n.Name)
		}
		addr := net.JoinHostPort(n.IP, strconv.Itoa(int(*n.Ports.TCPReplica)))
		if n.ReplicaID == self {
			cfg.Listen, found = addr, true
			continue
		}
		cfg.Peers = append(cfg.Peers, Peer{ID: n.ReplicaID, Addr: addr})
	}
	if !found {
		return Config{}, fmt.Errorf("replica links: replica id %d is not in cluster.nodes", self)
	}
	if a := cl.Auth; a.Enabled {
		cfg.Secret = []byte(a.SharedSecret)
		if a.PreviousSharedSecret != "" {
			cfg.PreviousSecret = []byte(a.PreviousSharedSecret)
		}
	}
	if t := cl.TLS; t.Enabled {
		tc, err := NewTLS(t.SelfSigned, t.CertFile, t.KeyFile, t.CAFile)
		if err != nil {
			return Config{}, err
		}
		cfg.TLS = tc
	}
	return cfg, nil
}
