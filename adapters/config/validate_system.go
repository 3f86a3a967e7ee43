package config

import (
	"encoding/base64"
	"net/url"
	"time"
)

const (
	kib = uint64(1) << 10
	mib = uint64(1) << 20
	gib = uint64(1) << 30
)

// Encryption key sizes and rotation bounds (reference README).
const (
	encryptionKeyBytes      = 32
	encryptionPreviousMax   = 2
	queueCapacityMax        = 1 << 20
	partitionIOCapacityMax  = 1024
	deferredPollWaitMax     = 10 * time.Minute
	externalCalloutsMax     = 1 << 16
	memoryPoolBucketMin     = 128
	memoryPoolSizeMin       = 512 * mib
	memoryPoolSizeAlignment = 4096
)

func validateSessions(c *checker, cfg *Config) {
	c.check(cfg.ConsumerGroup.RebalancingTimeout > 0, "consumer_group.rebalancing_timeout must be non-zero")
	m := cfg.DataMaintenance.Messages
	c.check(!m.CleanerEnabled || m.Interval > 0, "data_maintenance.messages.interval must be non-zero when the cleaner is enabled")
	pat := cfg.PersonalAccessToken
	c.check(pat.MaxTokensPerUser > 0, "personal_access_token.max_tokens_per_user must be non-zero")
	c.check(!pat.Cleaner.Enabled || pat.Cleaner.Interval > 0, "personal_access_token.cleaner.interval must be non-zero when enabled")
	c.check(!cfg.Heartbeat.Enabled || cfg.Heartbeat.Interval > 0, "heartbeat.interval must be non-zero when enabled")
}

func validateSystem(c *checker, s *System) {
	c.check(s.Path != "", "system.path must not be empty")
	c.check(s.IOBackend == "auto" || s.IOBackend == "uring" || s.IOBackend == "pwrite",
		"system.io_backend must be auto, uring or pwrite, got %q", s.IOBackend)
	c.check(!s.Segment.ArchiveExpired, "system.segment.archive_expired = true is not supported")
	c.check(!s.Recovery.RecreateMissingState, "system.recovery.recreate_missing_state = true is not supported")
	p := s.MemoryPool
	if p.Enabled {
		c.check(p.Size >= memoryPoolSizeMin && p.Size%memoryPoolSizeAlignment == 0,
			"system.memory_pool.size must be at least 512 MiB and a multiple of 4096 bytes, got %d", p.Size)
		c.check(p.BucketCapacity >= memoryPoolBucketMin && p.BucketCapacity&(p.BucketCapacity-1) == 0,
			"system.memory_pool.bucket_capacity must be a power of 2 of at least 128, got %d", p.BucketCapacity)
	}
}

func validateLogging(c *checker, l *Logging) {
	// CONF-11: an invalid level stops the boot.
	c.check(ValidLogLevel(l.Level), "logging.level %q is not a valid level (trace, debug, info, warn, error, off)", l.Level)
	c.check(l.MaxTotalSize == 0 || l.MaxTotalSize >= l.MaxFileSize,
		"logging.max_total_size must be 0 or at least logging.max_file_size")
	c.check(l.RotationCheckInterval >= time.Second, "logging.rotation_check_interval must be at least 1 s")
	c.check(l.Retention >= time.Second, "logging.retention must be at least 1 s")
}

func validateEncryption(c *checker, e *Encryption) {
	c.check(!e.Enabled || e.Key != "", "encryption.enabled = true requires encryption.key (IGGY_ENCRYPTION_KEY)")
	c.check(e.Key == "" || validKey(e.Key), "encryption.key must be base64 of %d bytes", encryptionKeyBytes)
	c.check(len(e.PreviousKeys) <= encryptionPreviousMax, "encryption.previous_keys holds at most %d keys", encryptionPreviousMax)
	for i, k := range e.PreviousKeys {
		c.check(validKey(k), "encryption.previous_keys[%d] must be base64 of %d bytes", i, encryptionKeyBytes)
		c.check(k != e.Key, "encryption.previous_keys[%d] equals encryption.key", i)
	}
	for i, f := range e.RetiredKEKFingerprints {
		c.check(f != "", "encryption.retired_kek_fingerprints[%d] must not be empty", i)
	}
}

func validKey(k string) bool {
	raw, err := base64.StdEncoding.DecodeString(k)
	return err == nil && len(raw) == encryptionKeyBytes
}

func validateSharding(c *checker, s *Sharding, numCPU int) {
	a := s.CPUAllocation
	switch a.Kind {
	case CPUCount:
		c.check(int(a.Count) <= numCPU, "sharding.cpu_allocation: %d shards exceed the %d available CPUs", a.Count, numCPU)
	case CPURange:
		c.check(int(a.RangeEnd) <= numCPU, "sharding.cpu_allocation: range %d..%d exceeds the %d available CPUs", a.RangeStart, a.RangeEnd, numCPU)
	}
	c.check(s.InboxCapacity >= 1 && s.InboxCapacity <= queueCapacityMax, "sharding.inbox_capacity must be 1..=%d", queueCapacityMax)
	c.check(s.ReplyInboxCapacity >= 1 && s.ReplyInboxCapacity <= queueCapacityMax, "sharding.reply_inbox_capacity must be 1..=%d", queueCapacityMax)
	c.check(s.ShutdownDrainTimeout > 0 && s.ShutdownDrainTimeout <= 600*time.Second, "sharding.shutdown_drain_timeout must be in (0, 600 s]")
	c.check(s.ShutdownPollInterval > 0 && s.ShutdownPollInterval <= 5*time.Second && s.ShutdownPollInterval <= s.ShutdownDrainTimeout,
		"sharding.shutdown_poll_interval must be in (0, 5 s] and at most shutdown_drain_timeout")
	c.check(s.ShutdownJoinTimeout <= 900*time.Second && s.ShutdownJoinTimeout >= s.ShutdownDrainTimeout,
		"sharding.shutdown_join_timeout must be at most 900 s and at least shutdown_drain_timeout")
	c.check(s.ReconcilePeriodicInterval > 0 && s.ReconcilePeriodicInterval <= 30*time.Second, "sharding.reconcile_periodic_interval must be in (0, 30 s]")
	c.check(s.PartitionIOCapacity >= 1 && s.PartitionIOCapacity <= partitionIOCapacityMax, "sharding.partition_io_capacity must be 1..=%d", partitionIOCapacityMax)
	c.check(s.DeferredPollMaxWait <= deferredPollWaitMax, "sharding.deferred_poll_max_wait must be at most 10 minutes")
	c.check(s.DeferredPollMaxPending >= 1, "sharding.deferred_poll_max_pending must be non-zero")
	c.check(s.DeferredPollMaxPendingPerSession >= 1 && s.DeferredPollMaxPendingPerSession <= s.DeferredPollMaxPending,
		"sharding.deferred_poll_max_pending_per_session must be 1..=deferred_poll_max_pending")
	c.check(s.DeferredPollMaxReadBytes > 0 && s.DeferredPollMaxReadBytes <= s.DeferredPollMaxInflightBytes,
		"sharding.deferred_poll_max_read_bytes must be non-zero and at most deferred_poll_max_inflight_bytes")
}

func validateExternalAuth(c *checker, e *ExternalAuth) {
	if !e.Enabled {
		return
	}
	u, err := url.Parse(e.URL)
	c.check(err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "",
		"external_auth.url must be an http(s) URL when external_auth is enabled")
	c.check(e.Timeout > 0, "external_auth.timeout must be non-zero")
	c.check(e.MaxConcurrentCallouts >= 1 && e.MaxConcurrentCallouts <= externalCalloutsMax,
		"external_auth.max_concurrent_callouts must be 1..=%d", externalCalloutsMax)
}

func validateTelemetry(c *checker, t *Telemetry) {
	for _, e := range []struct {
		name string
		exp  TelemetryExporter
	}{{"logs", t.Logs}, {"traces", t.Traces}} {
		c.check(e.exp.Transport == "grpc" || e.exp.Transport == "http", "telemetry.%s.transport must be grpc or http", e.name)
		c.check(!t.Enabled || e.exp.Endpoint != "", "telemetry.%s.endpoint must not be empty when telemetry is enabled", e.name)
	}
	c.check(!t.Enabled || trimmed(t.ServiceName) != "", "telemetry.service_name must not be blank when telemetry is enabled")
}
