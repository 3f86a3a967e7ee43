package partition

import (
	"slices"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// Idempotent producer state of one partition (IDEM-4..13). The partition's
// writer (the log's node, or the group's primary) checks every producer
// batch against it before offsets are assigned; every replica records a
// batch when it commits, so the committed part is the same everywhere and
// travels in checkpoints.
const (
	// ProducersMax bounds the producers one partition tracks (IDEM-12).
	ProducersMax = 4096
	// producerBatchesKept is how many committed batches of a producer a
	// resend may name (IDEM-5).
	producerBatchesKept = 5
	// producerIdleMicrosMax forgets a producer 24 hours after its last
	// batch (IDEM-13), in the partition's append clock (base_timestamp).
	producerIdleMicrosMax = 24 * 60 * 60 * 1_000_000
	// producerPendingMax bounds one producer's uncommitted batches; the
	// log's own queue bound (appendsQueuedMax) is the tighter one in
	// practice, this one keeps the per-producer scan bounded by name.
	producerPendingMax = appendsQueuedMax
)

// ProducerBatch is what a send_producer_messages batch claims: messages
// FirstSeq..FirstSeq+Count-1 of producer ID in epoch Epoch.
type ProducerBatch struct {
	ID       uint64
	Epoch    uint32
	FirstSeq uint64
	Count    uint32
}

// producerRun is one batch of a producer: committed (Base set) or pending.
type producerRun struct {
	firstSeq uint64
	count    uint32
	base     uint64 // first offset (committed runs)
	token    uint64 // the writer's handle (pending runs)
}

type producerState struct {
	epoch      uint32
	nextSeq    uint64 // sequence after the last committed batch
	lastMicros uint64 // append time of the last committed batch
	done       []producerRun
	pending    []producerRun // admitted, not committed, in order
}

// Producers is the table of one partition.
type Producers struct {
	byID map[uint64]*producerState
}

// NewProducers returns an empty table.
func NewProducers() *Producers {
	return &Producers{byID: make(map[uint64]*producerState)}
}

// Len is the number of producers tracked.
func (p *Producers) Len() int { return len(p.byID) }

// Verdict is Check's answer: Code OK and Dup with the first write's base
// offset for a resend of a committed batch; Code OK and not Dup for a new
// batch; otherwise the refusal (57 while an uncommitted write holds it,
// ProducerSequenceOutOfOrder, ProducerEpochFenced).
type Verdict struct {
	Code wire.Code
	Dup  bool
	Base uint64
}

// Check decides a batch before offsets are assigned (IDEM-4).
// nowMicros is the partition's append clock: a producer idle longer
// than 24 hours is unknown.
func (p *Producers) Check(b ProducerBatch, nowMicros uint64) Verdict {
	return p.live(b.ID, nowMicros).decide(b)
}

// CheckAhead is Check for a replica set's primary, whose table holds only
// applied batches: ahead are the producer batches of the ops proposed but
// not applied yet, in op order (its pipeline, or after a view change the
// log it took over), which count as pending writes. It changes nothing: the
// table is the same on every replica, and only commits change it.
func (p *Producers) CheckAhead(b ProducerBatch, nowMicros uint64, ahead []ProducerBatch) Verdict {
	return withAhead(p.peek(b.ID, nowMicros), b.ID, ahead).decide(b)
}

// withAhead is st (nil: unknown) with producer id's batches of ahead as
// its pending writes, on a copy when there are any.
func withAhead(st *producerState, id uint64, ahead []ProducerBatch) *producerState {
	v := st
	for _, a := range ahead {
		if a.ID != id {
			continue
		}
		if v == st {
			if st == nil {
				v = &producerState{epoch: a.Epoch}
			} else {
				c := *st
				c.pending = nil
				v = &c
			}
		}
		if a.Epoch < v.epoch {
			continue // a fenced write cannot be ahead of a newer epoch
		}
		if a.Epoch > v.epoch {
			v.epoch, v.nextSeq, v.done, v.pending = a.Epoch, 0, nil, nil
		}
		v.pending = append(v.pending, producerRun{firstSeq: a.FirstSeq, count: a.Count})
	}
	return v
}

// decide is Check's verdict on b for producer state st (nil: unknown).
func (st *producerState) decide(b ProducerBatch) Verdict {
	if st == nil {
		if b.FirstSeq != 0 {
			return Verdict{Code: wire.ProducerSequenceOutOfOrder}
		}
		return Verdict{}
	}
	switch {
	case b.Epoch < st.epoch:
		return Verdict{Code: wire.ProducerEpochFenced}
	case b.Epoch > st.epoch:
		if len(st.pending) > 0 {
			return Verdict{Code: wire.TransientNotCommitted}
		}
		if b.FirstSeq != 0 {
			return Verdict{Code: wire.ProducerSequenceOutOfOrder}
		}
		return Verdict{}
	}
	for _, r := range st.done {
		if r.firstSeq == b.FirstSeq {
			if r.count != b.Count {
				return Verdict{Code: wire.ProducerSequenceOutOfOrder}
			}
			return Verdict{Dup: true, Base: r.base}
		}
	}
	for _, r := range st.pending {
		if r.firstSeq == b.FirstSeq {
			return Verdict{Code: wire.TransientNotCommitted}
		}
	}
	if b.FirstSeq != st.admittedNext() || len(st.pending) >= producerPendingMax {
		return Verdict{Code: wire.ProducerSequenceOutOfOrder}
	}
	return Verdict{}
}

// live returns the producer's state, forgetting it first when it has been
// idle for 24 hours and holds nothing pending.
func (p *Producers) live(id uint64, nowMicros uint64) *producerState {
	st := p.peek(id, nowMicros)
	if st == nil {
		delete(p.byID, id)
	}
	return st
}

// peek returns the producer's state, nil when unknown or idle for 24
// hours with nothing pending.
func (p *Producers) peek(id uint64, nowMicros uint64) *producerState {
	st, ok := p.byID[id]
	if !ok || len(st.pending) == 0 && nowMicros > st.lastMicros && nowMicros-st.lastMicros > producerIdleMicrosMax {
		return nil
	}
	return st
}

func (st *producerState) admittedNext() uint64 {
	if n := len(st.pending); n > 0 {
		last := st.pending[n-1]
		return last.firstSeq + uint64(last.count)
	}
	return st.nextSeq
}

// Admit records a batch Check passed (not Dup) as pending under the
// writer's token, until Commit or Abandon. nowMicros dates a new entry,
// so eviction does not take it before it commits.
func (p *Producers) Admit(b ProducerBatch, token, nowMicros uint64) {
	st := p.entry(b, nowMicros)
	st.pending = append(st.pending, producerRun{firstSeq: b.FirstSeq, count: b.Count, token: token})
}

// entry returns b's producer, made or moved to b's epoch; a new one may
// evict the producer idle longest (IDEM-12).
func (p *Producers) entry(b ProducerBatch, nowMicros uint64) *producerState {
	st, ok := p.byID[b.ID]
	if !ok {
		if len(p.byID) >= ProducersMax {
			p.evictIdlest()
		}
		st = &producerState{epoch: b.Epoch, lastMicros: nowMicros}
		p.byID[b.ID] = st
	}
	if b.Epoch > st.epoch {
		assert.That(len(st.pending) == 0, "partition: producer epoch moved with writes pending")
		st.epoch, st.nextSeq, st.done = b.Epoch, 0, nil
	}
	return st
}

// evictIdlest drops the producer with the oldest last batch that holds no
// pending write; ties go to the lowest id, so every replica drops the same.
func (p *Producers) evictIdlest() {
	var victim uint64
	var oldest uint64
	found := false
	// Map order cannot leak: the minimum of (lastMicros, id) is the same
	// in any order.
	for id, st := range p.byID {
		if len(st.pending) > 0 {
			continue
		}
		if !found || st.lastMicros < oldest || (st.lastMicros == oldest && id < victim) {
			victim, oldest, found = id, st.lastMicros, true
		}
	}
	if found {
		delete(p.byID, victim)
	}
}

// Commit moves the pending batch with token to the producer's committed
// history at base, appended at atMicros.
func (p *Producers) Commit(id, token, base, atMicros uint64) {
	st, ok := p.byID[id]
	if !ok || len(st.pending) == 0 || st.pending[0].token != token {
		assert.Failf("partition: producer %d commits token %d out of order", id, token)
	}
	r := st.pending[0]
	st.pending = st.pending[1:]
	st.record(r.firstSeq, r.count, base, atMicros)
}

// Abandon drops every pending batch of producer id from token on: the
// writes failed, and those after the first failed one failed too.
func (p *Producers) Abandon(id, token uint64) {
	st, ok := p.byID[id]
	if !ok {
		return
	}
	for i, r := range st.pending {
		if r.token == token {
			st.pending = st.pending[:i]
			return
		}
	}
}

// Record is a replica's commit of a batch it did not Admit (a backup, a
// replay): the same effect on the committed state as Admit then Commit.
// A producer idle for 24 hours is forgotten first, as Check forgot it.
func (p *Producers) Record(b ProducerBatch, base, atMicros uint64) {
	p.live(b.ID, atMicros)
	st := p.entry(b, atMicros)
	st.record(b.FirstSeq, b.Count, base, atMicros)
}

func (st *producerState) record(firstSeq uint64, count uint32, base, atMicros uint64) {
	st.done = append(st.done, producerRun{firstSeq: firstSeq, count: count, base: base})
	if len(st.done) > producerBatchesKept {
		st.done = slices.Delete(st.done, 0, len(st.done)-producerBatchesKept)
	}
	st.nextSeq = firstSeq + uint64(count)
	st.lastMicros = max(st.lastMicros, atMicros)
}
