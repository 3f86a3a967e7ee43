package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/adapters/disk"
	"github.com/iggygo/iggy/adapters/server"
	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/flight"
	"golang.org/x/sys/unix"
)

// shardPlan is how many shards the node runs and the cores its threads are
// confined to (nil: not pinned).
type shardPlan struct {
	count int
	cores []int
}

// planShards reads sharding.cpu_allocation and pin_cores. A replica set runs
// one shard in this build (its partition groups live with the metadata
// group).
func planShards(cfg *config.Config, numCPU int) (shardPlan, string) {
	if cfg.Cluster.Enabled {
		return shardPlan{count: 1}, "shards: 1 (sharding applies to standalone nodes in this build)"
	}
	count := min(max(cfg.Sharding.CPUAllocation.ShardCount(numCPU), 1), server.ShardsMax)
	plan := shardPlan{count: count}
	if cfg.Sharding.PinCores {
		plan.cores = shardCores(cfg.Sharding.CPUAllocation, count)
	}
	return plan, plan.describe()
}

// shardCores is the core of each shard: from the allocation's range, or
// the process's allowed CPUs in order (a count, all, NUMA).
func shardCores(a config.CPUAllocation, count int) []int {
	cores := make([]int, count)
	if a.Kind == config.CPURange {
		for i := range cores {
			cores[i] = int(a.RangeStart) + i
		}
		return cores
	}
	allowed := allowedCPUs()
	for i := range cores {
		cores[i] = allowed[i%len(allowed)]
	}
	return cores
}

// allowedCPUs lists the CPUs this process may run on (its affinity mask),
// or 0..NumCPU-1 when the mask cannot be read.
func allowedCPUs() []int {
	var set unix.CPUSet
	var cpus []int
	if err := unix.SchedGetaffinity(0, &set); err == nil {
		for c := range len(set) * 64 {
			if set.IsSet(c) {
				cpus = append(cpus, c)
			}
		}
	}
	if len(cpus) == 0 {
		for c := range runtime.NumCPU() {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

func (p shardPlan) describe() string {
	if p.cores == nil {
		return fmt.Sprintf("shards: %d (not pinned)", p.count)
	}
	names := make([]string, len(p.cores))
	for i, c := range p.cores {
		names[i] = fmt.Sprint(c)
	}
	return fmt.Sprintf("shards: %d (threads pinned to cores %s)", p.count, strings.Join(names, ","))
}

// pin confines every thread of the process to the plan's cores
// (sharding.pin_cores); threads made later inherit it from their maker.
//
// The shards' loops are goroutines, so pinning confines the process rather
// than locking each loop to a thread of its own: a locked loop is woken by
// a futex handoff to its thread instead of running on whichever thread is
// free, and on two cores (8 actors, 2 shards, 5 s after a 1 s warm-up,
// two interleaved runs each) that cost the warm consumer 1,923 -> 1,608
// MB/s (0.54 -> 0.62 server CPU s/GB); the producer was level (1,426 ->
// 1,396 MB/s). With the allocation naming every core, the confinement
// changes nothing.
func (p shardPlan) pin() error {
	if p.cores == nil {
		return nil
	}
	var set unix.CPUSet
	set.Zero()
	for _, c := range p.cores {
		set.Set(c)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("listing the process's threads: %w", err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		// A thread that ended meanwhile is gone: ESRCH is no failure.
		if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) {
			return fmt.Errorf("sched_setaffinity of thread %d to cores %v: %w", tid, p.cores, err)
		}
	}
	return nil
}

// shardLoops makes every shard's node, disk and loop; shard 0 boots and
// runs jobs and client input. release closes the disks, after the loops end.
type shardLoops struct {
	loops    []*server.Loop
	releases []func()
}

// newShardLoops builds the plan's shards on the data directory.
func newShardLoops(cfg *config.Config, nc node.Config, plan shardPlan, jobs *server.Jobs, hub *transport.Hub,
	log *slog.Logger, box *flightBox, booted func()) (*shardLoops, error) {
	s := &shardLoops{}
	for i := range plan.count {
		d, err := s.openDisk(cfg, log, i == 0)
		if err != nil {
			s.release()
			return nil, err
		}
		nc.Shard, nc.Shards = uint8(i), uint8(plan.count)
		rec := box.shard(uint8(i))
		var n *node.Node
		if rec != nil {
			n = node.New(nc, rec.Crypto(tokens{}))
		} else {
			n = node.New(nc, tokens{})
		}
		var l *server.Loop
		if i == 0 {
			bootNode(n, rec)
			l = server.NewLoop(n, diskAdapter{d}, jobs, hub, log, booted)
		} else {
			l = server.NewHostLoop(n, diskAdapter{d}, hub, log.With("shard", i))
		}
		if rec != nil {
			l.Record(rec, box.crashed)
		}
		s.loops = append(s.loops, l)
	}
	server.ConnectShards(s.loops, int(cfg.Sharding.InboxCapacity))
	return s, nil
}

// bootNode boots the front node, through its recorder when it has one.
func bootNode(n *node.Node, rec *flight.Shard) {
	if rec != nil {
		rec.Boot(n)
		return
	}
	n.Boot()
}

// openDisk gives a shard its own disk executor (workers and, with
// io_uring, its own ring) on the shared data directory. Its workers are
// sharding.partition_io_capacity: the file jobs that run at once on the
// shard, while a stalled one holds back neither other files nor the loop
// (FLOW-8).
func (s *shardLoops) openDisk(cfg *config.Config, log *slog.Logger, first bool) (*disk.Disk, error) {
	backend, backendLine, releaseBackend, err := disk.SelectBackend(cfg.System.IOBackend)
	if err != nil {
		return nil, err
	}
	if first {
		log.Info(backendLine + ", one per shard")
	}
	d, err := disk.New(cfg.System.Path, disk.Options{
		Backend: backend, Workers: int(cfg.Sharding.PartitionIOCapacity), RequestsQueuedMax: diskRequestsQueuedMax,
	})
	if err != nil {
		releaseBackend()
		return nil, fmt.Errorf("opening storage %s: %w", cfg.System.Path, err)
	}
	s.releases = append(s.releases, func() {
		d.Close()
		releaseBackend() // after the disk: no operation may be in flight
	})
	return d, nil
}

// release closes every shard's disk; call it once the loops have returned.
func (s *shardLoops) release() {
	for i := len(s.releases) - 1; i >= 0; i-- {
		s.releases[i]()
	}
}
