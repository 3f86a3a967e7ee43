package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/adapters/replicalink"
	"github.com/iggygo/iggy/adapters/server"
	"github.com/iggygo/iggy/adapters/storagegate"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/clock"
	"github.com/iggygo/iggy/wire"
)

// replicaIDMax is the largest --replica-id (a roster holds at most 32
// nodes, VSR-13, which configuration validation enforces).
const replicaIDMax = 255

// clusterSelf resolves --replica-id against the roster in cluster mode
// (nil outside it) and gives every client listener the port of this
// node's roster entry, keeping the host of its [tcp]/[quic]/... address.
func clusterSelf(cfg *config.Config, f flags, log *slog.Logger) (*config.ClusterNode, error) {
	if !cfg.Cluster.Enabled {
		if f.replicaID >= 0 {
			log.Warn("--replica-id is ignored: cluster.enabled is false", "replica_id", f.replicaID)
		}
		return nil, nil
	}
	if f.replicaID < 0 || f.replicaID > replicaIDMax {
		return nil, &usageError{msg: fmt.Sprintf("cluster.enabled = true needs --replica-id naming a [[cluster.nodes]] entry (0..%d), got %d",
			len(cfg.Cluster.Nodes)-1, f.replicaID)}
	}
	self, err := cfg.NodeByReplicaID(uint8(f.replicaID))
	if err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	for _, l := range []struct {
		addr *string
		port *uint16
	}{
		{&cfg.TCP.Address, self.Ports.TCP}, {&cfg.QUIC.Address, self.Ports.QUIC},
		{&cfg.HTTP.Address, self.Ports.HTTP}, {&cfg.WebSocket.Address, self.Ports.WebSocket},
	} {
		if l.port == nil {
			continue // validation requires the port of every enabled transport
		}
		host, _, err := net.SplitHostPort(*l.addr)
		if err != nil {
			return nil, &usageError{msg: fmt.Sprintf("address %q: %v", *l.addr, err)}
		}
		*l.addr = net.JoinHostPort(host, strconv.Itoa(int(*l.port)))
	}
	log.Info(fmt.Sprintf("replica %d of %d (%s) in cluster %q", self.ReplicaID, len(cfg.Cluster.Nodes), self.Name, cfg.Cluster.Name))
	return self, nil
}

// asReplica binds the admitted storage to this replica (storagegate) and
// makes the node a replica of the roster's set; a set runs one shard
// (cmd/iggy-server/shards.go).
func asReplica(nc *node.Config, cfg *config.Config, self *config.ClusterNode) error {
	if self == nil {
		return nil
	}
	if err := storagegate.BindReplica(cfg.System.Path, cfg.Cluster.Name, self.ReplicaID); err != nil {
		return err
	}
	nc.Replica, nc.Replicas = self.ReplicaID, uint8(len(cfg.Cluster.Nodes))
	nc.ClusterName, nc.NodeName = cfg.Cluster.Name, self.Name
	nc.AdvertisedHost = self.PublishedHost()
	nc.Racks = rackIndexes(cfg.Cluster.Nodes)
	for _, n := range cfg.Cluster.Nodes {
		rec := wire.ClusterNode{Name: n.Name, Address: n.PublishedHost(), TCPPort: portOf(cfg.TCP.Enabled, n.Ports.TCP),
			QUICPort: portOf(cfg.QUIC.Enabled, n.Ports.QUIC), HTTPPort: portOf(cfg.HTTP.Enabled, n.Ports.HTTP),
			WebSocketPort: portOf(cfg.WebSocket.Enabled, n.Ports.WebSocket), Rack: n.Rack}
		nc.Roster = append(nc.Roster, node.RosterNode{ReplicaID: n.ReplicaID, Record: rec, Advertised: advertisedRoutes(n)})
	}
	return nil
}

// advertisedRoutes are a roster node's per-client-network addresses
// (validation has parsed every client_cidr).
func advertisedRoutes(n config.ClusterNode) []node.AdvertisedRoute {
	var out []node.AdvertisedRoute
	for _, a := range n.AdvertisedAddresses {
		if p, err := netip.ParsePrefix(a.ClientCIDR); err == nil {
			out = append(out, node.AdvertisedRoute{Clients: p.Masked(), Address: a.Address})
		}
	}
	return out
}

// portOf is a roster port as clients see it: 0 for a disabled transport.
func portOf(enabled bool, p *uint16) uint16 {
	if !enabled || p == nil {
		return 0
	}
	return *p
}

// startReplicaPlane listens on this node's tcp_replica port, links to every
// peer, and attaches the links to the front loop. Its close stops the links,
// then releases any link reader waiting on the loop's inbox.
func startReplicaPlane(cfg *config.Config, self *config.ClusterNode, front *server.Loop, log *slog.Logger) (func(), error) {
	if self == nil {
		return func() {}, nil
	}
	in := server.NewPeerInbox()
	id := replicalink.Identity{Protocol: uint32(wire.ProtocolVersionCurrent), Release: serverVersion,
		StorageFormat: storagegate.FormatIdentity}
	rcfg, err := replicalink.FromConfig(cfg, self.ReplicaID, id, 1, log.With("plane", "replica"), in.Deliver)
	if err != nil {
		return nil, err
	}
	bus, err := replicalink.New(rcfg, nil)
	if err != nil {
		return nil, err
	}
	front.AttachPeers(in, bus)
	log.Info(fmt.Sprintf("replica links listening on %s, %d peers", bus.Addr(), len(rcfg.Peers)))
	return func() {
		in.Close()
		_ = bus.Close()
	}, nil
}

// vsrTimeouts are the [cluster] timing keys in consensus ticks (validation
// quantised them to the tick and refuses zeros): heartbeat_timeout is how
// long a backup waits for its primary, a primary for a quorum, and a
// recovering backup for start_view.
func vsrTimeouts(c config.Cluster) vsr.Timeouts {
	tick := clock.TickMillis * time.Millisecond
	ticks := func(d time.Duration) uint64 { return uint64(d / tick) }
	silence := ticks(c.HeartbeatTimeout)
	return vsr.Timeouts{
		HeartbeatTicks:            ticks(c.CommitBroadcastInterval),
		ViewChangeTimeoutTicks:    silence,
		StepDownTicks:             silence,
		RecoveringTimeoutTicks:    silence,
		ViewChangeRetransmitTicks: ticks(c.ViewChangeRetransmitInterval),
		ViewChangeStatusTicks:     ticks(c.ViewChangeStatusTimeout),
		RequestStartViewTicks:     ticks(c.RequestStartViewRetransmitInterval),
		RepairTicks:               ticks(c.RepairRetryInterval),
		RepairOps:                 uint64(c.RepairChunkMax),
	}
}
