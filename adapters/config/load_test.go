package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// load runs Load in an empty working directory with only the given environment.
func load(t *testing.T, env ...string) (*Config, []string, error) {
	t.Helper()
	// Never fall back to the process environment (a nil Environ would).
	return Load(LoadOptions{Environ: append([]string{}, env...), WorkDir: t.TempDir(), NumCPU: 8})
}

func mustLoad(t *testing.T, env ...string) (*Config, []string) {
	t.Helper()
	cfg, warnings, err := load(t, env...)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return cfg, warnings
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// covers CONF-1, TRAN-10
func TestDefaultsLoad(t *testing.T) {
	cfg, warnings := mustLoad(t)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "not found") {
		t.Errorf("warnings = %q, want only the missing-file warning", warnings)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"system.path", cfg.System.Path, "local_data"},
		{"tcp.address", cfg.TCP.Address, "127.0.0.1:8090"},
		{"quic.address", cfg.QUIC.Address, "127.0.0.1:8080"},
		{"http.address", cfg.HTTP.Address, "127.0.0.1:3000"},
		{"websocket.address", cfg.WebSocket.Address, "127.0.0.1:8092"},
		{"cluster.enabled", cfg.Cluster.Enabled, false},
		{"heartbeat.interval", cfg.Heartbeat.Interval, 30 * time.Second},
		{"session timeout", cfg.Heartbeat.SessionTimeout(), 36 * time.Second},
		{"pat max", cfg.PersonalAccessToken.MaxTokensPerUser, uint32(100)},
		{"bus max message", cfg.MessageBus.MaxMessageSize, uint64(64 << 20)},
		{"http max request", cfg.HTTP.MaxRequestSize, uint64(2_000_000)},
		{"jwt expiry", cfg.HTTP.JWT.AccessTokenExpiry, Expiry{Duration: time.Hour}},
		{"logging level", cfg.Logging.Level, "info"},
		{"log retention", cfg.Logging.Retention, 7 * 24 * time.Hour},
		{"cpu allocation", cfg.Sharding.CPUAllocation.NUMAAuto, true},
		{"deferred wait", cfg.Sharding.DeferredPollMaxWait, 30 * time.Second},
		{"partition io", cfg.Sharding.PartitionIOCapacity, uint32(16)},
		{"encryption", cfg.Encryption.Enabled, false},
		{"replication", cfg.Cluster.DefaultReplicationFactor, ReplicationAll},
		{"nodes", len(cfg.Cluster.Nodes), 2},
		{"node 2 tcp_replica", *cfg.Cluster.Nodes[1].Ports.TCPReplica, uint16(9091)},
		{"ws frame unset", cfg.WebSocket.MaxFrameSize == nil, true},
		{"trusted issuers", len(cfg.HTTP.JWT.TrustedIssuers), 0},
		{"topic segment", cfg.TopicDefaults.SegmentSize, uint64(1 << 30)},
		{"topic durability", cfg.TopicDefaults.Durability, "replicated"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// covers CONF-1
func TestConfigFileInWorkDir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "config.toml", "[tcp]\naddress = \"127.0.0.1:9999\"\n")
	cfg, warnings, err := Load(LoadOptions{Environ: []string{}, WorkDir: dir})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Load: %v %q", err, warnings)
	}
	if cfg.TCP.Address != "127.0.0.1:9999" || !cfg.TCP.Enabled {
		t.Errorf("tcp = %+v", cfg.TCP)
	}
}

// covers CONF-2, CONF-4
func TestConfigPathAndEnvPrecedence(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "custom.toml", `
[http]
enabled = false
[http.cors]
allowed_origins = ["https://a.example"]
[system]
path = "from_file"
[[cluster.nodes]]
name = "only"
ip = "10.0.0.1"
replica_id = 0
ports = { tcp = 1, tcp_replica = 2 }
`)
	cfg, _, err := Load(LoadOptions{Environ: []string{"IGGY_CONFIG_PATH=" + path, "IGGY_SYSTEM_PATH=from_env"}, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HTTP.Enabled || cfg.System.Path != "from_env" {
		t.Errorf("http.enabled=%v system.path=%q", cfg.HTTP.Enabled, cfg.System.Path)
	}
	// Arrays are replaced whole, tables merge key by key (config.md §2 rule 7).
	if got := cfg.HTTP.CORS.AllowedOrigins; len(got) != 1 || got[0] != "https://a.example" {
		t.Errorf("allowed_origins = %q", got)
	}
	if len(cfg.Cluster.Nodes) != 1 || cfg.Cluster.Nodes[0].Ports.QUIC != nil {
		t.Errorf("nodes = %+v", cfg.Cluster.Nodes)
	}
	if cfg.HTTP.CORS.AllowedMethods[0] != "GET" || cfg.System.Runtime.Path != "runtime" {
		t.Error("keys the file does not set lost their defaults")
	}
}

// covers CONF-2
func TestMissingExplicitConfigFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.toml")
	_, _, err := load(t, "IGGY_CONFIG_PATH="+missing)
	if !errors.Is(err, ErrInvalidConfiguration) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("err = %v, want one naming %s", err, missing)
	}
	dir := t.TempDir()
	writeFile(t, dir, "bad.toml", "[tcp\n")
	_, _, err = Load(LoadOptions{Environ: []string{"IGGY_CONFIG_PATH=bad.toml"}, WorkDir: dir})
	if err == nil || !strings.Contains(err.Error(), "bad.toml") {
		t.Fatalf("err = %v", err)
	}
}

// covers CONF-3, CONF-4
func TestEnvOverridesNestedKeys(t *testing.T) {
	cfg, warnings := mustLoad(t,
		"IGGY_TCP_ADDRESS=127.0.0.1:7000",
		"IGGY_HTTP_ENABLED=FALSE",
		"IGGY_HTTP_JWT_ACCESS_TOKEN_EXPIRY=unlimited",
		"IGGY_TCP_TLS_ENABLED=true",
		"IGGY_QUIC_SEND_WINDOW=1048576",
		"IGGY_QUIC_RECEIVE_WINDOW=2 MiB",
		"IGGY_QUIC_STREAM_RECEIVE_WINDOW=1MiB",
		"IGGY_WEBSOCKET_MAX_MESSAGE_SIZE=32 MiB",
		"IGGY_MESSAGE_BUS_MAX_MESSAGE_SIZE=32 MiB",
		"IGGY_PARTITION_TRANSFER_ARTIFACT_BYTES_MAX=1056 MiB",
		"IGGY_HTTP_CORS_ALLOWED_ORIGINS=[https://a.example, https://b.example]",
		"IGGY_SHARDING_CPU_ALLOCATION=2",
		"IGGY_CLUSTER_HEARTBEAT_TIMEOUT=5005ms",
		"IGGY_WEBSOCKET_MAX_FRAME_SIZE=1 MiB",
		"IGGY_CLUSTER_DEFAULT_REPLICATION_FACTOR=3",
		"IGGY_HEARTBEAT_INTERVAL=",
	)
	warnings = slices.DeleteFunc(warnings, func(w string) bool { return strings.Contains(w, "not honoured yet") })
	if len(warnings) != 1 {
		t.Errorf("warnings = %q", warnings)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"tcp.address", cfg.TCP.Address, "127.0.0.1:7000"},
		{"http.enabled", cfg.HTTP.Enabled, false},
		{"expiry", cfg.HTTP.JWT.AccessTokenExpiry.Kind, ExpiryNever},
		{"tcp.tls.enabled", cfg.TCP.TLS.Enabled, true},
		{"send window (bare integer = bytes)", cfg.QUIC.SendWindow, uint64(1 << 20)},
		{"receive window", cfg.QUIC.ReceiveWindow, uint64(2 << 20)},
		{"bus", cfg.MessageBus.MaxMessageSize, uint64(32 << 20)},
		{"origins", strings.Join(cfg.HTTP.CORS.AllowedOrigins, " "), "https://a.example https://b.example"},
		{"cpu", cfg.Sharding.CPUAllocation.ShardCount(8), 2},
		{"tick quantised", cfg.Cluster.HeartbeatTimeout, 5 * time.Second},
		{"ws frame", *cfg.WebSocket.MaxFrameSize, uint64(1 << 20)},
		{"replication", cfg.Cluster.DefaultReplicationFactor, ReplicationFactor(3)},
		{"empty value ignored", cfg.Heartbeat.Interval, 30 * time.Second},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// covers CONF-3
func TestEnvArrayOfTablesReplacesRoster(t *testing.T) {
	cfg, _ := mustLoad(t,
		"IGGY_CLUSTER_NODES_0_NAME=a", "IGGY_CLUSTER_NODES_0_IP=10.0.0.1", "IGGY_CLUSTER_NODES_0_REPLICA_ID=0",
		"IGGY_CLUSTER_NODES_0_PORTS_TCP=8090", "IGGY_CLUSTER_NODES_0_PORTS_TCP_REPLICA=9090",
		"IGGY_CLUSTER_NODES_0_ADVERTISED_ADDRESSES_1_CLIENT_CIDR=10.0.0.0/8",
		"IGGY_CLUSTER_NODES_0_ADVERTISED_ADDRESSES_1_ADDRESS=edge.example",
		"IGGY_CLUSTER_NODES_0_ADVERTISED_ADDRESSES_0_CLIENT_CIDR=192.168.0.0/16",
		"IGGY_CLUSTER_NODES_0_ADVERTISED_ADDRESSES_0_ADDRESS=lan.example",
	)
	if len(cfg.Cluster.Nodes) != 1 {
		t.Fatalf("nodes = %+v, want the env roster only", cfg.Cluster.Nodes)
	}
	n := cfg.Cluster.Nodes[0]
	if n.Name != "a" || n.IP != "10.0.0.1" || *n.Ports.TCPReplica != 9090 || n.Ports.HTTP != nil {
		t.Errorf("node = %+v", n)
	}
	if len(n.AdvertisedAddresses) != 2 || n.AdvertisedAddresses[1].Address != "edge.example" {
		t.Errorf("advertised = %+v", n.AdvertisedAddresses)
	}
	// A gap in the indexes leaves an empty table, which lacks required keys.
	_, _, err := load(t, "IGGY_CLUSTER_NODES_1_NAME=b")
	if err == nil || !strings.Contains(err.Error(), "cluster.nodes[0].name: missing required key") {
		t.Errorf("err = %v", err)
	}
	// Indexes above the ceiling (or not canonical) are not configuration variables.
	_, warnings, err := load(t, "IGGY_CLUSTER_NODES_0_ADVERTISED_ADDRESSES_16_ADDRESS=x", "IGGY_CLUSTER_NODES_01_NAME=x")
	if !unknownEnvIsFatal && (err != nil || len(warnings) != 3) || unknownEnvIsFatal && err == nil {
		t.Errorf("warnings = %q, err = %v; want two unknown variables", warnings, err)
	}
}

// covers CONF-12
func TestTrustedIssuersByUsername(t *testing.T) {
	cfg, _ := mustLoad(t,
		"IGGY_HTTP_JWT_TRUSTED_ISSUERS_0_ISSUER=https://auth.example",
		"IGGY_HTTP_JWT_TRUSTED_ISSUERS_0_AUDIENCE=iggy",
		"IGGY_HTTP_JWT_TRUSTED_ISSUERS_0_JWKS_URL=https://auth.example/jwks",
		"IGGY_HTTP_JWT_TRUSTED_ISSUERS_0_USERNAME=svc",
	)
	if got := cfg.HTTP.JWT.TrustedIssuers; len(got) != 1 || got[0].Username != "svc" {
		t.Fatalf("trusted issuers = %+v", got)
	}
	_, _, err := load(t, "IGGY_HTTP_JWT_TRUSTED_ISSUERS_0_USER_ID=5")
	if err == nil || !strings.Contains(err.Error(), "IGGY_HTTP_JWT_TRUSTED_ISSUERS_0_USERNAME") {
		t.Errorf("user_id variable: err = %v", err)
	}
	dir := t.TempDir()
	writeFile(t, dir, "config.toml", "[[http.jwt.trusted_issuers]]\nissuer = \"i\"\naudience = \"a\"\njwks_url = \"u\"\nuser_id = 3\n")
	_, _, err = Load(LoadOptions{Environ: []string{}, WorkDir: dir})
	if err == nil || !strings.Contains(err.Error(), "use username") {
		t.Errorf("user_id key: err = %v", err)
	}
}

// covers CONF-3
func TestEnvTypeInferenceErrors(t *testing.T) {
	cases := []struct{ env, want string }{
		// An all-digit value is a number and does not decode into a string key.
		{"IGGY_CLUSTER_NAME=2024", "cluster.name (from IGGY_CLUSTER_NAME): expected a string, got an integer 2024"},
		// A duration needs a unit.
		{"IGGY_CLUSTER_SUPERBLOCK_WEDGED_FATAL_TIMEOUT=0", "expected a duration with a unit"},
		{"IGGY_HTTP_ENABLED=yes", "expected true or false"},
		{"IGGY_CLUSTER_NODES_0_REPLICA_ID=300\x00IGGY_CLUSTER_NODES_0_NAME=a\x00IGGY_CLUSTER_NODES_0_IP=h\x00IGGY_CLUSTER_NODES_0_PORTS_TCP=1",
			"cluster.nodes[0].replica_id (from IGGY_CLUSTER_NODES_0_REPLICA_ID): an integer 300 does not fit 8 bits"},
		{"IGGY_HTTP_CORS_ALLOWED_ORIGINS=https://a.example", "expected a list"},
		{"IGGY_PERSONAL_ACCESS_TOKEN_MAX_TOKENS_PER_USER=-1", "must not be negative"},
		{"IGGY_QUIC_INITIAL_MTU=1.5", "expected a size"},
	}
	for _, c := range cases {
		_, _, err := load(t, strings.Split(c.env, "\x00")...)
		if err == nil || !errors.Is(err, ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.env, err, c.want)
		}
	}
}

// covers CONF-10
func TestRelocatedKeysRefused(t *testing.T) {
	envCases := []struct{ env, want string }{
		{"IGGY_CONSUMER_GROUP_SESSION_TIMEOUT=10s", "(config key consumer_group.session_timeout) is no longer supported; use heartbeat.interval"},
		{"IGGY_SYSTEM_SEGMENT_SIZE=1GiB", "(config key system.segment.size) is no longer supported; use topic option segment_size"},
		{"IGGY_SYSTEM_TOPIC_MAX_SIZE=1GiB", "use topic option max_topic_size"},
		{"IGGY_SYSTEM_MESSAGE_DEDUPLICATION_ENABLED=true", "system.message_deduplication"},
		{"IGGY_EXTRA_ANYTHING=1", "config key extra"},
	}
	for _, c := range envCases {
		_, _, err := load(t, c.env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.env, err, c.want)
		}
	}
	dir := t.TempDir()
	writeFile(t, dir, "config.toml", "[consumer_group]\nsession_timeout = \"10s\"\n[system.partition]\nenforce_fsync = true\n")
	_, _, err := Load(LoadOptions{Environ: []string{}, WorkDir: dir})
	for _, want := range []string{"consumer_group.session_timeout", "system.partition.enforce_fsync", "topic option enforce_fsync"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("file: err = %v, want %q", err, want)
		}
	}
}

// covers CONF-9
func TestUnknownVariableWarns(t *testing.T) {
	if unknownEnvIsFatal {
		t.Skip("debug build: unknown variables are fatal (see TestUnknownVariableFatalInDebugBuild)")
	}
	cfg, warnings := mustLoad(t, "IGGY_TCP_ADRESS=secret-looking-value", "IGGY_ROOT_USERNAME=admin",
		"IGGY_ROOT_PASSWORD=hunter2", "IGGY_CONFIG_PATH=", "IGGY_ENV_PATH=", "IGGY_DISPLAY_CONFIG=0",
		"IGGY_CONNECTORS_SINK_X=1", "IGGY_SHARD_EVENT_INTERVAL=1")
	if cfg.TCP.Address != "127.0.0.1:8090" {
		t.Error("an unknown variable had an effect")
	}
	var unknown []string
	for _, w := range warnings {
		if strings.Contains(w, "unknown environment variable") {
			unknown = append(unknown, w)
		}
		if strings.Contains(w, "secret-looking-value") || strings.Contains(w, "hunter2") {
			t.Errorf("warning leaks a value: %q", w)
		}
	}
	if len(unknown) != 1 || !strings.Contains(unknown[0], "IGGY_TCP_ADRESS") || !strings.Contains(unknown[0], "did you mean IGGY_TCP_ADDRESS") {
		t.Errorf("unknown warnings = %q", unknown)
	}
}

// covers CONF-8, CONF-9
func TestUnknownVariableDecision(t *testing.T) {
	warnings, err := unknownEnvOutcome([]string{"IGGY_NOPE"}, false)
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "IGGY_NOPE") {
		t.Errorf("release: %q %v", warnings, err)
	}
	warnings, err = unknownEnvOutcome([]string{"IGGY_NOPE", "IGGY_NADA"}, true)
	if err == nil || warnings != nil || !strings.Contains(err.Error(), "IGGY_NOPE, IGGY_NADA") {
		t.Errorf("debug: %q %v", warnings, err)
	}
	if w, err := unknownEnvOutcome(nil, true); w != nil || err != nil {
		t.Errorf("none: %q %v", w, err)
	}
}

// covers CONF-11
func TestInvalidLogLevelStopsBoot(t *testing.T) {
	for _, level := range []string{"bogus", "", "info,", "target=loud"} {
		_, _, err := load(t, "IGGY_LOGGING_LEVEL="+level)
		if level == "" {
			continue // empty = unset
		}
		if err == nil || !strings.Contains(err.Error(), "logging.level") {
			t.Errorf("level %q: err = %v", level, err)
		}
	}
	for _, level := range []string{"trace", "DEBUG", "warn", "off", "none", "info,iggy::server=debug"} {
		if !ValidLogLevel(level) {
			t.Errorf("level %q refused", level)
		}
	}
}

// covers CONF-3
func TestOldTableNamesStillLoad(t *testing.T) {
	cfg, warnings := mustLoad(t, "IGGY_SYSTEM_SHARDING_CPU_ALLOCATION=all", "IGGY_SYSTEM_LOGGING_LEVEL=debug",
		"IGGY_LOGGING_LEVEL=warn")
	if cfg.Sharding.CPUAllocation.Kind != CPUAll || cfg.Logging.Level != "warn" {
		t.Errorf("sharding=%+v level=%q", cfg.Sharding.CPUAllocation, cfg.Logging.Level)
	}
	if len(warnings) != 3 {
		t.Errorf("warnings = %q", warnings)
	}
	dir := t.TempDir()
	writeFile(t, dir, "config.toml", "[system.logging]\nlevel = \"error\"\n[system.encryption]\nenabled = false\n")
	cfg, warnings, err := Load(LoadOptions{Environ: []string{}, WorkDir: dir})
	if err != nil || cfg.Logging.Level != "error" || len(warnings) != 2 {
		t.Errorf("file aliases: %v %q %q", err, cfg.Logging.Level, warnings)
	}
}

// covers CONF-13
func TestWildcardBindNeedsAdvertisedAddress(t *testing.T) {
	_, _, err := load(t, "IGGY_TCP_ADDRESS=0.0.0.0:8090")
	if err == nil || !strings.Contains(err.Error(), "IGGY_NODE_ADVERTISED_ADDRESS") {
		t.Fatalf("err = %v", err)
	}
	cfg, _ := mustLoad(t, "IGGY_TCP_ADDRESS=0.0.0.0:8090", "IGGY_HTTP_ADDRESS=[::]:3000", "IGGY_NODE_ADVERTISED_ADDRESS=localhost")
	if cfg.Node.AdvertisedAddress != "localhost" {
		t.Errorf("advertised = %q", cfg.Node.AdvertisedAddress)
	}
	_, _, err = load(t, "IGGY_NODE_ADVERTISED_ADDRESS=host.example.:80")
	if err == nil {
		t.Error("advertised address with port accepted")
	}
}

// covers CONF-6, CONF-14
func TestNodeByReplicaID(t *testing.T) {
	cfg, _ := mustLoad(t, "IGGY_CLUSTER_ENABLED=true")
	n, err := cfg.NodeByReplicaID(1)
	if err != nil || n.Name != "iggy-node-2" {
		t.Fatalf("node = %+v, %v", n, err)
	}
	if _, err := cfg.NodeByReplicaID(7); err == nil {
		t.Error("unknown replica id accepted")
	}
	cfg.Cluster.Nodes[0].IP = "0.0.0.0"
	if _, err := cfg.NodeByReplicaID(0); err == nil {
		t.Error("wildcard published address accepted")
	}
	cfg.Cluster.Nodes[0].AdvertisedAddress = "node-0.example"
	if n, err := cfg.NodeByReplicaID(0); err != nil || n.PublishedHost() != "node-0.example" {
		t.Errorf("advertised node: %v", err)
	}
}

func TestClusterTablesRejectUnknownKeys(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "config.toml", "[cluster.auth]\nenabeld = true\n[tcp]\nunknown_but_ignored = 1\n")
	_, _, err := Load(LoadOptions{Environ: []string{}, WorkDir: dir})
	if err == nil || !strings.Contains(err.Error(), "cluster.auth.enabeld") || strings.Contains(err.Error(), "unknown_but_ignored") {
		t.Errorf("err = %v", err)
	}
}
