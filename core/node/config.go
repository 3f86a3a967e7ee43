package node

import (
	"github.com/iggygo/iggy/internal/assert"
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
	// TokenCleanerIntervalTicks paces the deletion of expired tokens; 0 = off.
	TokenCleanerIntervalTicks uint64
	// PartitionsMax caps the partitions of all topics; 0 = no cap.
	PartitionsMax uint32
	// SkipReadChecksums: system.partition.validate_checksum = false.
	SkipReadChecksums bool
	// Root is set on a fresh start only: the credentials of op 1.
	Root *RootCredentials
}

// RootCredentials create the root user on an empty metadata journal.
type RootCredentials struct {
	Username     string
	PasswordHash string
}

func (c *Config) validate() {
	assert.That(c.ServerVersion != "", "server version missing")
	assert.That(c.SegmentSizeBytes > 0, "segment size missing")
	if c.ClusterName == "" {
		c.ClusterName = "single-node"
	}
	if c.NodeName == "" {
		c.NodeName = "iggy-node"
	}
}
