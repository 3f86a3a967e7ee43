package main

import (
	"fmt"
	"log/slog"
	"math"

	"golang.org/x/sys/unix"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/adapters/disk"
)

// exitFDLimit is the exit status of a server whose open-file limit cannot
// cover its storage and connections (OPS-15).
const exitFDLimit = 4

// Descriptors the guard counts beside storage and connections.
const (
	// fdsReservedBase: standard streams, the listeners (TCP, WebSocket,
	// QUIC, HTTP), their spare descriptors (transport.Listener), epoll,
	// each shard's io_uring ring and eventfd, the log file, and the
	// metadata journal and superblock.
	fdsReservedBase = 64
	// fdsPerPartition: a partition's segment log and index, its
	// created.revision and a consumer offset open at once.
	fdsPerPartition = 4
)

// fdLimitError is a limit too low for the configuration.
type fdLimitError struct{ msg string }

func (e *fdLimitError) Error() string { return e.msg }

// raiseOpenFileLimit sets the soft open-file limit to the hard one (OPS-14):
// every partition holds segment, index and offset files open. A refusal
// is logged; the server runs on with the limit it has, which it returns.
func raiseOpenFileLimit(log *slog.Logger) uint64 {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		log.Warn("cannot read the open-file limit", "err", err)
		return 0
	}
	if lim.Cur != lim.Max {
		cur := lim.Cur
		lim.Cur = lim.Max
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
			log.Warn("cannot raise the open-file limit to the hard limit", "hard", lim.Max, "err", err)
			return cur
		}
	}
	log.Info("open-file limit raised to the hard limit", "limit", lim.Max)
	return lim.Max
}

// fdsNeeded is what the configuration can hold open at once: every shard's
// storage descriptor cache (disk.Options.FilesOpenMax bounds it; fewer when
// metadata.partitions_max caps the partitions), a connection for every
// session the client table holds (metadata.clients_table_max), and the
// base reserve.
func fdsNeeded(cfg *config.Config, shards int) (storage, connections, total uint64) {
	perShard := uint64(max(disk.FilesOpenMaxDefault, int(cfg.Sharding.PartitionIOCapacity)+1))
	storage = uint64(shards) * perShard
	if p := uint64(cfg.Metadata.PartitionsMax); p > 0 {
		storage = min(storage, p*fdsPerPartition+uint64(shards)*uint64(cfg.Sharding.PartitionIOCapacity))
	}
	connections = uint64(cfg.Metadata.ClientsTableMax)
	return storage, connections, storage + connections + fdsReservedBase
}

// connectionsMax refuses to start when limit (0: unknown, not checked)
// cannot cover fdsNeeded: storage would otherwise run out of descriptors
// under load (where the reference exits with status 4, OPS-15, and this
// node retries the failed writes), so it says so at boot instead, with the
// numbers to fix. Otherwise it is
// the bound on open client connections (transport.Gate): what the limit
// leaves after storage and the reserve, at least clients_table_max, so a
// flood of connections can never take storage's descriptors.
func connectionsMax(cfg *config.Config, shards int, limit uint64) (int, error) {
	storage, connections, total := fdsNeeded(cfg, shards)
	if limit == 0 {
		return 0, nil
	}
	if limit >= total {
		return int(min(limit-storage-fdsReservedBase, math.MaxInt32)), nil
	}
	return 0, &fdLimitError{msg: fmt.Sprintf("the open-file limit %d cannot cover %d descriptors: %d for storage (%d shards), "+
		"%d for connections (metadata.clients_table_max) and %d reserved; raise the hard limit (ulimit -Hn, LimitNOFILE=) "+
		"or lower metadata.clients_table_max or metadata.partitions_max",
		limit, total, storage, shards, connections, fdsReservedBase)}
}
