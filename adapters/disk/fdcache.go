package disk

import (
	"container/list"
	"fmt"
	"sync"

	"github.com/iggygo/iggy/internal/assert"
)

// openFile is a cached descriptor. The scheduler lets only one request use a
// path at a time; the one other user can be a worker evicting it.
type openFile struct {
	path   string // absolute
	fd     int
	refs   int
	writes uint64 // completed writes, counted to tell whether a sync covers them all
	synced uint64 // value of writes that the last successful fdatasync covered
	// failed is a writeback error; it sticks to the descriptor, which stays
	// cached, so every later sync of the file reports it instead of a false
	// success after the kernel dropped the dirty pages.
	failed error
	elem   *list.Element
}

func (f *openFile) dirty() bool { return f.synced < f.writes }

// fdCache keeps at most max descriptors open, least recently used out first.
// It may hold more only while descriptors are in use, dirty and being synced,
// or failed; there are never more in use than workers.
type fdCache struct {
	backend Backend
	max     int
	mu      sync.Mutex
	files   map[string]*openFile
	lru     list.List // front: most recently used
	// unpinned is signalled when an eviction stops pinning a descriptor; a
	// delete or rename of that path waits for it.
	unpinned *sync.Cond
}

func newFDCache(backend Backend, max int) *fdCache {
	if max <= 0 {
		assert.Failf("descriptor cache of %d", max)
	}
	c := &fdCache{backend: backend, max: max, files: make(map[string]*openFile)}
	c.unpinned = sync.NewCond(&c.mu)
	return c
}

// acquire returns the open file for path, opening it if needed. The caller
// must release it.
func (c *fdCache) acquire(path string, create bool) (*openFile, error) {
	c.mu.Lock()
	if f := c.files[path]; f != nil {
		f.refs++
		c.lru.MoveToFront(f.elem)
		c.mu.Unlock()
		return f, nil
	}
	c.mu.Unlock()
	// Opening outside the lock is safe: no other request holds this path.
	fd, err := c.backend.Open(path, create)
	if err != nil {
		return nil, err
	}
	f := &openFile{path: path, fd: fd, refs: 1}
	c.mu.Lock()
	if c.files[path] != nil {
		assert.Failf("%s opened twice", path)
	}
	c.files[path] = f
	f.elem = c.lru.PushFront(f)
	c.mu.Unlock()
	c.evict()
	return f, nil
}

func (c *fdCache) release(f *openFile) {
	c.mu.Lock()
	if f.refs <= 0 {
		assert.Failf("%s released more than acquired", f.path)
	}
	f.refs--
	c.mu.Unlock()
}

// noteWrite records a completed write; call between acquire and release.
func (c *fdCache) noteWrite(f *openFile) {
	c.mu.Lock()
	f.writes++
	c.mu.Unlock()
}

// sync makes every completed write of f durable, or reports the sticky error.
func (c *fdCache) sync(f *openFile) error {
	c.mu.Lock()
	target, failed := f.writes, f.failed
	c.mu.Unlock()
	if failed != nil {
		return fmt.Errorf("earlier writeback failure: %w", failed)
	}
	err := c.backend.Datasync(f.fd)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		f.failed = err
		return err
	}
	f.synced = max(f.synced, target)
	return nil
}

// evictRoundsMax bounds one eviction pass; a descriptor written again while
// it was being synced for eviction may take another round.
const evictRoundsMax = 8

// evict closes least recently used descriptors until at most max are open.
func (c *fdCache) evict() {
	for range evictRoundsMax {
		c.mu.Lock()
		victim := c.victim()
		if victim == nil {
			c.mu.Unlock()
			return
		}
		victim.refs++ // pinned while syncing, so nobody else evicts it
		c.mu.Unlock()
		syncErr := error(nil)
		if victim.dirty() {
			syncErr = c.sync(victim)
		}
		c.mu.Lock()
		victim.refs--
		c.unpinned.Broadcast()
		closeIt := syncErr == nil && victim.refs == 0 && !victim.dirty()
		if closeIt {
			c.remove(victim)
		}
		c.mu.Unlock()
		if closeIt {
			_ = c.backend.Close(victim.fd) // nothing unsynced is lost: it was clean
		} else if syncErr != nil || victim.refs > 0 {
			return // leave it to the next acquire rather than spin on it
		}
	}
}

// victim picks the least recently used unused, healthy descriptor when the
// cache is over its bound. Called with mu held.
func (c *fdCache) victim() *openFile {
	if len(c.files) <= c.max {
		return nil
	}
	for e := c.lru.Back(); e != nil; e = e.Prev() {
		f := e.Value.(*openFile)
		if f.refs == 0 && f.failed == nil {
			return f
		}
	}
	return nil
}

func (c *fdCache) remove(f *openFile) {
	c.lru.Remove(f.elem)
	delete(c.files, f.path)
}

// under returns and uncaches every descriptor for path or below it. The
// scheduler guarantees no request uses one; an eviction syncing one is waited for.
func (c *fdCache) under(path string) []*openFile {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.collect(path)
	for anyPinned(out) {
		c.unpinned.Wait()
		out = c.collect(path)
	}
	for _, f := range out {
		c.remove(f)
	}
	return out
}

// collect lists the cached descriptors for path or below it. Called with mu held.
func (c *fdCache) collect(path string) []*openFile {
	var out []*openFile
	for p, f := range c.files {
		if p == path || (len(p) > len(path) && p[len(path)] == '/' && p[:len(path)] == path) {
			out = append(out, f)
		}
	}
	return out
}

func anyPinned(files []*openFile) bool {
	for _, f := range files {
		if f.refs > 0 {
			return true
		}
	}
	return false
}

// forget closes every descriptor for path or below it without syncing: their
// files are about to be deleted.
func (c *fdCache) forget(path string) {
	for _, f := range c.under(path) {
		_ = c.backend.Close(f.fd)
	}
}

// flush syncs (when dirty) and closes every descriptor for path or below it,
// so writes made under the old name are durable before a rename. On a sync
// error the descriptor stays cached and failed.
func (c *fdCache) flush(path string) error {
	var firstErr error
	for _, f := range c.under(path) {
		err := f.failed
		if err == nil && f.dirty() {
			err = c.backend.Datasync(f.fd)
		}
		if err != nil {
			c.keepFailed(f, err)
			if firstErr == nil {
				firstErr = fmt.Errorf("writeback of %s: %w", f.path, err)
			}
			continue
		}
		_ = c.backend.Close(f.fd)
	}
	return firstErr
}

func (c *fdCache) keepFailed(f *openFile, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f.failed = err
	c.files[f.path] = f
	f.elem = c.lru.PushFront(f)
}

// closeAll closes every descriptor; used when the Disk stops.
func (c *fdCache) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.files {
		_ = c.backend.Close(f.fd)
	}
	clear(c.files)
	c.lru.Init()
}
