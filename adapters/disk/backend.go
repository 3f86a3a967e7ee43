package disk

import "github.com/iggygo/iggy/io/storage"

// Backend performs the system calls of the disk. Disk decides what runs when
// (ordering, parallelism, the descriptor cache, error classes); a Backend only
// executes. Paths are absolute and already validated. Methods may be called
// from several goroutines at once, never twice at once for one descriptor
// except Datasync beside another call.
type Backend interface {
	// Open opens path read-write, creating it when create is set.
	Open(path string, create bool) (fd int, err error)
	Close(fd int) error
	// WriteAt writes all of data, in order, at offset.
	WriteAt(fd int, data [][]byte, offset int64) error
	// ReadAt fills buf from offset; n < len(buf) only at end of file.
	ReadAt(fd int, buf []byte, offset int64) (n int, err error)
	Datasync(fd int) error
	Truncate(fd int, size int64) error
	// Mkdir creates one directory; an existing one is not an error.
	Mkdir(path string) (created bool, err error)
	// SyncDir makes the names in directory path durable.
	SyncDir(path string) error
	Rename(from, to string) error
	// Remove deletes a file or an empty directory.
	Remove(path string) error
	// RemoveTree deletes path and everything below it; a missing path is not an error.
	RemoveTree(path string) error
	// List returns the entries of directory path (any order), failing when
	// there are more than entriesMax.
	List(path string, entriesMax int) ([]storage.Entry, error)
}
