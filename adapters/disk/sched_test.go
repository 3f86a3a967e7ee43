package disk

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/iggygo/iggy/io/storage"
)

// conflicts is the rule the scheduler must enforce, written independently:
// two requests conflict when a name of one equals or contains a name of the other.
func conflicts(a, b *storage.Request) bool {
	for _, x := range namesOf(a) {
		for _, y := range namesOf(b) {
			if storage.Within(x, y) || storage.Within(y, x) {
				return true
			}
		}
	}
	return false
}

func namesOf(r *storage.Request) []string {
	if r.Op == storage.OpRename {
		return []string{r.File, r.Target}
	}
	return []string{r.File}
}

// Whatever order runnable requests finish in, no request starts before every
// earlier conflicting request has completed, and every request eventually runs.
func TestSchedulerRespectsConflicts(t *testing.T) {
	paths := []string{"a", "a/b", "a/b/c", "a/b/d", "a/e", "f", "f/g", "h"}
	ops := []storage.Op{storage.OpWrite, storage.OpSync, storage.OpDeleteTree, storage.OpList, storage.OpRename}
	rapid.Check(t, func(t *rapid.T) {
		s := newScheduler()
		var all []*node
		started := map[*node]int{}
		completed := map[*node]int{}
		clock := 0
		var running []*node
		steps := rapid.IntRange(1, 200).Draw(t, "steps")
		for step := 0; ; step++ {
			var possible []string
			if step < steps {
				possible = append(possible, "add")
			}
			if s.peek() != nil {
				possible = append(possible, "start")
			}
			if len(running) > 0 {
				possible = append(possible, "finish")
			}
			if len(possible) == 0 {
				if s.pending > 0 {
					t.Fatalf("stuck with %d pending and nothing runnable", s.pending)
				}
				break
			}
			clock++
			switch rapid.SampledFrom(possible).Draw(t, "action") {
			case "add":
				n := randomNode(t, len(all), paths, ops)
				all = append(all, n)
				s.add(n)
			case "start":
				n := s.peek()
				s.pop()
				started[n] = clock
				running = append(running, n)
			case "finish":
				i := rapid.IntRange(0, len(running)-1).Draw(t, "finish")
				n := running[i]
				running = append(running[:i], running[i+1:]...)
				completed[n] = clock
				s.complete(n)
			}
		}
		for i, a := range all {
			for _, b := range all[i+1:] {
				if conflicts(&a.req, &b.req) && started[b] < completed[a] {
					t.Fatalf("%s started before earlier conflicting %s completed", describe(b), describe(a))
				}
			}
		}
		if len(s.locks) != 0 {
			t.Fatalf("%d name locks left after everything completed", len(s.locks))
		}
	})
}

func randomNode(t *rapid.T, id int, paths []string, ops []storage.Op) *node {
	req := storage.Request{ID: storage.ReqID(id), Op: rapid.SampledFrom(ops).Draw(t, "op"), File: rapid.SampledFrom(paths).Draw(t, "file")}
	if req.Op == storage.OpList && rapid.Bool().Draw(t, "root") {
		req.File = storage.RootName
	}
	if req.Op == storage.OpRename {
		req.Target = rapid.SampledFrom(paths).Draw(t, "target")
		if storage.Within(req.File, req.Target) || storage.Within(req.Target, req.File) {
			req.Op, req.Target = storage.OpSync, ""
		}
	}
	return &node{req: req, claims: claimsOf(&req)}
}

func describe(n *node) string {
	return fmt.Sprintf("#%d %v %s %s", n.req.ID, n.req.Op, n.req.File, n.req.Target)
}
