package config

import "time"

// Config is the typed, validated server configuration. Field tags give the
// TOML key ("koanf") and how the loader decodes a value ("conf"):
//
//	size       byte size: integer bytes or a size string (§3.2)
//	unlimited  with size: also "0"/"unlimited"/"none" (= 0), pointer = optional
//	tick       duration quantised to the 10 ms consensus tick (§3.1)
//	secret     never echoed in errors, warnings or logs (§7.3)
//	optional   may be absent (zero value / nil); every other key is required
//	strict     unknown keys below this table stop the boot (§2 step 8)
//	max=N      array of tables: at most N entries reachable from the environment
//
// Durations are time.Duration, sizes are uint64 bytes.
type Config struct {
	ConsumerGroup       ConsumerGroup       `koanf:"consumer_group"`
	DataMaintenance     DataMaintenance     `koanf:"data_maintenance"`
	PersonalAccessToken PersonalAccessToken `koanf:"personal_access_token"`
	Heartbeat           Heartbeat           `koanf:"heartbeat"`
	System              System              `koanf:"system"`
	Logging             Logging             `koanf:"logging"`
	Encryption          Encryption          `koanf:"encryption"`
	Sharding            Sharding            `koanf:"sharding"`
	ExternalAuth        ExternalAuth        `koanf:"external_auth"`
	Node                Node                `koanf:"node"`
	TCP                 TCP                 `koanf:"tcp"`
	QUIC                QUIC                `koanf:"quic"`
	HTTP                HTTP                `koanf:"http"`
	WebSocket           WebSocket           `koanf:"websocket"`
	Telemetry           Telemetry           `koanf:"telemetry"`
	Metadata            Metadata            `koanf:"metadata"`
	Partition           Partition           `koanf:"partition"`
	MessageBus          MessageBus          `koanf:"message_bus"`
	Cluster             Cluster             `koanf:"cluster" conf:"strict"`
	Debug               Debug               `koanf:"debug"`

	// TopicDefaults are the defaults of the per-topic options (config.md §5).
	// They are not configuration keys: the old keys are refused (§6).
	TopicDefaults TopicDefaults `koanf:"-"`

	// raw is the merged key tree, kept for EffectiveTOML.
	raw map[string]any
}

// ConsumerGroup configures consumer-group rebalancing.
type ConsumerGroup struct {
	// RebalancingTimeout bounds how long a partition may sit in pending
	// revocation before it is moved by force. Non-zero.
	RebalancingTimeout time.Duration `koanf:"rebalancing_timeout"`
}

// DataMaintenance configures background data maintenance.
type DataMaintenance struct {
	Messages MessagesMaintenance `koanf:"messages"`
}

// MessagesMaintenance configures the segment cleaner.
type MessagesMaintenance struct {
	CleanerEnabled bool          `koanf:"cleaner_enabled"`
	Interval       time.Duration `koanf:"interval"`
}

// PersonalAccessToken configures personal access tokens.
type PersonalAccessToken struct {
	MaxTokensPerUser uint32     `koanf:"max_tokens_per_user"`
	Cleaner          PATCleaner `koanf:"cleaner"`
}

// PATCleaner configures the periodic removal of expired tokens.
type PATCleaner struct {
	Enabled  bool          `koanf:"enabled"`
	Interval time.Duration `koanf:"interval"`
}

// Heartbeat configures session liveness. A session silent for 1.2 x Interval
// loses its consumer-group memberships (this replaces the removed
// consumer_group.session_timeout).
type Heartbeat struct {
	Enabled  bool          `koanf:"enabled"`
	Interval time.Duration `koanf:"interval"`
}

// SessionTimeout is the derived staleness window: 1.2 x Interval.
func (h Heartbeat) SessionTimeout() time.Duration {
	return h.Interval * 6 / 5
}

// Logging configures the server log.
type Logging struct {
	Path                  string        `koanf:"path"`
	Level                 string        `koanf:"level"`
	FileEnabled           bool          `koanf:"file_enabled"`
	MaxFileSize           uint64        `koanf:"max_file_size" conf:"size"`
	MaxTotalSize          uint64        `koanf:"max_total_size" conf:"size"`
	RotationCheckInterval time.Duration `koanf:"rotation_check_interval"`
	Retention             time.Duration `koanf:"retention"`
}

// Encryption is the server key material (the reference's [encryption]).
type Encryption struct {
	Enabled bool `koanf:"enabled"`
	// Key is base64 of 32 bytes; empty = no server key.
	Key                    string   `koanf:"key" conf:"secret"`
	PreviousKeys           []string `koanf:"previous_keys" conf:"secret"`
	RetiredKEKFingerprints []string `koanf:"retired_kek_fingerprints"`
}

// ExternalAuth configures the external authentication callout.
type ExternalAuth struct {
	Enabled               bool          `koanf:"enabled"`
	URL                   string        `koanf:"url"`
	Timeout               time.Duration `koanf:"timeout"`
	MaxConcurrentCallouts uint32        `koanf:"max_concurrent_callouts"`
}

// Node holds settings of this node that are not part of the roster.
type Node struct {
	// AdvertisedAddress is the host (IP or hostname, no port) clients are
	// told to dial. Empty = unset.
	AdvertisedAddress string `koanf:"advertised_address"`
}

// Telemetry configures OpenTelemetry export.
type Telemetry struct {
	Enabled     bool              `koanf:"enabled"`
	ServiceName string            `koanf:"service_name"`
	Logs        TelemetryExporter `koanf:"logs"`
	Traces      TelemetryExporter `koanf:"traces"`
}

// TelemetryExporter is one OTLP export target.
type TelemetryExporter struct {
	// Transport is "grpc" or "http".
	Transport string `koanf:"transport"`
	Endpoint  string `koanf:"endpoint"`
}
