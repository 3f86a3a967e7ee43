package partition

import (
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

// Disk takes the log's requests. Submit assigns r.ID, remembers where to
// route the completion, and returns the id; the node later hands the
// matching Completion to Log.Complete.
type Disk interface {
	Submit(r storage.Request) storage.ReqID
}

type phase uint8

const (
	phaseNew phase = iota
	phaseRecovering
	phaseReady
	phaseFailed // recovery could not read the partition
)

// reqKind says what an in-flight request was for, to route its completion.
type reqKind uint8

const (
	reqOrphan      reqKind = iota // issued before a purge: the result no longer matters
	reqSegCreate                  // OpCreate of a segment file
	reqChunkWrite                 // the .log write of a flushed chunk
	reqChunkSync                  // the fdatasync a chunk asked for
	reqIndexWrite                 // the .index entry of a flushed chunk
	reqSeal                       // sync of a rolled segment's .log or .index
	reqPollRead                   // a poll's read
	reqOffset                     // write, sync or delete of a consumer offset file
	reqRecovery                   // a request of Recover
	reqCleanup                    // deletion of a segment file (retention)
	reqPurgeDelete                // deletion of a purged file: the marker waits for the last
	reqMarker                     // create, truncate, write or sync of created.revision
	reqJournal                    // a request on the producer journal (producer_journal.go)
)

type inflight struct {
	kind reqKind
	ref  uint64 // chunk sequence, offset token, or segment start
}

// Log is the log of one partition. Not safe for concurrent use: the node
// steps it from one goroutine.
type Log struct {
	cfg   Config
	disk  Disk
	phase phase
	// broken is the code of the first write failure; the log then accepts
	// no appends (the state of the tail on disk is unknown) until Purge.
	broken wire.Code
	// markersDue counts incarnation markers due and not yet durable; no
	// append is written meanwhile (revision.go).
	markersDue int
	// sealedGen changes whenever the deletable segments change (a seal
	// completes, segments are deleted, the log starts empty): SealedEnds
	// need not be recomputed while it stays.
	sealedGen uint64

	segments      []*segment // ascending start offsets; the last one is active
	rolling       []*segment // rolled segments waiting to be sealed
	nextOffset    uint64     // offset the next append gets
	committedNext uint64     // offset after the last committed message
	lastTimestamp uint64     // newest base_timestamp assigned (stamps are monotonic)
	sizeBytes     uint64     // committed bytes of all segments
	// missing counts the offsets between segments that no segment holds
	// (damaged sealed segments kept by recovery); polls of them are refused.
	missing uint64
	// damageSeen holds the places polls reported as damaged (Damaged).
	damageSeen map[damagePlace]struct{}

	queued           []queuedAppend // accepted, not yet flushed
	chunks           []*chunk       // flushed, not yet committed, in offset order
	chunkSeq         uint64         // sequence number of the next chunk
	uncommittedCount int
	uncommittedBytes uint64

	cache tailCache
	polls map[storage.ReqID]*pendingPoll

	offsets        map[offsetKey]uint64
	producers      *Producers // idempotent producers (producers.go)
	journal        producerJournal
	offsetFiles    map[offsetKey]offsetFile // files known to exist
	offsetPending  map[uint64]*pendingOffset
	offsetReqCount int

	inflight  map[storage.ReqID]inflight
	nextToken uint64
	events    []Event
	recovery  *recovery
	revision  uint64 // the incarnation, kept in created.revision
	// purgeDeletes counts the deletes of purged files in flight; the new
	// incarnation's marker is written after the last one.
	purgeDeletes int
}

// New returns the log of the partition cfg describes. Call Create for a
// brand-new partition or Recover for one that may have data on disk.
func New(cfg Config, disk Disk) *Log {
	cfg.assertValid()
	assert.That(disk != nil, "partition: nil disk")
	return &Log{
		cfg:           cfg,
		disk:          disk,
		cache:         tailCache{bytesMax: cfg.CacheBytesMax},
		polls:         make(map[storage.ReqID]*pendingPoll),
		offsets:       make(map[offsetKey]uint64),
		producers:     NewProducers(),
		offsetFiles:   make(map[offsetKey]offsetFile),
		offsetPending: make(map[uint64]*pendingOffset),
		inflight:      make(map[storage.ReqID]inflight),
		nextToken:     1,
	}
}

// Create starts a brand-new, empty partition of incarnation revision (its
// created.revision; 0: none): the first segment at offset 0. The log is
// ready at once; appends queue behind the file creation.
func (l *Log) Create(revision uint64) {
	if l.phase != phaseNew {
		assert.Failf("partition: Create in phase %d", l.phase)
	}
	l.revision = revision
	// A delete of an earlier incarnation lost to a crash leaves its files
	// behind, and a create keeps an existing file's bytes: a new partition
	// starts from an empty directory (swarm seed 60883 served a deleted
	// topic's messages as a new one's).
	l.submit(storage.Request{Op: storage.OpDeleteTree, File: l.cfg.Dir}, reqMarker, 0)
	l.dueMarker()
	l.writeRevision()
	l.resetEmpty()
	l.phase = phaseReady
}

// resetEmpty makes the log one empty segment at offset 0 and creates its files.
func (l *Log) resetEmpty() {
	l.sealedGen++
	s := &segment{state: segOpen}
	l.segments = []*segment{s}
	l.rolling = nil
	l.nextOffset, l.committedNext, l.lastTimestamp, l.sizeBytes, l.missing = 0, 0, 0, 0, 0
	l.producers = NewProducers()
	l.submit(storage.Request{Op: storage.OpCreate, File: l.segmentPath(0, extLog)}, reqSegCreate, 0)
	l.submit(storage.Request{Op: storage.OpCreate, File: l.segmentPath(0, extIndex)}, reqSegCreate, 0)
}

// submit sends r to the disk and remembers how to route its completion.
func (l *Log) submit(r storage.Request, kind reqKind, ref uint64) storage.ReqID {
	id := l.disk.Submit(r)
	_, dup := l.inflight[id]
	if dup {
		assert.Failf("partition: disk reused request id %d", id)
	}
	l.inflight[id] = inflight{kind: kind, ref: ref}
	return id
}

// Complete routes the completion of one of the log's requests.
func (l *Log) Complete(c storage.Completion) {
	f, ok := l.inflight[c.ID]
	if !ok {
		assert.Failf("partition: completion of unknown request %d", c.ID)
	}
	delete(l.inflight, c.ID)
	switch f.kind {
	case reqOrphan, reqCleanup:
		// Nothing waits on these. A segment file whose deletion failed is
		// found again at boot and deleted by retention then.
	case reqPurgeDelete:
		l.onPurgeDelete()
	case reqMarker:
		l.onMarker(f, c)
	case reqSegCreate, reqIndexWrite, reqSeal:
		l.onSegmentFile(f, c)
	case reqChunkWrite, reqChunkSync:
		l.onChunk(f, c)
	case reqPollRead:
		l.onPollRead(c)
	case reqOffset:
		l.onOffset(f, c)
	case reqRecovery:
		l.recovery.complete(l, f, c)
	case reqJournal:
		l.onJournal(c)
	default:
		assert.Failf("partition: request kind %d", f.kind)
	}
}

// TakeEvents returns the events produced since the last call.
func (l *Log) TakeEvents() []Event {
	ev := l.events
	l.events = nil
	return ev
}

func (l *Log) emit(e Event) {
	if len(l.events) >= eventsMax {
		assert.Failf("partition: %d events not taken", len(l.events))
	}
	l.events = append(l.events, e)
}

func (l *Log) newToken() uint64 {
	t := l.nextToken
	l.nextToken++
	return t
}

// Stats are the partition's counters, over committed messages.
type Stats struct {
	SizeBytes     uint64
	MessagesCount uint64
	SegmentsCount uint32
	CurrentOffset uint64
}

// Stats reports the committed size, message count, segments and head.
func (l *Log) Stats() Stats {
	return Stats{
		SizeBytes:     l.sizeBytes,
		MessagesCount: l.committedNext - l.logStart() - l.missing,
		SegmentsCount: uint32(len(l.segments)),
		CurrentOffset: l.CurrentOffset(),
	}
}

// CurrentOffset is the highest committed offset, 0 when nothing is committed.
func (l *Log) CurrentOffset() uint64 {
	if l.committedNext == 0 {
		return 0
	}
	return l.committedNext - 1
}

// Empty reports that no message was ever committed (since the last purge).
func (l *Log) Empty() bool { return l.committedNext == 0 }

// logStart is the first offset still held: retention moves it forward.
func (l *Log) logStart() uint64 {
	if len(l.segments) == 0 {
		return 0
	}
	return l.segments[0].start
}

func (l *Log) active() *segment { return l.segments[len(l.segments)-1] }
