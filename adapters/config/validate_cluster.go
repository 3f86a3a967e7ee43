package config

import (
	"fmt"
	"net/netip"
	"strconv"
	"time"
)

// Cluster bounds (config.md §4 [cluster], release notes).
const (
	clusterNodesMax          = 32
	replicaLinksMax          = 256
	viewProbeAttemptsMax     = 100
	repairChunkMax           = 1024
	advertisedAddressesMax   = 16
	clusterSecretBytesMin    = 32
	heartbeatTimeoutMin      = 2 * time.Second
	superblockWedgedMin      = 30 * time.Second
	livenessIntervalsPerBeat = 4
)

func validateCluster(c *checker, cfg *Config, shards int) {
	k := &cfg.Cluster
	c.check(k.Name != "", "cluster.name must not be empty")
	c.check(k.HeartbeatTimeout >= heartbeatTimeoutMin && k.HeartbeatTimeout >= livenessIntervalsPerBeat*k.CommitBroadcastInterval,
		"cluster.heartbeat_timeout must be at least 2 s and at least 4 x cluster.commit_broadcast_interval")
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"commit_broadcast_interval", k.CommitBroadcastInterval},
		{"prepare_retransmit_interval", k.PrepareRetransmitInterval},
		{"view_change_retransmit_interval", k.ViewChangeRetransmitInterval},
		{"request_start_view_retransmit_interval", k.RequestStartViewRetransmitInterval},
		{"repair_retry_interval", k.RepairRetryInterval},
	} {
		c.check(d.v > 0, "cluster.%s must be non-zero", d.name)
	}
	c.check(k.ViewChangeStatusTimeout > 0 && k.ViewChangeStatusTimeout >= livenessIntervalsPerBeat*k.ViewChangeRetransmitInterval,
		"cluster.view_change_status_timeout must be non-zero and at least 4 x cluster.view_change_retransmit_interval")
	c.check(k.ViewProbeAttemptsMax >= 1 && k.ViewProbeAttemptsMax <= viewProbeAttemptsMax, "cluster.view_probe_attempts_max must be 1..=%d", viewProbeAttemptsMax)
	c.check(k.RepairChunkMax >= 1 && k.RepairChunkMax <= repairChunkMax, "cluster.repair_chunk_max must be 1..=%d", repairChunkMax)
	c.check(k.SuperblockWedgedFatalTimeout == 0 || k.SuperblockWedgedFatalTimeout >= superblockWedgedMin,
		"cluster.superblock_wedged_fatal_timeout must be 0 (disabled) or at least 30 s")
	validateClusterSecurity(c, k)
	c.check(k.Coordinator.ReplicaConnectionsPerPeer >= 1 && int(k.Coordinator.ReplicaConnectionsPerPeer) <= shards,
		"cluster.coordinator.replica_connections_per_peer must be 1..=%d (the node's shard count)", shards)
	if !k.Enabled {
		return
	}
	validateRoster(c, cfg)
	if cfg.HTTP.Enabled && !k.Auth.Enabled && cfg.HTTP.JWT.EncodingSecret == "" && cfg.HTTP.JWT.DecodingSecret == "" {
		c.warn("cluster mode without http.jwt secrets or cluster.auth: bearers are node-local and HTTP partition calls to other primaries answer 503")
	}
}

func validateClusterSecurity(c *checker, k *Cluster) {
	a := k.Auth
	if a.Enabled {
		c.check(len(a.SharedSecret) >= clusterSecretBytesMin, "cluster.auth.shared_secret must be at least %d bytes when cluster.auth is enabled", clusterSecretBytesMin)
	}
	if a.PreviousSharedSecret != "" {
		c.check(len(a.PreviousSharedSecret) >= clusterSecretBytesMin, "cluster.auth.previous_shared_secret must be at least %d bytes", clusterSecretBytesMin)
		c.check(a.PreviousSharedSecret != a.SharedSecret, "cluster.auth.previous_shared_secret must differ from cluster.auth.shared_secret")
	}
	t := k.TLS
	if t.Enabled {
		c.check(a.Enabled, "cluster.tls requires cluster.auth.enabled")
		c.check(t.SelfSigned || t.CertFile != "" && t.KeyFile != "" && t.CAFile != "",
			"cluster.tls needs cert_file, key_file and ca_file unless self_signed")
	}
}

// validateRoster checks [[cluster.nodes]] in cluster mode.
func validateRoster(c *checker, cfg *Config) {
	nodes := cfg.Cluster.Nodes
	c.check(len(nodes) >= 1 && len(nodes) <= clusterNodesMax, "cluster.nodes must hold 1..=%d nodes, got %d", clusterNodesMax, len(nodes))
	f := cfg.Cluster.DefaultReplicationFactor
	c.check(f == ReplicationAll || int(f) <= len(nodes), "cluster.default_replication_factor %d exceeds the %d nodes", f, len(nodes))
	links := int(cfg.Cluster.Coordinator.ReplicaConnectionsPerPeer) * max(len(nodes)-1, 0)
	c.check(links <= replicaLinksMax, "cluster.coordinator.replica_connections_per_peer x peers must be at most %d", replicaLinksMax)
	names := map[string]bool{}
	ids := map[uint8]bool{}
	endpoints := map[string]string{}
	racks := 0
	for i := range nodes {
		n := &nodes[i]
		where := fmt.Sprintf("cluster.nodes[%d]", i)
		c.check(n.Name != "" && !names[n.Name], "%s.name must be non-empty and unique", where)
		names[n.Name] = true
		c.check(!ids[n.ReplicaID] && int(n.ReplicaID) < len(nodes), "%s.replica_id %d must be unique and below the node count", where, n.ReplicaID)
		ids[n.ReplicaID] = true
		c.check(ValidHost(n.IP), "%s.ip %q must be an IP or a hostname", where, n.IP)
		c.check(n.AdvertisedAddress == "" || ValidHost(n.AdvertisedAddress), "%s.advertised_address must be an IP or a hostname without port", where)
		if n.Rack != "" {
			racks++
		}
		validateNodePorts(c, cfg, n, where, endpoints)
		validateAdvertisedAddresses(c, n, where)
	}
	c.check(racks == 0 || racks == len(nodes), "cluster.nodes: set rack on every node or on none")
}

func validateNodePorts(c *checker, cfg *Config, n *ClusterNode, where string, endpoints map[string]string) {
	ports := []struct {
		name     string
		port     *uint16
		required bool
	}{
		{"tcp", n.Ports.TCP, true},
		{"tcp_replica", n.Ports.TCPReplica, true},
		{"quic", n.Ports.QUIC, cfg.QUIC.Enabled},
		{"http", n.Ports.HTTP, cfg.HTTP.Enabled},
		{"websocket", n.Ports.WebSocket, cfg.WebSocket.Enabled},
	}
	for _, p := range ports {
		if p.port == nil {
			c.check(!p.required, "%s.ports.%s is required", where, p.name)
			continue
		}
		c.check(*p.port != 0, "%s.ports.%s must be non-zero", where, p.name)
		endpoint := n.IP + ":" + strconv.Itoa(int(*p.port))
		if other, taken := endpoints[endpoint]; taken {
			c.check(false, "%s.ports.%s: %s is also used by %s", where, p.name, endpoint, other)
			continue
		}
		endpoints[endpoint] = where + ".ports." + p.name
	}
}

func validateAdvertisedAddresses(c *checker, n *ClusterNode, where string) {
	c.check(len(n.AdvertisedAddresses) <= advertisedAddressesMax, "%s.advertised_addresses holds at most %d entries", where, advertisedAddressesMax)
	seen := map[netip.Prefix]bool{}
	for j, a := range n.AdvertisedAddresses {
		prefix, err := netip.ParsePrefix(a.ClientCIDR)
		c.check(err == nil, "%s.advertised_addresses[%d].client_cidr %q is not a CIDR", where, j, a.ClientCIDR)
		c.check(ValidHost(a.Address), "%s.advertised_addresses[%d].address must be an IP or a hostname", where, j)
		if err != nil {
			continue
		}
		c.check(!seen[prefix.Masked()], "%s.advertised_addresses[%d].client_cidr duplicates an earlier entry", where, j)
		seen[prefix.Masked()] = true
	}
}

// NodeByReplicaID returns the roster entry this process runs as
// (--replica-id, CONF-6). Its published host must not be a wildcard
// (CONF-14).
func (cfg *Config) NodeByReplicaID(id uint8) (*ClusterNode, error) {
	for i := range cfg.Cluster.Nodes {
		n := &cfg.Cluster.Nodes[i]
		if n.ReplicaID != id {
			continue
		}
		if host := n.PublishedHost(); IsWildcardHost(host) {
			return nil, fmt.Errorf("%w: cluster.nodes[%d] would publish the wildcard address %s; set its advertised_address",
				ErrInvalidConfiguration, i, host)
		}
		return n, nil
	}
	return nil, fmt.Errorf("%w: --replica-id %d names no [[cluster.nodes]] entry", ErrInvalidConfiguration, id)
}

// PublishedHost is the host clients are told to dial when no per-network
// advertised address matches: advertised_address, else ip.
func (n *ClusterNode) PublishedHost() string {
	if n.AdvertisedAddress != "" {
		return n.AdvertisedAddress
	}
	return n.IP
}

// IsWildcardHost reports whether host is empty or an unspecified IP.
func IsWildcardHost(host string) bool {
	if host == "" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsUnspecified()
}
