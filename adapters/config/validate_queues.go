package config

// Bounds of the consensus and bus queues (config.md §4).
const (
	prepareQueueDepthMax   = 127
	journalSlotsMax        = 1 << 20
	journalDepthFloor      = 64
	clientsTableMin        = 2
	clientsTableMax        = 1 << 16
	changeLogCapacityMax   = 1 << 20
	evictedRingMax         = 1 << 16
	evictedRingBytesMax    = 256 * mib
	transferBytesMax       = 64 * gib
	transferSlotsWarnBelow = 2
	busBatchMax            = 512
	busMessageSizeMin      = 256
)

func validateMetadata(c *checker, m *Metadata) {
	c.check(m.PrepareQueueDepth >= 1 && m.PrepareQueueDepth <= prepareQueueDepthMax,
		"metadata.prepare_queue_depth must be 1..=%d", prepareQueueDepthMax)
	floor := 4 * max(journalDepthFloor, m.PrepareQueueDepth)
	c.check(m.JournalSlots >= floor && m.JournalSlots <= journalSlotsMax,
		"metadata.journal_slots must be %d..=%d (at least 4 x max(64, prepare_queue_depth))", floor, journalSlotsMax)
	c.check(m.ClientsTableMax >= clientsTableMin && m.ClientsTableMax <= clientsTableMax,
		"metadata.clients_table_max must be %d..=%d", clientsTableMin, clientsTableMax)
	c.check(m.ChangeLogResourceCapacity >= 1 && m.ChangeLogResourceCapacity <= changeLogCapacityMax,
		"metadata.change_log_resource_capacity must be 1..=%d", changeLogCapacityMax)
	c.check(m.ChangeLogActivityCapacity >= 1 && m.ChangeLogActivityCapacity <= changeLogCapacityMax,
		"metadata.change_log_activity_capacity must be 1..=%d", changeLogCapacityMax)
}

func validatePartition(c *checker, p *Partition, busMax uint64) {
	c.check(p.PrepareQueueDepth >= 1 && p.PrepareQueueDepth <= prepareQueueDepthMax,
		"partition.prepare_queue_depth must be 1..=%d", prepareQueueDepthMax)
	c.check(p.EvictedRingCapacity >= 1 && p.EvictedRingCapacity <= evictedRingMax,
		"partition.evicted_ring_capacity must be 1..=%d", evictedRingMax)
	c.check(p.EvictedRingBytesMax > 0 && p.EvictedRingBytesMax <= evictedRingBytesMax,
		"partition.evicted_ring_bytes_max must be in (0, 256 MiB]")
	c.check(p.TransferServedCacheBytesMax > 0 && p.TransferServedCacheBytesMax <= transferBytesMax,
		"partition.transfer_served_cache_bytes_max must be in (0, 64 GiB]")
	c.check(p.TransferArtifactBytesMax >= gib+busMax && p.TransferArtifactBytesMax <= transferBytesMax,
		"partition.transfer_artifact_bytes_max must be at least 1 GiB + message_bus.max_message_size and at most 64 GiB")
	if p.TransferArtifactBytesMax > 0 && p.TransferServedCacheBytesMax/p.TransferArtifactBytesMax < transferSlotsWarnBelow {
		c.warn("partition.transfer_served_cache_bytes_max holds fewer than %d transfer artifacts", transferSlotsWarnBelow)
	}
	c.check(p.RepairMemoryBytesMax > 0, "partition.repair_memory_bytes_max must be non-zero")
	c.check(p.WALBytesMax >= busMax, "partition.wal_bytes_max must be at least message_bus.max_message_size")
	c.check(p.DedupClientsMax >= 1 && p.DedupClientsMax <= clientsTableMax,
		"partition.dedup_clients_max must be 1..=%d", clientsTableMax)
}

func validateMessageBus(c *checker, b *MessageBus, repairChunkMax uint32) {
	c.check(b.MaxBatch >= 1 && b.MaxBatch <= busBatchMax, "message_bus.max_batch must be 1..=%d", busBatchMax)
	c.check(b.MaxMessageSize > busMessageSizeMin, "message_bus.max_message_size must exceed %d bytes", busMessageSizeMin)
	c.check(b.PeerQueueCapacity > repairChunkMax, "message_bus.peer_queue_capacity must exceed cluster.repair_chunk_max")
	c.check(b.ReconnectPeriod > 0, "message_bus.reconnect_period must be non-zero")
	c.check(b.ClosePeerTimeout > 0, "message_bus.close_peer_timeout must be non-zero")
	c.check(b.CloseGrace > 0, "message_bus.close_grace must be non-zero")
	c.check(b.HandshakeGrace > 0, "message_bus.handshake_grace must be non-zero")
	c.check(b.ReplicaReadBufferSize > 0, "message_bus.replica_read_buffer_size must be non-zero")
	c.check(b.ClientQueueCapacity >= 1 && b.ClientQueueCapacity <= queueCapacityMax,
		"message_bus.client_queue_capacity must be 1..=%d", queueCapacityMax)
	c.check(b.ClientWriteStallTimeout > 0, "message_bus.client_write_stall_timeout must be non-zero")
	c.check(b.ClientRequestQueueBytesMax > 0, "message_bus.client_request_queue_bytes_max must be non-zero")
}
