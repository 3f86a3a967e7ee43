package partition

import "github.com/iggygo/iggy/wire"

// Event is one result of the log, drained by TakeEvents in the order the
// log produced them.
type Event interface{ isEvent() }

// Committed reports that the append with Token is durable as asked and
// visible to polls. Commits come in offset order.
type Committed struct {
	Token      uint64
	BaseOffset uint64
	Count      uint32
}

// Failed reports that the append, offset write or offset delete with Token
// did not happen (I/O error, purge, capacity).
type Failed struct {
	Token uint64
	Code  wire.Code
}

// PollDone answers Poll(ID). Records are the pieces of the reply's record
// section in order: a stored record served whole is one piece; a record
// sliced at either end is two pieces, a new 256-byte header and the
// selected frames, which alias the stored or read bytes (never copied).
// A nonzero Code (a read failed or found corrupt data) comes with no
// records.
type PollDone struct {
	ID            uint64
	Code          wire.Code
	Records       [][]byte
	MessagesCount uint32
	CurrentOffset uint64
}

// OffsetStored reports that the offset write or delete with Token completed.
type OffsetStored struct{ Token uint64 }

// Recovered reports the end of Recover. Code is nonzero when the partition
// could not be read (then it does not serve). The counts say what recovery
// had to repair.
type Recovered struct {
	Code             wire.Code
	CurrentOffset    uint64
	Segments         int
	CutBytes         uint64 // bytes cut from torn or corrupt segment tails
	DroppedSegments  int    // later segments dropped to keep offsets contiguous
	DiscardedOffsets int    // corrupt consumer offset files ignored
	ClampedOffsets   int    // stored offsets beyond the head, clamped to it
	// StaleRevision is the older incarnation whose files were deleted
	// (STOR-27); NewerRevision the newer one that refused recovery; Adopted
	// a nonempty directory without a marker taken as this one (STOR-29).
	StaleRevision, NewerRevision uint64
	Adopted                      bool
	// Damaged lists the sealed segments kept with damage (RefetchDamage
	// off): their files are left as found, and the offsets they no longer
	// hold are refused.
	Damaged []Damaged
}

// WriteFailed reports the write, create or sync failure that broke the log:
// appends get Code until it is reopened (Recover on a new Log) or purged.
// Err is the disk's detail (the operation, the file and the errno).
type WriteFailed struct {
	Code wire.Code
	Err  string
}

// Damaged reports stored bytes of a segment that do not hold valid
// records: found by recovery in a sealed segment, or by a poll's read (then
// once per place, up to damageReportsMax). Bytes [FromByte, ToByte) of Path
// are bad; offsets [FirstOffset, EndOffset) can no longer be served (none
// when equal, or when a poll found it: the record's offsets are unknown).
type Damaged struct {
	Path                   string
	FromByte, ToByte       uint64
	FirstOffset, EndOffset uint64
}

func (Committed) isEvent()    {}
func (Failed) isEvent()       {}
func (PollDone) isEvent()     {}
func (OffsetStored) isEvent() {}
func (Recovered) isEvent()    {}
func (Damaged) isEvent()      {}
func (WriteFailed) isEvent()  {}
