package server

import "sync/atomic"

// Counters are what every shard loop of a process counts for /metrics:
// the loops add, the HTTP adapter reads.
type Counters struct {
	diskWriteFailures atomic.Uint64
}

// DiskWriteFailures is the number of partition writes, creates and syncs
// that failed since the process started (each one broke its partition
// until a reopen, node/writeretry.go).
func (c *Counters) DiskWriteFailures() uint64 { return c.diskWriteFailures.Load() }

// CountInto makes the loop add its counts to c.
func (l *Loop) CountInto(c *Counters) { l.counters = c }
