package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/core/vsr"
)

// The partition repair budgets reach the node: the shared repair memory
// and one partition's bound (1 GiB and 512 MiB by default, and from the
// environment like any key); so does the lifetime of quorum evidence,
// K = cluster.heartbeat_timeout + 3 s in 10 ms ticks (8 s by default).
// covers VSR-20, VSR-21, QEV-2
func TestNodeConfigRepairBudgets(t *testing.T) {
	for _, tc := range []struct {
		env            []string
		repair, walMax uint64
		evidenceTicks  uint64
	}{
		{nil, 1 << 30, 512 << 20, 800},
		{[]string{"IGGY_PARTITION_REPAIR_MEMORY_BYTES_MAX=64 MiB", "IGGY_PARTITION_WAL_BYTES_MAX=256 MiB"}, 64 << 20, 256 << 20, 800},
		{[]string{"IGGY_CLUSTER_HEARTBEAT_TIMEOUT=2s"}, 1 << 30, 512 << 20, 500},
		{[]string{"IGGY_CLUSTER_HEARTBEAT_TIMEOUT=7s"}, 1 << 30, 512 << 20, 1000},
	} {
		cfg, _, err := config.Load(config.LoadOptions{Environ: tc.env, WorkDir: t.TempDir(), NumCPU: 2})
		if err != nil {
			t.Fatalf("load %v: %v", tc.env, err)
		}
		nc, err := nodeConfig(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if nc.RepairMemoryBytesMax != tc.repair || nc.WALBytesMax != tc.walMax {
			t.Fatalf("%v: repair %d, wal %d", tc.env, nc.RepairMemoryBytesMax, nc.WALBytesMax)
		}
		if nc.EvidenceTicks != tc.evidenceTicks {
			t.Fatalf("%v: evidence lasts %d ticks, want %d", tc.env, nc.EvidenceTicks, tc.evidenceTicks)
		}
	}
}

// The [cluster] timing keys reach every consensus group of the node in
// 10 ms ticks: the defaults are the core's constants, and a changed key
// changes its timeout, with no boot warning that it is ignored
// (core/node's TestClusterViewChangeTimeoutFollowsConfig shows a changed
// timeout changing when a backup takes over).
func TestNodeConfigVSRTimings(t *testing.T) {
	def := vsr.Timeouts{HeartbeatTicks: vsr.HeartbeatTicks, ViewChangeTimeoutTicks: vsr.ViewChangeTimeoutTicks,
		StepDownTicks: vsr.StepDownTicks, RecoveringTimeoutTicks: vsr.RecoveringTimeoutTicks,
		ViewChangeRetransmitTicks: vsr.ViewChangeRetransmitTicks, ViewChangeStatusTicks: vsr.ViewChangeStatusTicks,
		RequestStartViewTicks: vsr.RequestStartViewTicks, RepairTicks: vsr.RepairTicks, RepairOps: 128}
	changed := vsr.Timeouts{HeartbeatTicks: 20, ViewChangeTimeoutTicks: 200, StepDownTicks: 200, RecoveringTimeoutTicks: 200,
		ViewChangeRetransmitTicks: 30, ViewChangeStatusTicks: 900, RequestStartViewTicks: 70, RepairTicks: 40, RepairOps: 64}
	for _, tc := range []struct {
		env  []string
		want vsr.Timeouts
	}{
		{nil, def},
		{[]string{"IGGY_CLUSTER_COMMIT_BROADCAST_INTERVAL=200ms", "IGGY_CLUSTER_HEARTBEAT_TIMEOUT=2s",
			"IGGY_CLUSTER_VIEW_CHANGE_RETRANSMIT_INTERVAL=300ms", "IGGY_CLUSTER_VIEW_CHANGE_STATUS_TIMEOUT=9s",
			"IGGY_CLUSTER_REQUEST_START_VIEW_RETRANSMIT_INTERVAL=700ms", "IGGY_CLUSTER_REPAIR_RETRY_INTERVAL=400ms",
			"IGGY_CLUSTER_REPAIR_CHUNK_MAX=64"}, changed},
	} {
		cfg, warnings, err := config.Load(config.LoadOptions{Environ: tc.env, WorkDir: t.TempDir(), NumCPU: 2})
		if err != nil {
			t.Fatalf("load %v: %v", tc.env, err)
		}
		for _, w := range warnings {
			if strings.Contains(w, "not honoured") {
				t.Fatalf("%v: warned %q", tc.env, w)
			}
		}
		nc, err := nodeConfig(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if nc.VSR != tc.want {
			t.Fatalf("%v: %+v, want %+v", tc.env, nc.VSR, tc.want)
		}
	}
}

// The shard count follows sharding.cpu_allocation on a standalone node; a
// cluster runs one shard; pin_cores picks a core per shard.
func TestPlanShards(t *testing.T) {
	for _, tc := range []struct {
		env    []string
		count  int
		pinned bool
		first  int // the first shard's core when pinned
	}{
		{nil, 2, true, -1}, // numa:auto: one per available CPU
		{[]string{"IGGY_SHARDING_CPU_ALLOCATION=1"}, 1, true, -1},
		{[]string{"IGGY_SHARDING_CPU_ALLOCATION=2", "IGGY_SHARDING_PIN_CORES=false"}, 2, false, 0},
		{[]string{"IGGY_SHARDING_CPU_ALLOCATION=1..2"}, 1, true, 1},
		{[]string{"IGGY_SHARDING_CPU_ALLOCATION=2", "IGGY_CLUSTER_ENABLED=true"}, 1, false, 0},
	} {
		cfg, _, err := config.Load(config.LoadOptions{Environ: tc.env, WorkDir: t.TempDir(), NumCPU: 2})
		if err != nil {
			t.Fatalf("load %v: %v", tc.env, err)
		}
		plan, line := planShards(cfg, 2)
		if plan.count != tc.count || (plan.cores != nil) != tc.pinned || (plan.cores != nil && len(plan.cores) != plan.count) {
			t.Fatalf("%v: plan %+v (%s)", tc.env, plan, line)
		}
		if tc.pinned && tc.first >= 0 && plan.cores[0] != tc.first {
			t.Fatalf("%v: first shard on core %d, want %d", tc.env, plan.cores[0], tc.first)
		}
	}
}

// Pinning confines every thread of the process to the plan's cores: one
// core here, then every allowed core again.
func TestPinConfinesThreads(t *testing.T) {
	allowed := allowedCPUs()
	restore := shardPlan{count: 1, cores: allowed}
	t.Cleanup(func() {
		if err := restore.pin(); err != nil {
			t.Errorf("restoring the affinity: %v", err)
		}
	})
	one := shardPlan{count: 1, cores: allowed[len(allowed)-1:]}
	if err := one.pin(); err != nil {
		t.Fatal(err)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &set); err != nil {
			continue // the thread ended meanwhile
		}
		if set.Count() != 1 || !set.IsSet(one.cores[0]) {
			t.Fatalf("thread %d may run on %d cores, want only core %d", tid, set.Count(), one.cores[0])
		}
	}
}
