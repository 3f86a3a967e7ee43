package disk

import (
	"math"
	"path"
	"strings"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// rootName is the data root itself; only OpList may name it.
const rootName = "."

// Bounds on a single request, far above what the core asks for.
const (
	ReadBytesMax   = 64 << 20
	WriteBytesMax  = 1 << 30
	ListEntriesMax = 1 << 16
	pathBytesMax   = 4096
)

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
	return name == dir || strings.HasPrefix(name, dir+"/")
}

// checkRequest asserts that req is well formed. Requests come from the core,
// so a bad one is a bug, not input to refuse.
func checkRequest(req *storage.Request) {
	op := req.Op
	assert.That(op >= storage.OpCreate && op <= storage.OpList, "request %d: unknown op %d", req.ID, op)
	rootOK := op == storage.OpList && req.File == rootName
	assert.That(rootOK || validName(req.File), "request %d (%v): bad path %q", req.ID, op, req.File)
	if op == storage.OpRename {
		assert.That(validName(req.Target), "request %d (rename): bad target %q", req.ID, req.Target)
		assert.That(!within(req.File, req.Target) && !within(req.Target, req.File),
			"request %d: rename %q onto %q, which contain each other", req.ID, req.File, req.Target)
	} else {
		assert.That(req.Target == "", "request %d (%v): target %q set", req.ID, op, req.Target)
	}
	assert.That(op == storage.OpWrite || len(req.Data) == 0, "request %d (%v): data set", req.ID, op)
	assert.That(op == storage.OpRead || req.Len == 0, "request %d (%v): length set", req.ID, op)
	assert.That(req.Offset <= math.MaxInt64/2, "request %d: offset %d too large", req.ID, req.Offset)
	switch op {
	case storage.OpWrite:
		assert.That(req.Size() <= WriteBytesMax, "request %d: write of %d bytes", req.ID, req.Size())
	case storage.OpRead:
		assert.That(req.Len <= ReadBytesMax, "request %d: read of %d bytes", req.ID, req.Len)
		assert.That(req.Into == nil || uint64(cap(req.Into)) >= req.Len,
			"request %d: read of %d bytes into a buffer of %d", req.ID, req.Len, cap(req.Into))
	}
	assert.That(op == storage.OpRead || req.Into == nil, "request %d (%v): read buffer set", req.ID, op)
}

// lockMode says how a request holds a name while it runs.
type lockMode uint8

const (
	// modeBelow: the request works on something strictly below this name.
	modeBelow lockMode = iota + 1
	// modeExact: the request works on this name itself (and, for a
	// directory, on everything below it).
	modeExact
)

type claim struct {
	name string
	mode lockMode
}

// claimsOf lists the names a request holds: each name it operates on exactly,
// and every ancestor of those (the root included) as "below". Two requests
// then conflict exactly when one's path equals or contains the other's, which
// orders a DeleteTree or List of a directory with everything under it.
func claimsOf(req *storage.Request) []claim {
	names := []string{req.File}
	if req.Op == storage.OpRename {
		names = append(names, req.Target)
	}
	var claims []claim
	for _, name := range names {
		claims = append(claims, claim{name, modeExact})
		for dir := parentName(name); dir != ""; dir = parentName(dir) {
			claims = addBelow(claims, dir)
		}
	}
	return claims
}

// addBelow adds a "below" claim on dir unless one on dir is already there.
func addBelow(claims []claim, dir string) []claim {
	for _, c := range claims {
		if c.name == dir {
			return claims
		}
	}
	return append(claims, claim{dir, modeBelow})
}

// parentName is the directory containing name: "" for the root itself.
func parentName(name string) string {
	if name == rootName {
		return ""
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return rootName
}
