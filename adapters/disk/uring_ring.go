package disk

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/iggygo/iggy/internal/assert"
)

// The io_uring ABI (include/uapi/linux/io_uring.h), only what this backend uses.
const (
	sysIoUringSetup    = 425
	sysIoUringEnter    = 426
	sysIoUringRegister = 427

	ioringOffSQRing = 0
	ioringOffCQRing = 0x8000000
	ioringOffSQEs   = 0x10000000

	ioringSetupClamp       = 1 << 4
	ioringFeatSingleMmap   = 1 << 0
	ioringEnterGetevents   = 1 << 0
	ioringRegisterProbe    = 8
	ioringRegisterEventfd  = 4
	ioringProbeOpSupported = 1 << 0
	ioringFsyncDatasync    = 1 << 0

	ioringOpNop    = 0
	ioringOpWritev = 2
	ioringOpFsync  = 3
	ioringOpRead   = 22

	probeOpsMax = 256
)

type sqRingOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqRingOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqRingOffsets
	cqOff                                                                  cqRingOffsets
}

// sqe is struct io_uring_sqe (64 bytes).
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	opFlags     uint32 // fsync_flags, rw_flags, ...
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	pad         uint64
}

// cqe is struct io_uring_cqe (16 bytes, no CQE32).
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

type probeOp struct {
	op    uint8
	resv  uint8
	flags uint16
	resv2 uint32
}

type probe struct {
	lastOp uint8
	opsLen uint8
	resv   uint16
	resv2  [3]uint32
	ops    [probeOpsMax]probeOp
}

// ring is one io_uring instance: its descriptor and the shared rings. The
// submission side is used under the owner's lock; the completion side only
// by the owner's reaper.
type ring struct {
	fd      int
	mems    [][]byte // mmapped regions, unmapped by close
	entries uint32
	sqHead  *uint32
	sqTail  *uint32
	sqMask  uint32
	sqArray []uint32
	sqes    []sqe
	cqHead  *uint32
	cqTail  *uint32
	cqMask  uint32
	cqes    []cqe
}

// errUringUnsupported wraps why io_uring cannot be used here.
var errUringUnsupported = errors.New("io_uring unavailable")

// newRing sets up a ring of entries submission slots and checks that the
// kernel supports every opcode the backend issues.
func newRing(entries uint32) (*ring, error) {
	var p uringParams
	p.flags = ioringSetupClamp
	fd, _, errno := unix.Syscall(sysIoUringSetup, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("%w: io_uring_setup: %w", errUringUnsupported, errno)
	}
	r := &ring{fd: int(fd), entries: p.sqEntries}
	if err := r.mapRings(&p); err != nil {
		r.close()
		return nil, err
	}
	if err := r.probe(); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

func (r *ring) mmap(offset int64, size uint32) ([]byte, error) {
	mem, err := unix.Mmap(r.fd, offset, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("%w: mmap of the rings: %w", errUringUnsupported, err)
	}
	r.mems = append(r.mems, mem)
	return mem, nil
}

func (r *ring) mapRings(p *uringParams) error {
	sqSize := p.sqOff.array + p.sqEntries*4
	cqSize := p.cqOff.cqes + p.cqEntries*uint32(unsafe.Sizeof(cqe{}))
	single := p.features&ioringFeatSingleMmap != 0
	if single {
		sqSize = max(sqSize, cqSize)
	}
	sq, err := r.mmap(ioringOffSQRing, sqSize)
	if err != nil {
		return err
	}
	cq := sq
	if !single {
		if cq, err = r.mmap(ioringOffCQRing, cqSize); err != nil {
			return err
		}
	}
	sqeMem, err := r.mmap(ioringOffSQEs, p.sqEntries*uint32(unsafe.Sizeof(sqe{})))
	if err != nil {
		return err
	}
	r.sqHead = (*uint32)(unsafe.Pointer(&sq[p.sqOff.head]))
	r.sqTail = (*uint32)(unsafe.Pointer(&sq[p.sqOff.tail]))
	r.sqMask = *(*uint32)(unsafe.Pointer(&sq[p.sqOff.ringMask]))
	r.sqArray = unsafe.Slice((*uint32)(unsafe.Pointer(&sq[p.sqOff.array])), p.sqEntries)
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&sqeMem[0])), p.sqEntries)
	r.cqHead = (*uint32)(unsafe.Pointer(&cq[p.cqOff.head]))
	r.cqTail = (*uint32)(unsafe.Pointer(&cq[p.cqOff.tail]))
	r.cqMask = *(*uint32)(unsafe.Pointer(&cq[p.cqOff.ringMask]))
	r.cqes = unsafe.Slice((*cqe)(unsafe.Pointer(&cq[p.cqOff.cqes])), p.cqEntries)
	return nil
}

// probe refuses kernels without the opcodes used here (READ needs 5.6).
func (r *ring) probe() error {
	pr := new(probe)
	_, _, errno := unix.Syscall6(sysIoUringRegister, uintptr(r.fd), ioringRegisterProbe,
		uintptr(unsafe.Pointer(pr)), probeOpsMax, 0, 0)
	if errno != 0 {
		return fmt.Errorf("%w: opcode probe: %w", errUringUnsupported, errno)
	}
	for _, op := range []uint8{ioringOpNop, ioringOpWritev, ioringOpFsync, ioringOpRead} {
		if op > pr.lastOp || pr.ops[op].flags&ioringProbeOpSupported == 0 {
			return fmt.Errorf("%w: opcode %d not supported by this kernel", errUringUnsupported, op)
		}
	}
	return nil
}

// registerEventfd makes the kernel signal efd for every completion posted.
func (r *ring) registerEventfd(efd int) error {
	fd := int32(efd)
	_, _, errno := unix.Syscall6(sysIoUringRegister, uintptr(r.fd), ioringRegisterEventfd,
		uintptr(unsafe.Pointer(&fd)), 1, 0, 0)
	if errno != 0 {
		return fmt.Errorf("%w: registering the completion eventfd: %w", errUringUnsupported, errno)
	}
	return nil
}

// push queues one entry; the caller holds the submission lock and has
// checked that a slot is free (at most entries operations are in flight).
func (r *ring) push(e sqe) {
	tail := *r.sqTail
	head := atomic.LoadUint32(r.sqHead)
	if tail-head >= r.entries {
		assert.Failf("io_uring submission queue full: %d queued", tail-head)
	}
	i := tail & r.sqMask
	r.sqes[i] = e
	r.sqArray[i] = i
	atomic.StoreUint32(r.sqTail, tail+1)
}

// enter is io_uring_enter(2).
func (r *ring) enter(toSubmit, minComplete, flags uint32) (int, error) {
	n, _, errno := unix.Syscall6(sysIoUringEnter, uintptr(r.fd), uintptr(toSubmit), uintptr(minComplete),
		uintptr(flags), 0, 0)
	if errno != 0 {
		return int(n), errno
	}
	return int(n), nil
}

// reap hands every available completion to deliver and returns how many.
func (r *ring) reap(deliver func(c cqe)) int {
	head := *r.cqHead
	tail := atomic.LoadUint32(r.cqTail)
	n := 0
	for ; head != tail; head++ {
		deliver(r.cqes[head&r.cqMask])
		n++
	}
	atomic.StoreUint32(r.cqHead, head)
	return n
}

func (r *ring) close() {
	for _, m := range r.mems {
		_ = unix.Munmap(m)
	}
	r.mems = nil
	_ = unix.Close(r.fd)
}
