package config

import "time"

// Cluster configures multi-replica (VSR) mode. Its tables reject unknown
// keys. Timing keys are quantised to the 10 ms consensus tick.
type Cluster struct {
	Enabled                            bool              `koanf:"enabled"`
	Name                               string            `koanf:"name"`
	HeartbeatTimeout                   time.Duration     `koanf:"heartbeat_timeout" conf:"tick"`
	CommitBroadcastInterval            time.Duration     `koanf:"commit_broadcast_interval" conf:"tick"`
	PrepareRetransmitInterval          time.Duration     `koanf:"prepare_retransmit_interval" conf:"tick"`
	ViewChangeRetransmitInterval       time.Duration     `koanf:"view_change_retransmit_interval" conf:"tick"`
	ViewChangeStatusTimeout            time.Duration     `koanf:"view_change_status_timeout" conf:"tick"`
	RequestStartViewRetransmitInterval time.Duration     `koanf:"request_start_view_retransmit_interval" conf:"tick"`
	ViewProbeAttemptsMax               uint32            `koanf:"view_probe_attempts_max"`
	RepairRetryInterval                time.Duration     `koanf:"repair_retry_interval" conf:"tick"`
	RepairChunkMax                     uint32            `koanf:"repair_chunk_max"`
	SuperblockWedgedFatalTimeout       time.Duration     `koanf:"superblock_wedged_fatal_timeout" conf:"tick"`
	DefaultReplicationFactor           ReplicationFactor `koanf:"default_replication_factor"`
	Auth                               ClusterAuth       `koanf:"auth"`
	TLS                                ClusterTLS        `koanf:"tls"`
	Coordinator                        Coordinator       `koanf:"coordinator"`
	Nodes                              []ClusterNode     `koanf:"nodes" conf:"optional"`
}

// ClusterAuth configures the PSK replica handshake.
type ClusterAuth struct {
	Enabled              bool   `koanf:"enabled"`
	SharedSecret         string `koanf:"shared_secret" conf:"secret"`
	PreviousSharedSecret string `koanf:"previous_shared_secret" conf:"secret"`
}

// ClusterTLS configures TLS 1.3 on replica links.
type ClusterTLS struct {
	Enabled    bool   `koanf:"enabled"`
	SelfSigned bool   `koanf:"self_signed"`
	CertFile   string `koanf:"cert_file"`
	KeyFile    string `koanf:"key_file"`
	CAFile     string `koanf:"ca_file"`
}

// Coordinator configures connection placement over shards.
type Coordinator struct {
	SkipShardZeroForReplicas  bool   `koanf:"skip_shard_zero_for_replicas"`
	SkipShardZeroForClients   bool   `koanf:"skip_shard_zero_for_clients"`
	ReplicaConnectionsPerPeer uint32 `koanf:"replica_connections_per_peer"`
}

// ClusterNode is one roster entry.
type ClusterNode struct {
	Name string `koanf:"name"`
	// IP is the replica-plane address, the forwarding target and the
	// last-resort client address.
	IP                  string              `koanf:"ip"`
	AdvertisedAddress   string              `koanf:"advertised_address" conf:"optional"`
	AdvertisedAddresses []AdvertisedAddress `koanf:"advertised_addresses" conf:"optional,max=16"`
	ReplicaID           uint8               `koanf:"replica_id"`
	Ports               NodePorts           `koanf:"ports"`
	// Rack is optional; set it on every node or on none.
	Rack string `koanf:"rack" conf:"optional"`
}

// NodePorts are a node's ports; nil = not given.
type NodePorts struct {
	TCP        *uint16 `koanf:"tcp" conf:"optional"`
	QUIC       *uint16 `koanf:"quic" conf:"optional"`
	HTTP       *uint16 `koanf:"http" conf:"optional"`
	WebSocket  *uint16 `koanf:"websocket" conf:"optional"`
	TCPReplica *uint16 `koanf:"tcp_replica" conf:"optional"`
}

// AdvertisedAddress hands Address to clients inside ClientCIDR.
type AdvertisedAddress struct {
	ClientCIDR string `koanf:"client_cidr"`
	Address    string `koanf:"address"`
}
