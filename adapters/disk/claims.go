package disk

import (
	"github.com/iggygo/iggy/io/storage"
)

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
		for dir := storage.ParentName(name); dir != ""; dir = storage.ParentName(dir) {
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
