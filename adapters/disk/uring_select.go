package disk

import (
	"errors"
	"fmt"
)

// Backend kinds, the values of the system.io_backend setting.
const (
	BackendAuto   = "auto"   // io_uring where the kernel allows it, else pwrite
	BackendUring  = "uring"  // io_uring or refuse to start
	BackendPwrite = "pwrite" // blocking pwritev/pread/fdatasync
)

// SelectBackend returns the backend of kind, a line saying which one runs
// (and, for auto, why io_uring is not used), and a function to release it
// once the Disk using it is closed.
func SelectBackend(kind string) (Backend, string, func(), error) {
	noop := func() {}
	switch kind {
	case BackendPwrite:
		return Pwrite{}, "io backend: pwrite (configured)", noop, nil
	case BackendUring, BackendAuto:
		u, err := NewUring()
		if err == nil {
			return u, fmt.Sprintf("io backend: io_uring (%d entries)", u.r.entries), u.Shutdown, nil
		}
		if kind == BackendAuto && errors.Is(err, errUringUnsupported) {
			return Pwrite{}, fmt.Sprintf("io backend: pwrite (fallback: %v)", err), noop, nil
		}
		return nil, "", noop, fmt.Errorf("disk: %w", err)
	}
	return nil, "", noop, fmt.Errorf("disk: io backend %q: want %s, %s or %s", kind, BackendAuto, BackendUring, BackendPwrite)
}
