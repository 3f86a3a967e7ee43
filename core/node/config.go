package node

import (
	"net/netip"

	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// Config is what the node needs from configuration and the host; the adapter
// fills it in, so the core never reads a file or the environment.
type Config struct {
	ServerVersion string // the build string reported at login and in stats
	ClusterName   string
	NodeName      string
	// Host facts for GetStats, read once by the adapter.
	Hostname, OSName, OSVersion, KernelVersion string
	ProcessID                                  uint32

	// Addresses advertised by GetClusterMetadata.
	AdvertisedHost                      string
	TCPPort, QUICPort, HTTPPort, WSPort uint16
	MaxTokensPerUser                    uint32
	SegmentSizeBytes                    uint64 // default for topics that do not set it
	MessageExpiryMicros                 uint64 // server default for topics that do not set it
	PartitionCacheBytes                 uint64
	// HeartbeatIntervalTicks paces stale-member eviction; 0 turns it off.
	HeartbeatIntervalTicks uint64
	// CheckpointEveryOps spaces metadata checkpoints; 0 means the default.
	CheckpointEveryOps uint64
	// PartitionCheckpointEveryOps spaces the checkpoints of a replica set's
	// partition groups; 0 means the default.
	PartitionCheckpointEveryOps uint64
	// RepairMemoryBytesMax (partition.repair_memory_bytes_max) bounds the
	// prepares all partition groups keep for peers' repairs, shared evenly;
	// WALBytesMax (partition.wal_bytes_max) bounds one group's share and its
	// journal after a checkpoint. 0: the defaults (1 GiB, 512 MiB).
	RepairMemoryBytesMax, WALBytesMax uint64
	// EvidenceTicks is how long quorum evidence lets a replica of a set
	// admit partition requests: cluster.heartbeat_timeout + 3 s (QEV-2);
	// 0 means the default (8 s).
	EvidenceTicks uint64
	// VSR is the timing of every consensus group of a replica set (the
	// [cluster] keys in ticks; zero fields: the core's defaults).
	VSR vsr.Timeouts
	// TokenCleanerIntervalTicks paces the deletion of expired tokens; 0 = off.
	TokenCleanerIntervalTicks uint64
	// PartitionsMax caps the partitions of all topics; 0 = no cap.
	PartitionsMax uint32
	// DefaultReplicationFactor is cluster.default_replication_factor, taken
	// by a topic created without replication_factor; 0 = "all" (RES-33).
	DefaultReplicationFactor uint8
	// ClientsTableMax is metadata.clients_table_max, the sessions the client
	// table holds (SESS-30); 0 = clientsMax.
	ClientsTableMax uint32
	// DedupClientsMax is partition.dedup_clients_max, the writers whose
	// send receipts a partition keeps (SESS-31); 0 = the default.
	DedupClientsMax uint32
	// ChangeLogResourceCapacity and ChangeLogActivityCapacity are the
	// metadata change log's ring capacities in records (MCL-29..31); 0 is
	// the default.
	ChangeLogResourceCapacity uint32
	ChangeLogActivityCapacity uint32
	// RequestQueueBytesMax is message_bus.client_request_queue_bytes_max,
	// the bytes of the frames one connection may queue behind its request
	// in flight (FLOW-6); 0 = requestQueueBytesMaxDefault.
	RequestQueueBytesMax uint64
	// Encryption is the server key material (encryption.go).
	Encryption Encryption
	// DeferredPollMaxWaitTicks (sharding.deferred_poll_max_wait) cuts a
	// deferred poll's wait (DEFP-10); DeferredPollMaxPending and
	// DeferredPollMaxPendingPerSession bound the polls parked on this shard
	// and for one session (DEFP-11, DEFP-12). 0: the defaults.
	DeferredPollMaxWaitTicks         uint64
	DeferredPollMaxPending           uint32
	DeferredPollMaxPendingPerSession uint32
	// DeferredPollReadBytesMax (deferred_poll_max_read_bytes) is what one
	// deferred poll's read reserves at most, DeferredPollInflightBytesMax
	// (deferred_poll_max_inflight_bytes) what all of a shard's reserve
	// together; a read without room waits for it (DEFP-13..15). 0: defaults.
	DeferredPollReadBytesMax, DeferredPollInflightBytesMax uint64
	// SkipReadChecksums: system.partition.validate_checksum = false.
	SkipReadChecksums bool
	// Replica is this node's index in the replica set, Replicas the set's
	// size (0 or 1: standalone). Every replica of a set has the same size.
	Replica, Replicas uint8
	// Shard is this instance's index among the node's Shards (0 or 1: one
	// shard). Shard 0 is the front (metadata, connections); the others host
	// partitions only (shards.go). A replica set runs one shard.
	Shard, Shards uint8
	// ReplicaWindowOps bounds the prepares a replica keeps in memory for
	// peers' repairs (0: core/vsr's default); a peer further behind gets a
	// state transfer.
	ReplicaWindowOps int
	// Marks receives the coverage marks of the consensus core (core/vsr);
	// nil discards them.
	Marks mark.Sink
	// Roster is the replica set's nodes in configuration order, as
	// GetClusterMetadata reports them (empty: a node of one).
	Roster []RosterNode
	// Racks is each replica's rack (indexed by replica id, racks numbered
	// in roster order), or empty when the roster names none (PLACE-17).
	Racks []uint8
	// Root is set on a fresh start only: the credentials of op 1. In a
	// replica set, the primary that finds the committed log empty proposes
	// it (ROOT-7: the other replicas wait for it to be replicated).
	Root *RootCredentials
	// ExternalAuthCalloutsMax is external_auth.max_concurrent_callouts when
	// external_auth is enabled, 0 when it is not: a password login naming
	// an unknown user is then asked of the service (externalauth.go).
	ExternalAuthCalloutsMax uint32
}

// RosterNode is one node of the replica set as clients are told of it:
// its record (role and status are filled in per answer; Address is the
// catch-all advertised host, else the roster ip), its replica id, and the
// per-client-network advertised addresses.
type RosterNode struct {
	ReplicaID  uint8
	Record     wire.ClusterNode
	Advertised []AdvertisedRoute
}

// AdvertisedRoute hands Address to clients inside Clients
// (cluster.nodes.advertised_addresses).
type AdvertisedRoute struct {
	Clients netip.Prefix
	Address string
}

// RootCredentials create the root user on an empty metadata journal.
type RootCredentials struct {
	Username     string
	PasswordHash string
}

func (c *Config) validate() {
	assert.That(c.ServerVersion != "", "server version missing")
	assert.That(c.SegmentSizeBytes > 0, "segment size missing")
	assert.That(c.Shards <= 1 || c.Replicas <= 1, "a replica set runs one shard")
	if c.Shard >= max(c.Shards, 1) {
		assert.Failf("shard %d of %d", c.Shard, c.Shards)
	}
	if c.ClusterName == "" {
		c.ClusterName = "single-node"
	}
	if c.RequestQueueBytesMax == 0 {
		c.RequestQueueBytesMax = requestQueueBytesMaxDefault
	}
	if c.Replicas > vsr.ReplicasMax {
		assert.Failf("%d replicas, at most %d", c.Replicas, vsr.ReplicasMax)
	}
	if c.Replica >= max(c.Replicas, 1) {
		assert.Failf("replica %d of %d", c.Replica, c.Replicas)
	}
	if len(c.Racks) != 0 && len(c.Racks) != int(c.Replicas) {
		assert.Failf("%d racks for %d replicas", len(c.Racks), c.Replicas)
	}
	if c.Marks == nil {
		c.Marks = mark.Discard{}
	}
	c.deferredDefaults()
	if c.NodeName == "" {
		c.NodeName = "iggy-node"
	}
}
