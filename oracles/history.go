// Package oracles checks what a simulated run observed. The simulator
// records every client operation (call, return, outcome) and every fault
// that may legitimately lose data into a History; the oracles then judge
// it: linearizability of each partition log (porcupine), an O(n) offset
// oracle over messages and consumer offsets, durability of acknowledged
// metadata, liveness after heal, and vacuity over coverage marks.
//
// Time in a history is a sequence number, not ticks: every call, return,
// crash and damage takes the next one, so two events never tie.
package oracles

import "math"

// Time orders history events. Never is the return of an operation whose
// outcome nobody learned and whose effect no crash bounded.
type Time = int64

// Never is the return time of an indefinite operation.
const Never Time = math.MaxInt64

// PartKey names one partition by the names clients address it with.
type PartKey struct {
	Stream, Topic string
	Partition     uint32
}

// Durability is a topic's acknowledgement policy (DESIGN.md, Durability).
type Durability uint8

const (
	DurabilityNone       Durability = 1 // acknowledged when queued
	DurabilityReplicated Durability = 2 // acknowledged when written (page cache)
	DurabilityPersisted  Durability = 3 // acknowledged when fdatasync'd
)

// CrashKind is what ended a node process.
type CrashKind uint8

const (
	// CrashKill is the death of the process: requests in flight are lost,
	// the page cache survives.
	CrashKill CrashKind = iota + 1
	// CrashPowerLoss also loses every write not yet synced (torn or not).
	CrashPowerLoss
)

// Covers says whether an acknowledgement under d survives a crash of kind k.
func (d Durability) Covers(k CrashKind) bool {
	switch k {
	case CrashKill:
		return d >= DurabilityReplicated
	case CrashPowerLoss:
		return d == DurabilityPersisted
	}
	return false
}

// Outcome is what the client learned of a write.
type Outcome uint8

const (
	// OutcomeOK: acknowledged.
	OutcomeOK Outcome = iota + 1
	// OutcomeFailed: refused before it could take effect.
	OutcomeFailed
	// OutcomeUnknown: the connection or the node died first; it may or may
	// not have taken effect.
	OutcomeUnknown
)

// Msg names one message: the batch it was sent in and its index there.
type Msg struct {
	Batch uint64
	Index uint32
}

// Append is one SendMessages attempt to one partition. A resend of the
// same batch is another Append with the same Batch and Resend set.
type Append struct {
	Part         PartKey
	Client       int
	Batch        uint64
	Count        uint32
	Policy       Durability
	Outcome      Outcome
	Base         uint64 // the acknowledged base offset (OutcomeOK)
	Resend       bool
	Call, Return Time
}

// Read is one poll that returned messages or an empty answer (a failed
// poll is not recorded). ByOffset polls asked for Offset; a poll by the
// consumer's stored offset (next) did not know where it would start.
type Read struct {
	Part         PartKey
	Client       int
	ByOffset     bool
	Offset       uint64
	Count        uint32
	First        uint64 // offset of Msgs[0]
	Msgs         []Msg
	Current      uint64 // the partition's current offset in the reply
	Epoch        int
	Call, Return Time
}

// Crash ends node epoch Epoch; the next boot starts Epoch+1.
type Crash struct {
	Kind  CrashKind
	At    Time
	Epoch int
}

// Damage is a durable byte of a partition's segment corrupted at rest (bit
// rot): with one replica there is no other copy, so the record holding it,
// at Offset, and everything after it may be legitimately lost. A bounded
// damage (End > 0) is a sealed segment truncated at rest: only offsets
// [Offset, End) may be lost, as the segments after it are intact.
type Damage struct {
	Part   PartKey
	Offset uint64
	End    uint64
	At     Time
}

// covers says whether d may have lost offset o.
func (d Damage) covers(o uint64) bool { return o >= d.Offset && (d.End == 0 || o < d.End) }

// WriteFault is a write of a partition's segment file that failed: the
// partition refused appends until reopened, and appends acknowledged
// under durability none before it may be lost.
type WriteFault struct {
	Part PartKey
	At   Time
}

// MetaDamage is a durable byte of a metadata file corrupted at rest: with
// one replica, acknowledged metadata may be legitimately lost after it.
type MetaDamage struct {
	File string
	At   Time
}

// History is everything one run observed, in the order recorded.
type History struct {
	Appends     []*Append
	Reads       []*Read
	Crashes     []Crash
	Damages     []Damage
	MetaDamages []MetaDamage
	WriteFaults []WriteFault
	Stores      []*OffsetStore
	Gets        []*OffsetGet
	Creates     []*MetaCreate
	Lists       []*MetaList
	Topics      []*MetaTopic
	// Final holds, per partition, the whole log read back after heal.
	Final map[PartKey][]Msg
}
