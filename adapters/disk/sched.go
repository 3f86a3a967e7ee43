package disk

import (
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// node is one submitted request while it waits, runs, or reports.
type node struct {
	req        storage.Request
	claims     []claim
	blockers   int     // earlier conflicting requests not yet completed
	dependents []*node // later requests waiting for this one
	done       bool
	completion storage.Completion
}

// nameLock orders the requests holding one name. Only the newest exact holder
// and the "below" holders since it matter: a new request waits for those, and
// they waited for everything earlier.
type nameLock struct {
	lastExact *node
	below     []*node
	refs      int // claims of unfinished requests on this name
}

// scheduler turns the submission order into a dependency graph: a request may
// run once every earlier request whose path equals or contains its own (or the
// reverse) has completed. So requests on one file run in submission order,
// and unrelated files run in parallel. It is owned by one goroutine.
type scheduler struct {
	locks   map[string]*nameLock
	ready   []*node // runnable, in the order they became runnable
	pending int     // added and not yet completed
}

func newScheduler() *scheduler {
	return &scheduler{locks: make(map[string]*nameLock)}
}

func (s *scheduler) add(n *node) {
	if n.blockers != 0 || n.done {
		assert.Failf("request %d added twice", n.req.ID)
	}
	s.pending++
	for _, c := range n.claims {
		l := s.locks[c.name]
		if l == nil {
			l = &nameLock{}
			s.locks[c.name] = l
		}
		l.refs++
		depend(n, l.lastExact)
		if c.mode == modeExact {
			for _, b := range l.below {
				depend(n, b)
			}
			l.lastExact = n
			l.below = l.below[:0]
		} else {
			l.below = append(compact(l.below), n)
		}
	}
	if n.blockers == 0 {
		s.ready = append(s.ready, n)
	}
}

// depend makes n wait for b unless b is finished or already waited for.
func depend(n, b *node) {
	if b == nil || b == n || b.done {
		return
	}
	if k := len(b.dependents); k > 0 && b.dependents[k-1] == n {
		return // claims of n are added together, so a repeat is the last entry
	}
	b.dependents = append(b.dependents, n)
	n.blockers++
}

// compact drops finished nodes once the slice is full, so a name that never
// goes idle (the root) keeps a list no longer than twice the unfinished ones.
func compact(nodes []*node) []*node {
	if len(nodes) < cap(nodes) {
		return nodes
	}
	kept := nodes[:0]
	for _, n := range nodes {
		if !n.done {
			kept = append(kept, n)
		}
	}
	clear(nodes[len(kept):])
	return kept
}

// complete records that n finished and makes runnable what waited only for it.
func (s *scheduler) complete(n *node) {
	if n.done || n.blockers != 0 {
		assert.Failf("request %d completed twice or before it could run", n.req.ID)
	}
	n.done = true
	s.pending--
	for _, c := range n.claims {
		l := s.locks[c.name]
		l.refs--
		if l.refs == 0 {
			delete(s.locks, c.name)
		}
	}
	for _, d := range n.dependents {
		d.blockers--
		if d.blockers == 0 {
			s.ready = append(s.ready, d)
		}
	}
	n.dependents = nil
}

// peek returns the oldest runnable node, or nil.
func (s *scheduler) peek() *node {
	if len(s.ready) == 0 {
		return nil
	}
	return s.ready[0]
}

// pop removes the node peek returned.
func (s *scheduler) pop() {
	s.ready[0] = nil
	s.ready = s.ready[1:]
}
