package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// dropCachesPath is the kernel's switch for dropping clean cached pages.
const dropCachesPath = "/proc/sys/vm/drop_caches"

// dropPageCache writes every dirty page back, then drops the clean ones
// (1: the page cache), so what the server reads next comes from the device:
// the cold-cache read of --cold. It needs root, and only makes sense with
// the server on this machine.
func dropPageCache() error {
	unix.Sync()
	if err := os.WriteFile(dropCachesPath, []byte("1"), 0); err != nil {
		return fmt.Errorf("--cold: dropping the page cache (%s; needs root): %w", dropCachesPath, err)
	}
	return nil
}
