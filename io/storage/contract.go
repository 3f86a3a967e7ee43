package storage

import (
	"fmt"
	"math"
	"path"
	"strings"
)

// RootName is the data root itself; only OpList may name it.
const RootName = "."

// Bounds on a single request, far above what the core asks for. Every disk
// (adapters/disk, the simulator's) holds requests to the same contract.
const (
	ReadBytesMax   = 64 << 20
	WriteBytesMax  = 1 << 30
	ListEntriesMax = 1 << 16
	PathBytesMax   = 4096
	// offsetMax keeps Offset+size far from overflowing an int64 file offset.
	offsetMax = math.MaxInt64 / 2
)

// Check reports what is wrong with r, or nil. Requests come from the core,
// so a disk asserts on a non-nil answer: a bad request is a bug, not input.
func (r *Request) Check() error {
	op := r.Op
	if op < OpCreate || op > OpList {
		return fmt.Errorf("request %d: unknown op %d", r.ID, op)
	}
	if !(op == OpList && r.File == RootName) && !ValidName(r.File) {
		return fmt.Errorf("request %d (%v): bad path %q", r.ID, op, r.File)
	}
	if err := r.checkTarget(); err != nil {
		return err
	}
	switch {
	case op != OpWrite && len(r.Data) != 0:
		return fmt.Errorf("request %d (%v): data set", r.ID, op)
	case op != OpRead && r.Len != 0:
		return fmt.Errorf("request %d (%v): length set", r.ID, op)
	case op != OpRead && r.Into != nil:
		return fmt.Errorf("request %d (%v): read buffer set", r.ID, op)
	case r.Offset > offsetMax:
		return fmt.Errorf("request %d: offset %d too large", r.ID, r.Offset)
	case op == OpWrite && r.Size() > WriteBytesMax:
		return fmt.Errorf("request %d: write of %d bytes", r.ID, r.Size())
	case op == OpRead && r.Len > ReadBytesMax:
		return fmt.Errorf("request %d: read of %d bytes", r.ID, r.Len)
	case op == OpRead && r.Into != nil && uint64(cap(r.Into)) < r.Len:
		return fmt.Errorf("request %d: read of %d bytes into a buffer of %d", r.ID, r.Len, cap(r.Into))
	}
	return nil
}

// checkTarget: only a rename has a target, a valid one that neither
// contains nor lies in the renamed name.
func (r *Request) checkTarget() error {
	if r.Op != OpRename {
		if r.Target != "" {
			return fmt.Errorf("request %d (%v): target %q set", r.ID, r.Op, r.Target)
		}
		return nil
	}
	if !ValidName(r.Target) {
		return fmt.Errorf("request %d (rename): bad target %q", r.ID, r.Target)
	}
	if Within(r.File, r.Target) || Within(r.Target, r.File) {
		return fmt.Errorf("request %d: rename %q onto %q, which contain each other", r.ID, r.File, r.Target)
	}
	return nil
}

// ValidName reports whether name is a clean relative path below the root:
// no leading '/', no empty, '.' or '..' components, no trailing '/', no NUL.
func ValidName(name string) bool {
	if name == "" || len(name) > PathBytesMax || strings.IndexByte(name, 0) >= 0 {
		return false
	}
	if path.IsAbs(name) || path.Clean(name) != name {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "." || part == ".." {
			return false
		}
	}
	return true
}

// Within reports whether name is dir or lies below it. It does not
// allocate: disks ask it for every pair of pending requests.
func Within(name, dir string) bool {
	if dir == RootName {
		return true
	}
	return name == dir || len(name) > len(dir) && name[len(dir)] == '/' && strings.HasPrefix(name, dir)
}

// ParentName is the directory holding name: RootName for a top-level name,
// "" for the root itself.
func ParentName(name string) string {
	if name == RootName {
		return ""
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return RootName
}

// BaseName is the last component of name.
func BaseName(name string) string {
	return name[strings.LastIndexByte(name, '/')+1:]
}
