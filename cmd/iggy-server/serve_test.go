package main

import (
	"testing"

	"github.com/iggygo/iggy/adapters/config"
)

// The partition repair budgets reach the node: the shared repair memory
// and one partition's bound (1 GiB and 512 MiB by default, and from the
// environment like any key); so does the lifetime of quorum evidence.
// covers VSR-20, VSR-21, QEV-2
func TestNodeConfigRepairBudgets(t *testing.T) {
	for _, tc := range []struct {
		env            []string
		repair, walMax uint64
	}{
		{nil, 1 << 30, 512 << 20},
		{[]string{"IGGY_PARTITION_REPAIR_MEMORY_BYTES_MAX=64 MiB", "IGGY_PARTITION_WAL_BYTES_MAX=256 MiB"}, 64 << 20, 256 << 20},
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
		if nc.EvidenceTicks != 800 { // heartbeat_timeout 5 s + 3 s, in 10 ms ticks (QEV-2)
			t.Fatalf("evidence lasts %d ticks", nc.EvidenceTicks)
		}
	}
}
