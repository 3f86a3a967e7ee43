package disk

import (
	"math/rand/v2"

	"github.com/iggygo/iggy/io/storage"
)

// Fault is what the disk does wrong to one request.
type Fault uint8

const (
	// FaultNone runs the request as asked.
	FaultNone Fault = iota
	// FaultIOError fails the request with ResultIOError before it changes anything.
	FaultIOError
	// FaultCorruptRead runs an OpRead and flips one bit of what it returns
	// (a latent sector error the drive did not notice); other ops run as asked.
	FaultCorruptRead
	// FaultMisdirectedWrite runs an OpWrite one to eight sectors past where
	// it was asked, in the same file, and reports success (a firmware or
	// driver bug): the intended bytes keep what they held and others are
	// overwritten. Other ops run as asked.
	FaultMisdirectedWrite
)

// misdirectSectorBytes is the step a misdirected write lands off by.
const misdirectSectorBytes = 512

// Injector decides the fault for req just before it runs, drawing from rng
// (the disk's seeded PRNG) so a seed replays the same faults.
type Injector func(req *storage.Request, rng *rand.Rand) Fault

func applyFault(f Fault, req *storage.Request, rng *rand.Rand, execute func(*storage.Request) storage.Completion) storage.Completion {
	switch f {
	case FaultIOError:
		return storage.Completion{ID: req.ID, Result: storage.ResultIOError,
			Err: req.Op.String() + " " + req.File + ": injected I/O error"}
	case FaultMisdirectedWrite:
		if req.Op == storage.OpWrite {
			elsewhere := *req
			elsewhere.Offset += uint64(1+rng.IntN(8)) * misdirectSectorBytes
			return execute(&elsewhere)
		}
	case FaultCorruptRead:
		c := execute(req)
		if req.Op == storage.OpRead && len(c.Data) > 0 {
			i := rng.IntN(len(c.Data) * 8)
			c.Data[i/8] ^= 1 << (i % 8)
		}
		return c
	}
	return execute(req)
}
