package vsr

import (
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// Disk is how the core asks for I/O: Submit stamps the request with a fresh id
// and queues it; the completion comes back through the owner's Complete.
// Requests for one file complete in submission order.
type Disk interface {
	Submit(r storage.Request) storage.ReqID
}

// flushesInFlightMax bounds the journal writes awaiting their sync; past it
// the caller keeps prepares queued until one lands (back-pressure).
const flushesInFlightMax = 64

type flush struct {
	write  storage.ReqID
	sync   storage.ReqID
	lastOp uint64
}

// Journal appends prepares to one write-ahead log file. Every flush is one
// vectored write of all queued prepares followed by one fdatasync, so many
// ops share one sync (group commit).
type Journal struct {
	disk      Disk
	path      string
	sizeBytes uint64
	queued    [][]byte
	queuedOp  uint64
	flushes   []flush
	durableOp uint64
}

// OpenJournal continues the log at path, whose first sizeBytes are valid and
// hold ops up to durableOp.
func OpenJournal(disk Disk, path string, sizeBytes, durableOp uint64) *Journal {
	return &Journal{disk: disk, path: path, sizeBytes: sizeBytes, durableOp: durableOp, queuedOp: durableOp}
}

// Append queues p; it becomes durable after a Flush and its sync completion.
func (j *Journal) Append(p *Prepare) {
	assert.That(p.Op == j.queuedOp+1, "journal op %d after %d", p.Op, j.queuedOp)
	j.queued = append(j.queued, p.Encode(nil))
	j.queuedOp = p.Op
}

// Flush writes every queued prepare and syncs, unless too many flushes are in flight.
func (j *Journal) Flush() {
	if len(j.queued) == 0 || len(j.flushes) >= flushesInFlightMax {
		return
	}
	w := storage.Request{Op: storage.OpWrite, File: j.path, Offset: j.sizeBytes, Data: j.queued}
	j.sizeBytes += w.Size()
	write := j.disk.Submit(w)
	sync := j.disk.Submit(storage.Request{Op: storage.OpSync, File: j.path})
	j.flushes = append(j.flushes, flush{write: write, sync: sync, lastOp: j.queuedOp})
	j.queued = nil
}

// Complete consumes c if it belongs to the journal and reports whether it did.
func (j *Journal) Complete(c storage.Completion) bool {
	for i, f := range j.flushes {
		if f.write == c.ID {
			// A journal that cannot be written cannot promise anything: stop.
			assert.That(c.Result == storage.ResultOK, "journal %s write failed: %s", j.path, c.Err)
			return true
		}
		if f.sync != c.ID {
			continue
		}
		assert.That(c.Result == storage.ResultOK, "journal %s sync failed: %s", j.path, c.Err)
		assert.That(i == 0, "journal syncs complete in order")
		j.durableOp = f.lastOp
		j.flushes = j.flushes[1:]
		return true
	}
	return false
}

// DurableOp is the highest op known to be on stable storage.
func (j *Journal) DurableOp() uint64 { return j.durableOp }

// Idle reports whether nothing is queued or in flight.
func (j *Journal) Idle() bool { return len(j.queued) == 0 && len(j.flushes) == 0 }

// Scan parses a journal file's bytes and returns its whole, valid prepares in
// file order and the length of the valid prefix; bytes past it are a torn
// or corrupt tail to cut.
func Scan(b []byte) ([]Prepare, int) {
	var ps []Prepare
	pos := 0
	for pos < len(b) {
		p, n, ok := DecodePrepare(b[pos:])
		if !ok {
			break
		}
		ps = append(ps, p)
		pos += n
	}
	return ps, pos
}
