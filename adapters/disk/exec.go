package disk

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/iggygo/iggy/io/storage"
)

// executor runs one request against the backend; workers share it.
type executor struct {
	root    string // absolute
	backend Backend
	files   *fdCache
}

func (x *executor) abs(name string) string {
	if name == storage.RootName {
		return x.root
	}
	return x.root + "/" + name
}

// execute runs req and classifies the outcome.
func (x *executor) execute(req *storage.Request) storage.Completion {
	c := storage.Completion{ID: req.ID}
	var err error
	switch req.Op {
	case storage.OpCreate:
		err = x.create(req.File)
	case storage.OpWrite:
		err = x.write(req)
	case storage.OpRead:
		c.Data, err = x.read(req)
	case storage.OpSync:
		err = x.withFile(req.File, x.files.sync)
	case storage.OpTruncate:
		err = x.truncate(req)
	case storage.OpDelete:
		err = x.delete(req.File)
	case storage.OpDeleteTree:
		err = x.deleteTree(req.File)
	case storage.OpRename:
		err = x.rename(req.File, req.Target)
	case storage.OpList:
		c.Entries, err = x.list(req.File)
	}
	if err != nil {
		c.Result = storage.ResultIOError
		if errors.Is(err, fs.ErrNotExist) {
			c.Result = storage.ResultNotFound
		}
		c.Err = fmt.Sprintf("%v %s: %v", req.Op, x.abs(req.File), err)
		if req.Op == storage.OpRename {
			c.Err = fmt.Sprintf("rename %s to %s: %v", x.abs(req.File), x.abs(req.Target), err)
		}
	}
	return c
}

// withFile runs do on the cached descriptor of an existing file.
func (x *executor) withFile(name string, do func(*openFile) error) error {
	f, err := x.files.acquire(x.abs(name), false)
	if err != nil {
		return err
	}
	defer x.files.release(f)
	return do(f)
}

func (x *executor) create(name string) error {
	if err := x.mkdirParents(name); err != nil {
		return err
	}
	f, err := x.files.acquire(x.abs(name), true)
	if err != nil {
		return err
	}
	defer x.files.release(f)
	if err := x.backend.Datasync(f.fd); err != nil {
		return err
	}
	return x.backend.SyncDir(x.abs(storage.ParentName(name)))
}

// mkdirParents creates the missing directories above name, outermost first,
// syncing the parent of each one it creates so the new name is durable.
func (x *executor) mkdirParents(name string) error {
	parts := strings.Split(name, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		created, err := x.backend.Mkdir(x.abs(dir))
		if err != nil {
			return err
		}
		if created {
			if err := x.backend.SyncDir(x.abs(storage.ParentName(dir))); err != nil {
				return err
			}
		}
	}
	return nil
}

func (x *executor) write(req *storage.Request) error {
	return x.withFile(req.File, func(f *openFile) error {
		if err := x.backend.WriteAt(f.fd, req.Data, int64(req.Offset)); err != nil {
			return err
		}
		x.files.noteWrite(f)
		return nil
	})
}

func (x *executor) read(req *storage.Request) ([]byte, error) {
	var buf []byte
	if req.Into != nil {
		buf = req.Into[:req.Len] // lent by the caller (storage.Request.Into)
	} else {
		buf = make([]byte, req.Len)
	}
	n := 0
	err := x.withFile(req.File, func(f *openFile) (err error) {
		n, err = x.backend.ReadAt(f.fd, buf, int64(req.Offset))
		return err
	})
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

func (x *executor) truncate(req *storage.Request) error {
	return x.withFile(req.File, func(f *openFile) error {
		if err := x.backend.Truncate(f.fd, int64(req.Offset)); err != nil {
			return err
		}
		return x.files.sync(f)
	})
}

func (x *executor) delete(name string) error {
	x.files.forget(x.abs(name))
	err := x.backend.Remove(x.abs(name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return x.backend.SyncDir(x.abs(storage.ParentName(name)))
}

func (x *executor) deleteTree(name string) error {
	x.files.forget(x.abs(name))
	if err := x.backend.RemoveTree(x.abs(name)); err != nil {
		return err
	}
	return x.backend.SyncDir(x.abs(storage.ParentName(name)))
}

func (x *executor) rename(from, to string) error {
	if err := x.files.flush(x.abs(from)); err != nil {
		return err
	}
	if err := x.files.flush(x.abs(to)); err != nil {
		return err
	}
	if err := x.backend.Rename(x.abs(from), x.abs(to)); err != nil {
		return err
	}
	if err := x.backend.SyncDir(x.abs(storage.ParentName(to))); err != nil {
		return err
	}
	if storage.ParentName(from) == storage.ParentName(to) {
		return nil
	}
	return x.backend.SyncDir(x.abs(storage.ParentName(from)))
}

func (x *executor) list(name string) ([]storage.Entry, error) {
	entries, err := x.backend.List(x.abs(name), storage.ListEntriesMax)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b storage.Entry) int { return strings.Compare(a.Name, b.Name) })
	return entries, nil
}
