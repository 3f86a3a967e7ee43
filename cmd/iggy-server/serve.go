package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/adapters/crypto"
	"github.com/iggygo/iggy/adapters/extauth"
	"github.com/iggygo/iggy/adapters/rootcreds"
	"github.com/iggygo/iggy/adapters/server"
	"github.com/iggygo/iggy/adapters/snapshot"
	"github.com/iggygo/iggy/adapters/storagegate"
	"github.com/iggygo/iggy/adapters/tcp"
	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/clock"
	"github.com/iggygo/iggy/io/compute"
)

// serverVersion is this build's version string, reported at login and in stats.
const serverVersion = "0.10.0-go"

// jobWorkers run the node's compute jobs (argon2id, diagnostic archives) off
// the loop, one per core of the target machine. The node hands out as many
// login checks at once (core/node/logins.go), so none waits behind another.
const jobWorkers = 2

// diskRequestsQueuedMax bounds the disk requests in flight; the node's own
// bounds keep it far below.
const diskRequestsQueuedMax = 1 << 20

func serve(f flags, log *slog.Logger, stop <-chan struct{}) error {
	if f.listConfigEnvVars {
		return config.RenderEnvVars(os.Stdout)
	}
	// The level and the log file come from the configuration, so what its
	// loading says waits for the logger it configures.
	var infos []string
	cfg, warnings, err := config.Load(config.LoadOptions{Info: func(line string) { infos = append(infos, line) }})
	if err != nil {
		logAll(log, slog.LevelInfo, infos)
		return &usageError{msg: err.Error()}
	}
	log, logFile := configuredLogger(cfg, infos, warnings)
	defer logFile.Close()
	plan, planLine := planShards(cfg, runtime.NumCPU())
	// Before storage is touched: a limit too low refuses the start (OPS-15).
	connsMax, err := connectionsMax(cfg, plan.count, raiseOpenFileLimit(log))
	if err != nil {
		return err
	}
	notify := newNotifier(log, stop)
	defer notify.Close()
	self, err := clusterSelf(cfg, f, log)
	if err != nil {
		return err
	}
	root, err := prepareStorage(cfg, f)
	if err != nil {
		return err
	}
	ncfg, err := nodeConfig(cfg, root)
	if err != nil {
		return err
	}
	if err := asReplica(&ncfg, cfg, self); err != nil {
		return err
	}
	log.Info(planLine)
	if err := plan.pin(); err != nil {
		log.Warn("cannot pin the server's threads; they run unpinned", "err", err)
	}
	hub := transport.NewHubLimits(transport.Limits{Grace: cfg.MessageBus.HandshakeGrace, ConnectionsMax: connsMax,
		ReplyQueueCapacity: int(cfg.MessageBus.ClientQueueCapacity), WriteStallTimeout: cfg.MessageBus.ClientWriteStallTimeout})
	log.Info("client connection limits", "connections_max", connsMax, "handshake_grace", cfg.MessageBus.HandshakeGrace,
		"pre_login_frame_bytes_max", transport.PreLoginFrameBytesMax, "pre_login_bytes_max", transport.PreLoginBytesMax,
		"client_queue_capacity", cfg.MessageBus.ClientQueueCapacity, "reply_queue_bytes_max", transport.ReplyQueueBytesMax,
		"client_write_stall_timeout", cfg.MessageBus.ClientWriteStallTimeout,
		"client_request_queue_bytes_max", cfg.MessageBus.ClientRequestQueueBytesMax)
	counters := &server.Counters{}
	listeners := &listeners{counters: counters, self: self}
	defer listeners.close(hub)
	var listenErr error
	box := newFlightBox(cfg, ncfg, plan.count, log)
	box.dumpOnSignal(stop)
	sources := snapshotSources(cfg)
	if box != nil {
		sources.FlightDump = box.forArchive
	}
	standIn, err := crypto.StandInHash()
	if err != nil {
		return fmt.Errorf("stand-in password hash: %w", err)
	}
	callouts := extauth.New(cfg.ExternalAuth.URL, cfg.ExternalAuth.Timeout)
	jobs := server.NewJobs(jobWorkers, func(r compute.Request) compute.Result { return runJob(r, sources, standIn, callouts, box) })
	defer jobs.Close()
	shards, err := newShardLoops(cfg, ncfg, plan, jobs, hub, log, box, func() {
		if logFile != nil {
			// The node booted on the storage: the log file may join it.
			if err := logFile.Start(); err != nil {
				log.Warn("cannot write the log file; logging to standard error only", "dir", logDir(cfg), "err", err)
			}
		}
		listenErr = listeners.start(cfg, hub, log)
		if listenErr != nil {
			log.Error("cannot listen", "err", listenErr)
			return
		}
		notify.Ready() // every enabled transport is bound and accepting (OPS-11)
	})
	if err != nil {
		return err
	}
	defer shards.release() // RunShards returns once every loop has ended; nothing submits to the disks then
	closePeers, err := startReplicaPlane(cfg, self, shards.loops[0], log)
	if err != nil {
		return err
	}
	defer closePeers()
	for _, l := range shards.loops {
		l.CountInto(counters)
	}
	if err := server.RunShards(shards.loops, stop); err != nil {
		var fatal *server.FatalError
		if errors.As(err, &fatal) {
			// The node names files relative to the data directory.
			return fmt.Errorf("data directory %s: %w", cfg.System.Path, err)
		}
		return err
	}
	return listenErr
}

// prepareStorage applies --fresh, the storage gate and the root rules.
func prepareStorage(cfg *config.Config, f flags) (*node.RootCredentials, error) {
	if f.fresh {
		if err := storagegate.Fresh(cfg.System.Path); err != nil {
			return nil, err
		}
	}
	if _, err := storagegate.Check(cfg.System.Path); err != nil {
		return nil, err
	}
	dec, err := rootcreds.Resolve(rootcreds.Inputs{
		LookupEnv: os.LookupEnv, WithDefaultRootCredentials: f.withDefaultRootCredentials,
		MetadataExists: metadataExists(cfg.System.Path),
		// A node of a set without credentials waits for root (ROOT-7).
		Clustered: cfg.Cluster.Enabled && len(cfg.Cluster.Nodes) > 1,
	})
	if err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	if dec.Action != rootcreds.ActionCreate {
		return nil, nil
	}
	hash, err := crypto.HashPassword(dec.Credentials.Password())
	if err != nil {
		return nil, fmt.Errorf("hashing the root password: %w", err)
	}
	return &node.RootCredentials{Username: dec.Credentials.Username(), PasswordHash: hash}, nil
}

// evidenceSlack is what quorum evidence outlives the heartbeat timeout by.
const evidenceSlack = 3 * time.Second

func nodeConfig(cfg *config.Config, root *node.RootCredentials) (node.Config, error) {
	host, _ := os.Hostname()
	nc := node.Config{
		ServerVersion: serverVersion, Hostname: host, OSName: runtime.GOOS, OSVersion: runtime.GOARCH,
		ProcessID: uint32(os.Getpid()), MaxTokensPerUser: cfg.PersonalAccessToken.MaxTokensPerUser,
		SegmentSizeBytes:    cfg.TopicDefaults.SegmentSize,
		MessageExpiryMicros: uint64(cfg.TopicDefaults.MessageExpiry / time.Microsecond),
		PartitionCacheBytes: 16 << 20, Root: root,
		// A checkpoint every journal_slots ops keeps the journal replayed at boot short.
		CheckpointEveryOps: uint64(cfg.Metadata.JournalSlots),
		PartitionsMax:      cfg.Metadata.PartitionsMax,
		ClientsTableMax:    cfg.Metadata.ClientsTableMax,
		// SESS-31: the writers whose send receipts a partition keeps.
		DedupClientsMax: cfg.Partition.DedupClientsMax,
		// MCL-29..31: the change log's rings (validated 1..1048576).
		ChangeLogResourceCapacity: cfg.Metadata.ChangeLogResourceCapacity,
		ChangeLogActivityCapacity: cfg.Metadata.ChangeLogActivityCapacity,
		// FLOW-6: the bytes of a connection's queued requests.
		RequestQueueBytesMax: cfg.MessageBus.ClientRequestQueueBytesMax,
		// 0 is "all", as in config.ReplicationAll.
		DefaultReplicationFactor: uint8(cfg.Cluster.DefaultReplicationFactor),
		SkipReadChecksums:        !cfg.System.Partition.ValidateChecksum,
		RepairMemoryBytesMax:     cfg.Partition.RepairMemoryBytesMax,
		WALBytesMax:              cfg.Partition.WALBytesMax,
	}
	if cfg.ExternalAuth.Enabled {
		nc.ExternalAuthCalloutsMax = cfg.ExternalAuth.MaxConcurrentCallouts
	}
	tick := clock.TickMillis * time.Millisecond
	// Quorum evidence lasts cluster.heartbeat_timeout + 3 s (QEV-2).
	nc.EvidenceTicks = uint64((cfg.Cluster.HeartbeatTimeout + evidenceSlack) / tick)
	nc.VSR = vsrTimeouts(cfg.Cluster)
	// Deferred polls wait in ticks; a shorter max_wait still waits one tick.
	nc.DeferredPollMaxWaitTicks = max(uint64(cfg.Sharding.DeferredPollMaxWait/tick), 1)
	nc.DeferredPollMaxPending = cfg.Sharding.DeferredPollMaxPending
	nc.DeferredPollMaxPendingPerSession = cfg.Sharding.DeferredPollMaxPendingPerSession
	nc.DeferredPollReadBytesMax = cfg.Sharding.DeferredPollMaxReadBytes
	nc.DeferredPollInflightBytesMax = cfg.Sharding.DeferredPollMaxInflightBytes
	if cfg.Heartbeat.Enabled {
		nc.HeartbeatIntervalTicks = uint64(cfg.Heartbeat.Interval / tick)
	}
	if cfg.PersonalAccessToken.Cleaner.Enabled {
		nc.TokenCleanerIntervalTicks = uint64(cfg.PersonalAccessToken.Cleaner.Interval / tick)
	}
	var err error
	if nc.Encryption, err = nodeEncryption(cfg.Encryption); err != nil {
		return nc, err
	}
	if nc.AdvertisedHost, nc.TCPPort, err = hostPort(cfg.TCP.Enabled, cfg.TCP.Address); err != nil {
		return nc, err
	}
	if _, nc.HTTPPort, err = hostPort(cfg.HTTP.Enabled, cfg.HTTP.Address); err != nil {
		return nc, err
	}
	if _, nc.QUICPort, err = hostPort(cfg.QUIC.Enabled, cfg.QUIC.Address); err != nil {
		return nc, err
	}
	if _, nc.WSPort, err = hostPort(cfg.WebSocket.Enabled, cfg.WebSocket.Address); err != nil {
		return nc, err
	}
	return nc, nil
}

func hostPort(enabled bool, addr string) (string, uint16, error) {
	if !enabled {
		return "", 0, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, &usageError{msg: fmt.Sprintf("address %q: %v", addr, err)}
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return "", 0, &usageError{msg: fmt.Sprintf("address %q: bad port", addr)}
	}
	return host, uint16(p), nil
}

// listeners are the client transports, started once the node has booted.
type listeners struct {
	counters *server.Counters    // the loops' counts, for /metrics
	self     *config.ClusterNode // this node's roster entry; nil outside a replica set
	tcp      *tcp.Server
	wsListener
	quicListener
	httpListener
}

func (l *listeners) start(cfg *config.Config, hub *transport.Hub, log *slog.Logger) error {
	if err := l.startWebSocket(cfg, hub, log); err != nil {
		return err
	}
	if err := l.startQUIC(cfg, hub, log); err != nil {
		return err
	}
	if err := l.startHTTP(cfg, l.self, hub, log, l.counters); err != nil {
		return err
	}
	if !cfg.TCP.Enabled {
		return nil
	}
	tlsCfg, err := listenerTLS("tcp", cfg.TCP.TLS, log)
	if err != nil {
		return err
	}
	s, err := tcp.Listen(cfg.TCP.Address, tlsCfg, hub, uint32(cfg.MessageBus.MaxMessageSize), log)
	if err != nil {
		return err
	}
	l.tcp = s
	go s.Serve()
	fmt.Printf("tcp listening on %s\n", s.Addr())
	log.Info(fmt.Sprintf("tcp listening on %s", s.Addr()))
	return nil
}

func (l *listeners) close(hub *transport.Hub) {
	if l.tcp != nil {
		_ = l.tcp.Close()
	}
	l.closeWebSocket()
	l.closeQUIC()
	l.closeHTTP()
	hub.CloseAll()
}

// metadataExists reports whether the storage already holds metadata (a
// superblock or a non-empty journal segment), so root exists (ROOT-9).
func metadataExists(systemPath string) bool {
	meta := filepath.Join(systemPath, "metadata")
	for _, name := range []string{"superblock.a", "superblock.b"} {
		if st, err := os.Stat(filepath.Join(meta, name)); err == nil && st.Size() > 0 {
			return true
		}
	}
	entries, _ := os.ReadDir(filepath.Join(meta, "journal"))
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Size() > 0 {
			return true
		}
	}
	return false
}

// snapshotSources are where the diagnostic archive reads from; the
// configuration is shown with secrets masked.
func snapshotSources(cfg *config.Config) snapshot.Sources {
	toml, err := cfg.EffectiveTOML(nil, config.SecretsMasked)
	if err != nil {
		toml = []byte("# cannot render the configuration: " + err.Error() + "\n")
	}
	src := snapshot.Sources{SystemPath: cfg.System.Path, ConfigTOML: string(toml)}
	if cfg.Logging.FileEnabled {
		src.LogDir = logDir(cfg)
	}
	return src
}
