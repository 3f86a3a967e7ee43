package disk

import (
	"path"
	"strings"
)

// rootName is the data root itself; only OpList may name it (as adapters/disk).
const rootName = "."

// pathBytesMax bounds a request path, as the real disk does.
const pathBytesMax = 4096

// validName reports whether name is a clean relative path below the root:
// no leading '/', no empty, '.' or '..' components, no trailing '/'.
func validName(name string) bool {
	if name == "" || len(name) > pathBytesMax || strings.IndexByte(name, 0) >= 0 {
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

// within reports whether name is dir or lies below it.
func within(name, dir string) bool {
	if dir == rootName {
		return true
	}
	// No concatenation: the disk asks this for every pair of pending
	// requests, so it must not allocate.
	return name == dir || len(name) > len(dir) && name[len(dir)] == '/' && strings.HasPrefix(name, dir)
}

// parentName is the directory holding name: "." for a top-level name, ""
// for the root itself.
func parentName(name string) string {
	if name == rootName {
		return ""
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return rootName
}

// baseName is the last component of name.
func baseName(name string) string {
	return name[strings.LastIndexByte(name, '/')+1:]
}
