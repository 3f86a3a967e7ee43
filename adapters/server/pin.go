package server

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// pinThread binds the calling goroutine to its OS thread for good and that
// thread to core (sharding.pin_cores). The goroutine must not unlock: when
// it returns, the runtime retires the thread with its changed affinity.
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
