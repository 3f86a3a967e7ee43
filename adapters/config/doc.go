// Package config loads the server configuration (shared/spec/config.md,
// with the reference documents winning where they differ).
//
// Pipeline (Load): relocated keys are refused; the embedded config.toml,
// the file named by IGGY_CONFIG_PATH (else ./config.toml) and the IGGY_
// environment are merged with koanf (tables key by key, other values
// replaced whole); the tree is decoded into Config and validated. WithDotEnv
// is the optional step 0 (.env / IGGY_ENV_PATH), run by the binary first.
//
// Choices beyond config.md, recorded here:
//   - [logging], [sharding] and [encryption] are top-level tables, as the
//     reference documents and decisions.md name them. config.md's
//     [system.logging], [system.sharding] and [system.encryption] (and their
//     IGGY_SYSTEM_* variables) still load, with a warning.
//   - Keys the reference documents add: sharding.partition_io_capacity and
//     deferred_poll_*, message_bus.replica_read_buffer_size and client_*,
//     metadata.change_log_*_capacity and partitions_max,
//     partition.repair_memory_bytes_max, wal_bytes_max and dedup_clients_max,
//     cluster.default_replication_factor,
//     cluster.coordinator.replica_connections_per_peer, cluster.nodes[].rack,
//     external_auth.*, node.advertised_address, and trusted issuers by
//     username (CONF-12). Where the documents give no default
//     (partition.wal_bytes_max, partition.dedup_clients_max,
//     message_bus.client_queue_capacity) the value in config.toml is ours.
//   - Refused as relocated besides config.md §6: consumer_group.session_timeout
//     (CONF-10) and http.jwt.trusted_issuers[].user_id (CONF-12).
//   - logging.level accepts level names and "target=level" directives only,
//     so a typo stops the boot (CONF-11).
package config
