package partition

import (
	"encoding/binary"
	"maps"
	"slices"

	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
	"github.com/zeebo/xxh3"
)

// The producer journal (`producers.log` in the partition directory) keeps
// the producer table of a standalone partition across restarts (IDEM-10).
// Each producer batch appends one record, and the record's write (and
// sync, when the batch asks for one) completes before the batch's own
// write is submitted: a batch on disk always has its record, so a resend
// after a crash finds it. A record whose batch was lost (its offsets are
// past the recovered end) is dropped at recovery. Records:
//
//	[producer_id u64][epoch u32][count u32][first_seq u64][base u64]
//	[base_timestamp u64][XXH3-64 of the 40 bytes before]
//
// Past producerJournalBytesMax the journal is rewritten as the table's
// image in records (producers.tmp, then renamed over it: atomic).
const (
	producerJournalName     = "producers.log"
	producerJournalTmpName  = "producers.tmp"
	producerRecordBytes     = 48
	producerJournalBytesMax = 1 << 20
	// producerJournalReadMax bounds the read at recovery: a journal never
	// grows far past its compaction point (one flush's records beyond it).
	producerJournalReadMax = storage.ReadBytesMax
)

// producerJournal is the log's view of its journal file.
type producerJournal struct {
	exists   bool   // the file was created (or found at boot)
	bytes    uint64 // its length: the next record goes there
	inflight int    // journal requests not yet completed
	// writing holds the tokens whose records are in the write in flight.
	writing []uint64
	// compactNow: recovery dropped records (lost batches, a torn tail),
	// whose places must not be read again once offsets are reused.
	compactNow bool
	// syncing: the boot's syncs of the segments holding the recovered
	// table's batches are in flight (syncRecoveredBatches).
	syncing bool
}

func (l *Log) journalPath(name string) string { return l.cfg.Dir + "/" + name }

func encodeProducerRecord(b ProducerBatch, base, ts uint64) []byte {
	r := make([]byte, producerRecordBytes)
	binary.LittleEndian.PutUint64(r, b.ID)
	binary.LittleEndian.PutUint32(r[8:], b.Epoch)
	binary.LittleEndian.PutUint32(r[12:], b.Count)
	binary.LittleEndian.PutUint64(r[16:], b.FirstSeq)
	binary.LittleEndian.PutUint64(r[24:], base)
	binary.LittleEndian.PutUint64(r[32:], ts)
	binary.LittleEndian.PutUint64(r[40:], xxh3.Hash(r[:40]))
	return r
}

// replayProducerJournal rebuilds a table from journal bytes, stopping at
// the first torn or corrupt record; records of batches at or past end (lost
// by the crash) are skipped, and so are records older than what a
// producer already holds (a compaction's stale tail).
// dropped says whether any record was skipped or the journal did not end
// on a whole valid record.
func replayProducerJournal(data []byte, end uint64) (p *Producers, dropped bool) {
	p = NewProducers()
	for len(data) >= producerRecordBytes {
		r := data[:producerRecordBytes]
		data = data[producerRecordBytes:]
		if xxh3.Hash(r[:40]) != binary.LittleEndian.Uint64(r[40:]) {
			return p, true
		}
		b := ProducerBatch{ID: binary.LittleEndian.Uint64(r), Epoch: binary.LittleEndian.Uint32(r[8:]),
			Count: binary.LittleEndian.Uint32(r[12:]), FirstSeq: binary.LittleEndian.Uint64(r[16:])}
		base, ts := binary.LittleEndian.Uint64(r[24:]), binary.LittleEndian.Uint64(r[32:])
		if base+uint64(b.Count) > end || p.holdsFrom(b.ID, b.Epoch, base) {
			dropped = true
			continue
		}
		p.Record(b, base, ts)
	}
	return p, dropped || len(data) > 0
}

// holdsFrom says whether producer id already has a committed batch at or
// past base in epoch or a later one.
func (p *Producers) holdsFrom(id uint64, epoch uint32, base uint64) bool {
	st, ok := p.byID[id]
	if !ok {
		return false
	}
	if st.epoch > epoch {
		return true
	}
	return st.epoch == epoch && slices.ContainsFunc(st.done, func(r producerRun) bool { return r.base >= base })
}

// journalQueued writes the records of queued producer appends not yet
// journaled, in one write at the journal's end (and one sync when one of
// them asks for it). One journal request runs at a time.
func (l *Log) journalQueued() {
	if l.journal.inflight > 0 {
		return
	}
	if l.journal.compactNow {
		l.compactJournal()
		return
	}
	var data [][]byte
	sync := false
	for i := range l.queued {
		a := &l.queued[i]
		if !a.hasProducer || a.journaled {
			continue
		}
		data = append(data, a.record)
		l.journal.writing = append(l.journal.writing, a.token)
		sync = sync || a.sync
	}
	if len(data) == 0 {
		l.compactJournal()
		return
	}
	path := l.journalPath(producerJournalName)
	if !l.journal.exists {
		l.journalSubmit(storage.Request{Op: storage.OpCreate, File: path})
		l.journal.exists = true
	}
	l.journalSubmit(storage.Request{Op: storage.OpWrite, File: path, Offset: l.journal.bytes, Data: data})
	l.journal.bytes += uint64(len(data)) * producerRecordBytes
	if sync {
		l.journalSubmit(storage.Request{Op: storage.OpSync, File: path})
	}
}

// compactJournal rewrites a journal past its bound as the table's image.
func (l *Log) compactJournal() {
	if !l.journal.compactNow && (l.journal.bytes < producerJournalBytesMax || l.uncommittedCount > 0) {
		return
	}
	l.journal.compactNow = false
	l.journal.exists = true
	var data [][]byte
	for _, id := range l.producers.sortedIDs() {
		st := l.producers.byID[id]
		for _, r := range st.done {
			b := ProducerBatch{ID: id, Epoch: st.epoch, FirstSeq: r.firstSeq, Count: r.count}
			data = append(data, encodeProducerRecord(b, r.base, st.lastMicros))
		}
	}
	tmp, path := l.journalPath(producerJournalTmpName), l.journalPath(producerJournalName)
	l.journalSubmit(storage.Request{Op: storage.OpDelete, File: tmp})
	l.journalSubmit(storage.Request{Op: storage.OpCreate, File: tmp})
	if len(data) > 0 {
		l.journalSubmit(storage.Request{Op: storage.OpWrite, File: tmp, Data: data})
	}
	l.journalSubmit(storage.Request{Op: storage.OpSync, File: tmp})
	l.journalSubmit(storage.Request{Op: storage.OpRename, File: tmp, Target: path})
	l.journal.bytes = uint64(len(data)) * producerRecordBytes
}

func (l *Log) journalSubmit(r storage.Request) {
	l.journal.inflight++
	l.submit(r, reqJournal, 0)
}

// onJournal counts a journal request down; when the last completes, the
// appends whose records it wrote may be written themselves.
func (l *Log) onJournal(c storage.Completion) {
	l.journal.inflight--
	if c.Result != storage.ResultOK {
		l.journal.writing = l.journal.writing[:0]
		l.fail(wire.CannotSaveMessagesToSegment, c)
		return
	}
	if l.journal.inflight > 0 {
		return
	}
	l.journal.syncing = false
	for _, token := range l.journal.writing {
		for i := range l.queued {
			if l.queued[i].token == token {
				l.queued[i].journaled = true
			}
		}
	}
	l.journal.writing = l.journal.writing[:0]
}

// resetJournal forgets the journal of a purged incarnation; its requests
// in flight were orphaned by the purge.
func (l *Log) resetJournal() {
	if l.journal.exists {
		l.purgeDelete(l.journalPath(producerJournalName))
	}
	l.journal = producerJournal{}
}

// syncRecoveredBatches syncs the segments holding the batches the
// recovered table may answer resends with. A killed process leaves its
// unsynced writes in the page cache, and boot reads them as the log (and
// the journal, synced before each write, names them): a resend answered
// from the table would acknowledge a batch a power loss can still take
// (lite seed 542343157). Until the syncs complete a resend of one gets 58.
func (l *Log) syncRecoveredBatches() {
	starts := map[uint64]bool{}
	for _, id := range l.producers.sortedIDs() {
		for _, r := range l.producers.byID[id].done {
			if r.base >= l.logStart() && r.base < l.committedNext {
				starts[l.segmentFor(r.base).start] = true
			}
		}
	}
	for _, start := range slices.Sorted(maps.Keys(starts)) {
		l.journalSubmit(storage.Request{Op: storage.OpSync, File: l.segmentPath(start, extLog)})
		l.journal.syncing = true
	}
}

// ProducersSyncing says whether the boot's syncs of the recovered table's
// batches are still in flight: a resend the table answers must wait.
func (l *Log) ProducersSyncing() bool { return l.journal.syncing }

func (p *Producers) sortedIDs() []uint64 {
	ids := make([]uint64, 0, len(p.byID))
	for id := range p.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
