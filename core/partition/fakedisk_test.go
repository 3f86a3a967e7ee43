package partition

import (
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/iggygo/iggy/io/storage"
)

// fakeDisk is an in-memory disk: path -> bytes, with the durable content
// of each file tracked separately so a crash can lose unsynced writes.
// It executes requests FIFO per file; with rng set it picks the next file
// at random, reordering across files as the real disk may.
type fakeDisk struct {
	files  map[string]*fakeFile
	queue  []storage.Request
	nextID storage.ReqID
	rng    *rand.Rand
	// fault, when set, decides the result of a request before it runs.
	fault func(r storage.Request) storage.Result
	// garble, when set, may change what a read returns (a bad read of
	// good bytes, which a later read gets right).
	garble func(r storage.Request, data []byte)
	log    []storage.Request // every request executed, in order
}

type fakeFile struct {
	data    []byte
	durable []byte
}

func newFakeDisk() *fakeDisk { return &fakeDisk{files: make(map[string]*fakeFile)} }

func (d *fakeDisk) Submit(r storage.Request) storage.ReqID {
	d.nextID++
	r.ID = d.nextID
	// The log may reuse nothing after Submit, but copy the data slices
	// header so later appends to its slices cannot alias ours.
	r.Data = append([][]byte(nil), r.Data...)
	d.queue = append(d.queue, r)
	return r.ID
}

// runnable lists the queue positions that may run next: requests with no
// earlier request on the same file or on a directory above it or below it
// (a tree delete runs in order with everything below it, as the real disk).
func (d *fakeDisk) runnable() []int {
	var idx []int
	for i, r := range d.queue {
		blocked := false
		for _, q := range d.queue[:i] {
			if within(r.File, q.File) || within(q.File, r.File) {
				blocked = true
				break
			}
		}
		if !blocked {
			idx = append(idx, i)
		}
	}
	return idx
}

// within says whether path is dir or lies below it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// step executes one request and hands its completion to l; false when idle.
func (d *fakeDisk) step(l *Log) bool {
	if len(d.queue) == 0 {
		return false
	}
	i := 0
	if d.rng != nil {
		idx := d.runnable()
		i = idx[d.rng.IntN(len(idx))]
	}
	r := d.queue[i]
	d.queue = append(d.queue[:i], d.queue[i+1:]...)
	d.log = append(d.log, r)
	l.Complete(d.exec(r))
	return true
}

// run executes requests until the queue is empty.
func (d *fakeDisk) run(l *Log) {
	for d.step(l) {
	}
}

func (d *fakeDisk) exec(r storage.Request) storage.Completion {
	c := storage.Completion{ID: r.ID}
	if d.fault != nil {
		if res := d.fault(r); res != storage.ResultOK {
			c.Result = res
			return c
		}
	}
	f := d.files[r.File]
	switch r.Op {
	case storage.OpCreate:
		if f == nil {
			d.files[r.File] = &fakeFile{}
		}
	case storage.OpWrite:
		if f == nil {
			c.Result = storage.ResultNotFound
			break
		}
		pos := int(r.Offset)
		for _, b := range r.Data {
			if need := pos + len(b); need > len(f.data) {
				f.data = append(f.data, make([]byte, need-len(f.data))...)
			}
			pos += copy(f.data[pos:], b)
		}
	case storage.OpRead:
		if f == nil {
			c.Result = storage.ResultNotFound
			break
		}
		lo := min(int(r.Offset), len(f.data))
		hi := min(lo+int(r.Len), len(f.data))
		c.Data = append([]byte(nil), f.data[lo:hi]...)
		if d.garble != nil {
			d.garble(r, c.Data)
		}
	case storage.OpSync:
		if f != nil {
			f.durable = append([]byte(nil), f.data...)
		}
	case storage.OpTruncate:
		if f == nil {
			c.Result = storage.ResultNotFound
			break
		}
		n := int(r.Offset)
		if n <= len(f.data) {
			f.data = f.data[:n]
		} else {
			f.data = append(f.data, make([]byte, n-len(f.data))...)
		}
		f.durable = append([]byte(nil), f.data...)
	case storage.OpDelete:
		delete(d.files, r.File)
	case storage.OpRename: // atomic and durable, as the real one's
		if f == nil {
			c.Result = storage.ResultNotFound
			break
		}
		d.files[r.Target] = f
		delete(d.files, r.File)
	case storage.OpDeleteTree:
		for p := range d.files {
			if strings.HasPrefix(p, r.File+"/") {
				delete(d.files, p)
			}
		}
	case storage.OpList:
		c.Entries = d.list(r.File)
		if c.Entries == nil {
			c.Result = storage.ResultNotFound
		}
	default:
		panic("fake disk: unsupported op " + r.Op.String())
	}
	return c
}

func (d *fakeDisk) list(dir string) []storage.Entry {
	seen := make(map[string]bool)
	var out []storage.Entry
	for p, f := range d.files {
		rest, ok := strings.CutPrefix(p, dir+"/")
		if !ok {
			continue
		}
		name, _, isDir := strings.Cut(rest, "/")
		if seen[name] {
			continue
		}
		seen[name] = true
		e := storage.Entry{Name: name, IsDir: isDir}
		if !isDir {
			e.Size = uint64(len(f.data))
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// crash drops the queue and every unsynced byte, except that a random
// prefix of unsynced appended bytes may survive (a torn write).
func (d *fakeDisk) crash(rng *rand.Rand) {
	d.queue = nil
	for _, f := range d.files {
		keep := f.durable
		if rng != nil && len(f.data) > len(f.durable) && string(f.data[:len(f.durable)]) == string(f.durable) {
			keep = f.data[:len(f.durable)+rng.IntN(len(f.data)-len(f.durable)+1)]
		}
		f.data = append([]byte(nil), keep...)
		f.durable = append([]byte(nil), keep...)
	}
}

// put sets a file's content as durable.
func (d *fakeDisk) put(path string, b []byte) {
	d.files[path] = &fakeFile{data: append([]byte(nil), b...), durable: append([]byte(nil), b...)}
}

func (d *fakeDisk) get(path string) []byte {
	if f := d.files[path]; f != nil {
		return f.data
	}
	return nil
}
