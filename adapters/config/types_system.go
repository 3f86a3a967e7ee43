package config

import "time"

// System holds the data layout.
type System struct {
	// Path is the data root; derived directories live below it.
	Path       string          `koanf:"path"`
	Runtime    PathOnly        `koanf:"runtime"`
	Stream     PathOnly        `koanf:"stream"`
	Topic      PathOnly        `koanf:"topic"`
	Partition  SystemPartition `koanf:"partition"`
	Segment    SystemSegment   `koanf:"segment"`
	Recovery   SystemRecovery  `koanf:"recovery"`
	MemoryPool MemoryPool      `koanf:"memory_pool"`
	// IOBackend selects the disk system calls: auto, uring or pwrite (ours).
	IOBackend string `koanf:"io_backend"`
}

// PathOnly is a table holding one relative directory name.
type PathOnly struct {
	Path string `koanf:"path"`
}

// SystemPartition holds partition storage settings.
type SystemPartition struct {
	Path             string `koanf:"path"`
	ValidateChecksum bool   `koanf:"validate_checksum"`
}

// SystemSegment holds segment settings. The segment size is a topic option
// now (see TopicDefaults.SegmentSize).
type SystemSegment struct {
	// ArchiveExpired is unsupported: true stops the boot.
	ArchiveExpired bool `koanf:"archive_expired"`
}

// SystemRecovery holds recovery settings.
type SystemRecovery struct {
	// RecreateMissingState is unsupported: true stops the boot.
	RecreateMissingState bool `koanf:"recreate_missing_state"`
}

// MemoryPool configures pooled buffers.
type MemoryPool struct {
	Enabled        bool   `koanf:"enabled"`
	Size           uint64 `koanf:"size" conf:"size"`
	BucketCapacity uint32 `koanf:"bucket_capacity"`
}

// Sharding configures shards and their bounded queues.
type Sharding struct {
	CPUAllocation             CPUAllocation `koanf:"cpu_allocation"`
	PinCores                  bool          `koanf:"pin_cores"`
	InboxCapacity             uint32        `koanf:"inbox_capacity"`
	ReplyInboxCapacity        uint32        `koanf:"reply_inbox_capacity"`
	ShutdownDrainTimeout      time.Duration `koanf:"shutdown_drain_timeout"`
	ShutdownPollInterval      time.Duration `koanf:"shutdown_poll_interval"`
	ShutdownJoinTimeout       time.Duration `koanf:"shutdown_join_timeout"`
	ReconcilePeriodicInterval time.Duration `koanf:"reconcile_periodic_interval"`
	// PartitionIOCapacity bounds concurrent partition file jobs per shard.
	PartitionIOCapacity uint32 `koanf:"partition_io_capacity"`
	// DeferredPollMaxWait caps the wait of a deferred poll (longer asks are
	// shortened, not refused).
	DeferredPollMaxWait              time.Duration `koanf:"deferred_poll_max_wait"`
	DeferredPollMaxPending           uint32        `koanf:"deferred_poll_max_pending"`
	DeferredPollMaxPendingPerSession uint32        `koanf:"deferred_poll_max_pending_per_session"`
	DeferredPollMaxReadBytes         uint64        `koanf:"deferred_poll_max_read_bytes" conf:"size"`
	DeferredPollMaxInflightBytes     uint64        `koanf:"deferred_poll_max_inflight_bytes" conf:"size"`
}

// Metadata configures the metadata consensus group.
type Metadata struct {
	PrepareQueueDepth         uint32 `koanf:"prepare_queue_depth"`
	JournalSlots              uint32 `koanf:"journal_slots"`
	ClientsTableMax           uint32 `koanf:"clients_table_max"`
	ChangeLogResourceCapacity uint32 `koanf:"change_log_resource_capacity"`
	ChangeLogActivityCapacity uint32 `koanf:"change_log_activity_capacity"`
	// PartitionsMax caps the partitions of all topics; 0 = no cap.
	PartitionsMax uint32 `koanf:"partitions_max"`
}

// Partition configures the per-partition consensus groups.
type Partition struct {
	PrepareQueueDepth           uint32 `koanf:"prepare_queue_depth"`
	EvictedRingCapacity         uint32 `koanf:"evicted_ring_capacity"`
	EvictedRingBytesMax         uint64 `koanf:"evicted_ring_bytes_max" conf:"size"`
	TransferServedCacheBytesMax uint64 `koanf:"transfer_served_cache_bytes_max" conf:"size"`
	TransferArtifactBytesMax    uint64 `koanf:"transfer_artifact_bytes_max" conf:"size"`
	RepairMemoryBytesMax        uint64 `koanf:"repair_memory_bytes_max" conf:"size"`
	WALBytesMax                 uint64 `koanf:"wal_bytes_max" conf:"size"`
	DedupClientsMax             uint32 `koanf:"dedup_clients_max"`
}

// MessageBus configures client and replica connections.
type MessageBus struct {
	MaxBatch                   uint32        `koanf:"max_batch"`
	MaxMessageSize             uint64        `koanf:"max_message_size" conf:"size"`
	PeerQueueCapacity          uint32        `koanf:"peer_queue_capacity"`
	ReconnectPeriod            time.Duration `koanf:"reconnect_period"`
	ClosePeerTimeout           time.Duration `koanf:"close_peer_timeout"`
	CloseGrace                 time.Duration `koanf:"close_grace"`
	HandshakeGrace             time.Duration `koanf:"handshake_grace"`
	ReplicaReadBufferSize      uint64        `koanf:"replica_read_buffer_size" conf:"size"`
	ClientQueueCapacity        uint32        `koanf:"client_queue_capacity"`
	ClientWriteStallTimeout    time.Duration `koanf:"client_write_stall_timeout"`
	ClientRequestQueueBytesMax uint64        `koanf:"client_request_queue_bytes_max" conf:"size"`
}
