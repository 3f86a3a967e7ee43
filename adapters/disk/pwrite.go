package disk

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/iggygo/iggy/io/storage"
)

const (
	// iovecsPerCallMax is IOV_MAX on Linux: one pwritev takes no more buffers.
	iovecsPerCallMax = 1024
	// eintrRetriesMax bounds retries of a call interrupted by a signal.
	eintrRetriesMax = 128
	filePerm        = 0o600
	dirPerm         = 0o700
)

// Pwrite is the portable Backend: blocking pwritev, pread and fdatasync, one
// call per operation, run on the Disk's worker goroutines.
type Pwrite struct{}

var _ Backend = Pwrite{}

// retryEINTR repeats call while a signal interrupts it, a bounded number of times.
func retryEINTR(call func() error) error {
	var err error
	for range eintrRetriesMax {
		if err = call(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
	return err
}

func (Pwrite) Open(path string, create bool) (int, error) {
	flags := unix.O_RDWR | unix.O_CLOEXEC
	if create {
		flags |= unix.O_CREAT
	}
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = unix.Open(path, flags, filePerm)
		return err
	})
	return fd, err
}

func (Pwrite) Close(fd int) error { return unix.Close(fd) }

func (Pwrite) WriteAt(fd int, data [][]byte, offset int64) error {
	return writeAll(data, offset, func(batch [][]byte, offset int64) (n int, err error) {
		err = retryEINTR(func() (err error) {
			n, err = unix.Pwritev(fd, batch, offset)
			return err
		})
		return n, err
	})
}

// writeAll writes data at offset with writev, which writes one batch of at
// most iovecsPerCallMax buffers and may write short; it is shared by the
// backends, which differ only in how one batch is written.
func writeAll(data [][]byte, offset int64, writev func(batch [][]byte, offset int64) (int, error)) error {
	// A private copy of the slice headers: a short write advances them, and the
	// caller's Data must stay untouched.
	bufs := make([][]byte, 0, len(data))
	for _, b := range data {
		if len(b) > 0 {
			bufs = append(bufs, b)
		}
	}
	// Every round writes at least one byte or returns, so the loop ends.
	for len(bufs) > 0 {
		n, err := writev(bufs[:min(len(bufs), iovecsPerCallMax)], offset)
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrShortWrite
		}
		offset += int64(n)
		bufs = advance(bufs, n)
	}
	return nil
}

// advance drops the first n bytes from bufs.
func advance(bufs [][]byte, n int) [][]byte {
	for n > 0 && n >= len(bufs[0]) {
		n -= len(bufs[0])
		bufs = bufs[1:]
	}
	if n > 0 {
		bufs[0] = bufs[0][n:]
	}
	return bufs
}

func (Pwrite) ReadAt(fd int, buf []byte, offset int64) (int, error) {
	total := 0
	// Every round reads at least one byte or stops, so the loop ends.
	for total < len(buf) {
		var n int
		err := retryEINTR(func() (err error) {
			n, err = unix.Pread(fd, buf[total:], offset+int64(total))
			return err
		})
		if err != nil {
			return total, err
		}
		if n == 0 {
			break
		}
		total += n
	}
	return total, nil
}

func (Pwrite) Datasync(fd int) error {
	return retryEINTR(func() error { return unix.Fdatasync(fd) })
}

func (Pwrite) Truncate(fd int, size int64) error {
	return retryEINTR(func() error { return unix.Ftruncate(fd, size) })
}

func (Pwrite) Mkdir(path string) (bool, error) {
	err := unix.Mkdir(path, dirPerm)
	if errors.Is(err, unix.EEXIST) {
		return false, nil
	}
	return err == nil, err
}

func (Pwrite) SyncDir(path string) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	err = retryEINTR(func() error { return unix.Fsync(fd) })
	if errClose := unix.Close(fd); err == nil {
		err = errClose
	}
	return err
}

func (Pwrite) Rename(from, to string) error { return unix.Rename(from, to) }

func (Pwrite) Remove(path string) error {
	err := unix.Unlink(path)
	if errors.Is(err, unix.EISDIR) {
		return unix.Rmdir(path)
	}
	return err
}

func (Pwrite) RemoveTree(path string) error { return os.RemoveAll(path) }

func (Pwrite) List(path string, entriesMax int) ([]storage.Entry, error) {
	dir, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	dirents, err := dir.ReadDir(entriesMax + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(dirents) > entriesMax {
		return nil, fmt.Errorf("more than %d entries", entriesMax)
	}
	entries := make([]storage.Entry, 0, len(dirents))
	for _, d := range dirents {
		info, err := d.Info()
		if errors.Is(err, os.ErrNotExist) {
			continue // removed since the directory was read
		}
		if err != nil {
			return nil, err
		}
		e := storage.Entry{Name: d.Name(), IsDir: d.IsDir()}
		if !e.IsDir {
			e.Size = uint64(info.Size())
		}
		entries = append(entries, e)
	}
	return entries, nil
}
