package disk

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/iggygo/iggy/internal/assert"
)

const (
	// uringEntries bounds the operations in flight on the ring: far more
	// than the Disk's workers, which each wait for one at a time.
	uringEntries = 64
	// uringCloseToken marks the no-op whose completion stops the reaper.
	uringCloseToken = math.MaxUint64
	// uringBusyRetriesMax and uringBusyPause bound the retries of an
	// io_uring_enter the kernel refuses for a moment (EAGAIN, EBUSY, EINTR).
	uringBusyRetriesMax = 1000
	uringBusyPause      = 50 * time.Microsecond
	// uringInlineWriteBytesMax: writes up to this size are a plain pwritev
	// on the calling worker. ext4 does not take buffered writes without
	// blocking, so io_uring hands every write to a kernel worker thread and
	// the completion wakes the reaper and then the caller: three wakeups for
	// what a pwritev of a few pages does in microseconds (a partition's
	// index entry after every records write, offsets, metadata). Larger
	// writes stay on the ring, where the copy runs on the kernel's thread
	// instead of holding one of the process's Ps in a long system call.
	uringInlineWriteBytesMax = 16 << 10
)

// Uring is the io_uring Backend: writes (writev), reads and fdatasync go
// through one ring shared by the Disk's workers; each call queues one entry,
// submits it and sleeps on its slot until the completion is delivered.
// Everything else (open, close, truncate, directory operations) is Pwrite's.
// Memory handed to the kernel (iovecs, buffers) is heap memory referenced
// from the call's slot until its completion arrives, so it neither moves nor
// is freed while the kernel uses it.
//
// Completions are delivered by whoever drains the completion ring first: the
// caller right after its submission (a read served from the page cache
// completes inside io_uring_enter, so it needs no other goroutine) or the
// reaper, which waits for the ring's eventfd in Go's netpoller. No thread
// ever blocks in io_uring_enter: a goroutine blocked in a system call holds
// its thread and, until sysmon takes it back, one of the machine's two Ps.
type Uring struct {
	Pwrite
	r         *ring
	mu        sync.Mutex // the submission queue
	cqMu      sync.Mutex // the completion queue
	efd       *os.File   // signalled by the kernel for every completion
	slots     []uringSlot
	free      chan uint32 // indexes of idle slots
	closing   atomic.Bool // the closing no-op completed
	reaped    chan struct{}
	closeOnce sync.Once
}

// uringSlot is one operation in flight.
type uringSlot struct {
	iov  []unix.Iovec
	data [][]byte // buffers of the write in flight
	buf  []byte   // buffer of the read in flight
	done chan int32
}

var _ Backend = (*Uring)(nil)

// NewUring sets up the ring. It fails (wrapping errUringUnsupported) where
// the kernel or a sandbox refuses io_uring: ENOSYS, EPERM, or missing opcodes.
func NewUring() (*Uring, error) {
	r, err := newRing(uringEntries)
	if err != nil {
		return nil, err
	}
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("%w: eventfd: %w", errUringUnsupported, err)
	}
	if err := r.registerEventfd(efd); err != nil {
		_ = unix.Close(efd)
		r.close()
		return nil, err
	}
	u := &Uring{r: r, efd: os.NewFile(uintptr(efd), "io_uring-completions"), slots: make([]uringSlot, r.entries),
		free: make(chan uint32, r.entries), reaped: make(chan struct{})}
	for i := range u.slots {
		u.slots[i].done = make(chan int32, 1)
		u.free <- uint32(i)
	}
	go u.reap()
	return u, nil
}

// Shutdown stops the reaper and releases the ring. Call it after the Disk that
// uses it is closed: no operation may be in flight.
func (u *Uring) Shutdown() {
	u.closeOnce.Do(func() {
		if len(u.free) != len(u.slots) {
			assert.Failf("io_uring closed with %d operations in flight", len(u.slots)-len(u.free))
		}
		if err := u.submit(sqe{opcode: ioringOpNop, userData: uringCloseToken}); err != nil {
			panic("io_uring: cannot submit the closing no-op: " + err.Error())
		}
		<-u.reaped
		u.r.close()
		_ = u.efd.Close()
	})
}

// reap delivers completions until the closing no-op. It drains the ring
// before each wait: a completion posted after the drain signals the eventfd
// again, so none is missed, and a signal for one already delivered only
// costs an empty drain.
func (u *Uring) reap() {
	defer close(u.reaped)
	var counter [8]byte
	for {
		u.drain()
		if u.closing.Load() {
			return
		}
		if _, err := u.efd.Read(counter[:]); err != nil {
			panic("io_uring: waiting for completions: " + err.Error())
		}
	}
}

// drain delivers every completion in the ring to its slot. A slot has at
// most one operation in flight and its channel one place, so delivering
// never blocks.
func (u *Uring) drain() {
	u.cqMu.Lock()
	defer u.cqMu.Unlock()
	u.r.reap(func(c cqe) {
		if c.userData == uringCloseToken {
			u.closing.Store(true)
			return
		}
		u.slots[c.userData].done <- c.res
	})
}

func transientEnter(err error) bool {
	return errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EBUSY)
}

// submit queues e and hands it to the kernel.
func (u *Uring) submit(e sqe) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	tail := *u.r.sqTail
	u.r.push(e)
	var err error
	for range uringBusyRetriesMax {
		var n int
		if n, err = u.r.enter(1, 0, 0); err == nil && n == 1 {
			return nil
		}
		if err != nil && !transientEnter(err) {
			break
		}
		time.Sleep(uringBusyPause)
	}
	// Not consumed: take the entry back so the next submission does not send it.
	*u.r.sqTail = tail
	if err == nil {
		err = unix.EAGAIN
	}
	return fmt.Errorf("io_uring_enter: %w", err)
}

// run executes one operation in slot idx and returns its result: a byte
// count, or an error from a negative result.
func (u *Uring) run(idx uint32, e sqe) (int, error) {
	e.userData = uint64(idx)
	for range eintrRetriesMax {
		if err := u.submit(e); err != nil {
			return 0, err
		}
		u.drain() // completed inline (page-cache reads): no wakeup of the reaper
		res := <-u.slots[idx].done
		if res >= 0 {
			return int(res), nil
		}
		if err := unix.Errno(-res); err != unix.EINTR && err != unix.EAGAIN {
			return 0, err
		}
	}
	return 0, unix.EINTR
}

func (u *Uring) acquire() uint32    { return <-u.free }
func (u *Uring) release(idx uint32) { u.free <- idx }

func (u *Uring) WriteAt(fd int, data [][]byte, offset int64) error {
	if sizeOf(data) <= uringInlineWriteBytesMax {
		return u.Pwrite.WriteAt(fd, data, offset)
	}
	idx := u.acquire()
	defer u.release(idx)
	s := &u.slots[idx]
	defer func() { clear(s.data); s.data = s.data[:0] }()
	return writeAll(data, offset, func(batch [][]byte, offset int64) (int, error) {
		s.data = append(s.data[:0], batch...)
		s.iov = s.iov[:0]
		for _, b := range batch {
			v := unix.Iovec{Base: &b[0]}
			v.SetLen(len(b))
			s.iov = append(s.iov, v)
		}
		return u.run(idx, sqe{opcode: ioringOpWritev, fd: int32(fd), off: uint64(offset),
			addr: uint64(uintptr(unsafe.Pointer(&s.iov[0]))), len: uint32(len(s.iov))})
	})
}

func (u *Uring) ReadAt(fd int, buf []byte, offset int64) (int, error) {
	idx := u.acquire()
	defer u.release(idx)
	s := &u.slots[idx]
	defer func() { s.buf = nil }()
	total := 0
	// Every round reads at least one byte or stops, so the loop ends.
	for total < len(buf) {
		s.buf = buf[total:]
		n, err := u.run(idx, sqe{opcode: ioringOpRead, fd: int32(fd), off: uint64(offset) + uint64(total),
			addr: uint64(uintptr(unsafe.Pointer(&s.buf[0]))), len: uint32(min(len(s.buf), math.MaxInt32))})
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

func (u *Uring) Datasync(fd int) error {
	idx := u.acquire()
	defer u.release(idx)
	_, err := u.run(idx, sqe{opcode: ioringOpFsync, fd: int32(fd), opFlags: ioringFsyncDatasync})
	return err
}

// sizeOf is the total length of bufs.
func sizeOf(bufs [][]byte) int {
	n := 0
	for _, b := range bufs {
		n += len(b)
	}
	return n
}
