package server

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// pinThread binds the calling goroutine to its OS thread for good and that
// thread to core (sharding.pin_cores). The goroutine must not unlock: when
// it returns, the runtime retires the thread with its changed affinity.
//
// Pinning is honoured but does not pay on a small machine: a locked loop
// is woken by a handoff to its own thread instead of running on whichever
// thread is free, and its core is shared with the connection readers,
// writers and disk workers anyway. On 2 cores (iggy-bench, 8 actors, 2
// shards, 6 to 8 interleaved runs each, medians) pinning cost the
// producer 724 -> 664 MB/s (1.27 -> 1.35 server CPU s/GB) and the
// consumer 0.60 -> 0.69 s/GB at the same 1.3 GB/s.
func pinThread(core int) error {
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Zero()
	set.Set(core)
	if err := unix.SchedSetaffinity(0, &set); err != nil { // 0: the calling thread
		return fmt.Errorf("sched_setaffinity to core %d: %w", core, err)
	}
	return nil
}
