package disk

import (
	"slices"
	"strings"

	"github.com/iggygo/iggy/io/storage"
)

// unsyncedWritesMax bounds the completed writes a file remembers since its
// last sync. Past it the oldest is written back to the durable image, as a
// kernel writes back dirty pages on its own; a crash can then no longer lose it.
const unsyncedWritesMax = 4096

// file is one file's two images. volatile is what reads see (the page
// cache); durable is what survives a crash. unsynced are the writes that
// turned durable into volatile, in completion order, for torn crashes.
type file struct {
	volatile []byte
	durable  []byte
	unsynced []pendingWrite
}

// pendingWrite is a completed write not yet covered by a sync.
type pendingWrite struct {
	offset uint64
	data   []byte
}

// sync makes the volatile image durable (fdatasync). The volatile image is
// always the durable one with the unsynced writes applied in order, so
// applying them again costs what was written, not the file's size (a
// segment of a megabyte is synced after every flush).
func (f *file) sync() {
	for _, w := range f.unsynced {
		f.durable = writeAt(f.durable, w.offset, w.data)
	}
	f.unsynced = nil
}

// put makes img the file's content, durable at once.
func (f *file) put(img []byte) {
	f.volatile, f.durable, f.unsynced = img, slices.Clone(img), nil
}

func (f *file) write(offset uint64, data [][]byte) {
	n := 0
	for _, b := range data {
		n += len(b)
	}
	joined := make([]byte, 0, n) // one allocation: the request's buffers are not ours to keep
	for _, b := range data {
		joined = append(joined, b...)
	}
	f.volatile = writeAt(f.volatile, offset, joined)
	if len(f.unsynced) == unsyncedWritesMax {
		f.durable = writeAt(f.durable, f.unsynced[0].offset, f.unsynced[0].data)
		f.unsynced = f.unsynced[1:]
	}
	f.unsynced = append(f.unsynced, pendingWrite{offset: offset, data: joined})
}

// writeAt writes b at offset of img, extending it with zeros as pwrite does.
func writeAt(img []byte, offset uint64, b []byte) []byte {
	end := offset + uint64(len(b))
	if n := uint64(len(img)); end > n {
		// Grown in place, without a zero slice to append: only the hole
		// between the old end and offset needs zeros (capacity left by a
		// truncate may hold old bytes).
		img = slices.Grow(img, int(end-n))[:end]
		clear(img[n:max(n, offset)])
	}
	copy(img[offset:], b)
	return img
}

func (f *file) clone() *file {
	c := &file{volatile: slices.Clone(f.volatile), durable: slices.Clone(f.durable)}
	for _, w := range f.unsynced {
		c.unsynced = append(c.unsynced, pendingWrite{offset: w.offset, data: slices.Clone(w.data)})
	}
	return c
}

// fsys is the namespace: files and directories by path. The root always
// exists and is in neither map. Name operations (create, delete, rename)
// are durable when they complete, as the real disk syncs the directories.
type fsys struct {
	files map[string]*file
	dirs  map[string]bool
}

func newFS() *fsys { return &fsys{files: map[string]*file{}, dirs: map[string]bool{}} }

func (s *fsys) isDir(name string) bool { return name == storage.RootName || s.dirs[name] }

// missing is the result for a path that is not there: not found, or an I/O
// error when one of its parents is a file.
func (s *fsys) missing(name string) storage.Result {
	for dir := storage.ParentName(name); dir != "" && dir != storage.RootName; dir = storage.ParentName(dir) {
		if _, ok := s.files[dir]; ok {
			return storage.ResultIOError // ENOTDIR: a component is a file
		}
	}
	return storage.ResultNotFound
}

// execute runs one request against the namespace.
func (s *fsys) execute(req *storage.Request) storage.Completion {
	c := storage.Completion{ID: req.ID}
	switch req.Op {
	case storage.OpCreate:
		c.Result = s.create(req.File)
	case storage.OpWrite:
		c.Result = s.withFile(req.File, func(f *file) { f.write(req.Offset, req.Data) })
	case storage.OpRead:
		c.Result = s.withFile(req.File, func(f *file) { c.Data = readAt(f.volatile, req.Offset, req.Len) })
	case storage.OpSync:
		c.Result = s.withFile(req.File, (*file).sync)
	case storage.OpTruncate:
		c.Result = s.withFile(req.File, func(f *file) { f.put(resize(f.volatile, req.Offset)) })
	case storage.OpDelete:
		c.Result = s.delete(req.File)
	case storage.OpDeleteTree:
		c.Result = s.deleteTree(req.File)
	case storage.OpRename:
		c.Result = s.rename(req.File, req.Target)
	case storage.OpList:
		c.Entries, c.Result = s.list(req.File)
	}
	if c.Result != storage.ResultOK {
		c.Err = req.Op.String() + " " + req.File + ": " + resultText[c.Result]
	}
	return c
}

var resultText = [...]string{storage.ResultOK: "ok", storage.ResultNotFound: "no such file or directory",
	storage.ResultIOError: "input/output error"}

func (s *fsys) withFile(name string, do func(*file)) storage.Result {
	if s.isDir(name) {
		return storage.ResultIOError // EISDIR
	}
	f, ok := s.files[name]
	if !ok {
		return s.missing(name)
	}
	do(f)
	return storage.ResultOK
}

func readAt(img []byte, offset, n uint64) []byte {
	lo := min(offset, uint64(len(img)))
	hi := min(lo+n, uint64(len(img)))
	return slices.Clone(img[lo:hi])
}

func resize(img []byte, size uint64) []byte {
	if size <= uint64(len(img)) {
		return img[:size]
	}
	return append(img, make([]byte, size-uint64(len(img)))...)
}

// create makes the missing parents and the file; an existing file keeps its
// content and is synced, as the real create fsyncs it.
func (s *fsys) create(name string) storage.Result {
	parts := strings.Split(name, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		if _, ok := s.files[dir]; ok {
			return storage.ResultIOError
		}
		s.dirs[dir] = true
	}
	if s.dirs[name] {
		return storage.ResultIOError
	}
	if f, ok := s.files[name]; ok {
		f.sync()
		return storage.ResultOK
	}
	s.files[name] = &file{}
	return storage.ResultOK
}

// delete removes a file or an empty directory; a missing one is fine when
// its directory exists (the real disk then syncs that directory).
func (s *fsys) delete(name string) storage.Result {
	switch {
	case s.dirs[name]:
		if len(s.below(name)) > 0 {
			return storage.ResultIOError // ENOTEMPTY
		}
		delete(s.dirs, name)
	case s.files[name] != nil:
		delete(s.files, name)
	case !s.isDir(storage.ParentName(name)):
		return s.missing(name)
	}
	return storage.ResultOK
}

func (s *fsys) deleteTree(name string) storage.Result {
	if _, ok := s.files[name]; !ok && !s.dirs[name] && !s.isDir(storage.ParentName(name)) {
		return s.missing(name)
	}
	for _, p := range s.below(name) {
		delete(s.files, p)
		delete(s.dirs, p)
	}
	delete(s.files, name)
	delete(s.dirs, name)
	return storage.ResultOK
}

// below lists every path strictly below dir, sorted.
func (s *fsys) below(dir string) []string {
	var out []string
	for p := range s.files {
		if p != dir && storage.Within(p, dir) {
			out = append(out, p)
		}
	}
	for p := range s.dirs {
		if p != dir && storage.Within(p, dir) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// rename moves a file or directory; the moved files are flushed first, as
// the real disk syncs dirty descriptors under both names.
func (s *fsys) rename(from, to string) storage.Result {
	// The kernel resolves both parents before it looks the source up.
	for _, name := range []string{from, to} {
		if !s.isDir(storage.ParentName(name)) {
			return s.missing(name)
		}
	}
	f, isFile := s.files[from]
	if !isFile && !s.dirs[from] {
		return storage.ResultNotFound
	}
	if isFile {
		if s.dirs[to] {
			return storage.ResultIOError
		}
		f.sync()
		delete(s.files, from)
		s.files[to] = f
		return storage.ResultOK
	}
	if _, ok := s.files[to]; ok {
		return storage.ResultIOError
	}
	if s.dirs[to] && len(s.below(to)) > 0 {
		return storage.ResultIOError
	}
	for _, p := range s.below(from) {
		moved := to + p[len(from):]
		if g, ok := s.files[p]; ok {
			g.sync()
			delete(s.files, p)
			s.files[moved] = g
		} else {
			delete(s.dirs, p)
			s.dirs[moved] = true
		}
	}
	delete(s.dirs, from)
	s.dirs[to] = true
	return storage.ResultOK
}

// list returns the children of dir sorted by name, files with their
// (volatile) sizes.
func (s *fsys) list(dir string) ([]storage.Entry, storage.Result) {
	if _, ok := s.files[dir]; ok {
		return nil, storage.ResultIOError // ENOTDIR
	}
	if !s.isDir(dir) {
		return nil, s.missing(dir)
	}
	var out []storage.Entry
	for p, f := range s.files {
		if storage.ParentName(p) == dir {
			out = append(out, storage.Entry{Name: storage.BaseName(p), Size: uint64(len(f.volatile))})
		}
	}
	for p := range s.dirs {
		if storage.ParentName(p) == dir {
			out = append(out, storage.Entry{Name: storage.BaseName(p), IsDir: true})
		}
	}
	slices.SortFunc(out, func(a, b storage.Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, storage.ResultOK
}

func (s *fsys) clone() *fsys {
	c := newFS()
	for p, f := range s.files {
		c.files[p] = f.clone()
	}
	for p := range s.dirs {
		c.dirs[p] = true
	}
	return c
}
