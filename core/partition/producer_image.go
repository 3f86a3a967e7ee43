package partition

import (
	"encoding/binary"
	"errors"
)

// A replica set's partition group keeps its producer table beside the
// log, not in a journal of its own: the table is part of the group's
// checkpoint image (and so of state transfer), and the producer batches
// of the ops after the checkpoint are replayed from the group's journal,
// each prepare naming its batch (ProducerBatchBytes before the record).
// Image layout, producers in ascending id order:
//
//	[count u32] then count x [id u64][epoch u32][next_seq u64]
//	[last_micros u64][runs u32] then runs x [first_seq u64][count u32][base u64]
const (
	// ProducerBatchBytes is the encoded size of a ProducerBatch:
	// [producer_id u64][epoch u32][count u32][first_seq u64].
	ProducerBatchBytes  = 24
	producerImageHead   = 4
	producerEntryBytes  = 32
	producerRunBytes    = 20
	producerImageMaxLen = producerImageHead + ProducersMax*(producerEntryBytes+producerBatchesKept*producerRunBytes)
)

// AppendProducerBatch appends b's encoding to dst.
func AppendProducerBatch(dst []byte, b ProducerBatch) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, b.ID)
	dst = binary.LittleEndian.AppendUint32(dst, b.Epoch)
	dst = binary.LittleEndian.AppendUint32(dst, b.Count)
	return binary.LittleEndian.AppendUint64(dst, b.FirstSeq)
}

// DecodeProducerBatch reads a ProducerBatch from the front of b; ok is
// false when b is shorter than one.
func DecodeProducerBatch(b []byte) (ProducerBatch, []byte, bool) {
	if len(b) < ProducerBatchBytes {
		return ProducerBatch{}, nil, false
	}
	le := binary.LittleEndian
	return ProducerBatch{ID: le.Uint64(b), Epoch: le.Uint32(b[8:]), Count: le.Uint32(b[12:]), FirstSeq: le.Uint64(b[16:])},
		b[ProducerBatchBytes:], true
}

// AppendImage appends the table's committed state to dst (pending writes
// are not state: they commit, and are replayed, or fail).
func (p *Producers) AppendImage(dst []byte) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, uint32(len(p.byID)))
	for _, id := range p.sortedIDs() {
		st := p.byID[id]
		dst = le.AppendUint64(dst, id)
		dst = le.AppendUint32(dst, st.epoch)
		dst = le.AppendUint64(dst, st.nextSeq)
		dst = le.AppendUint64(dst, st.lastMicros)
		dst = le.AppendUint32(dst, uint32(len(st.done)))
		for _, r := range st.done {
			dst = le.AppendUint64(dst, r.firstSeq)
			dst = le.AppendUint32(dst, r.count)
			dst = le.AppendUint64(dst, r.base)
		}
	}
	return dst
}

// DecodeProducersImage reads a table written by AppendImage, which must be
// the whole of b.
func DecodeProducersImage(b []byte) (*Producers, error) {
	le := binary.LittleEndian
	if len(b) < producerImageHead || len(b) > producerImageMaxLen {
		return nil, errors.New("producer table image of a wrong length")
	}
	count := le.Uint32(b)
	if count > ProducersMax {
		return nil, errors.New("producer table image over the producer bound")
	}
	p, rest := NewProducers(), b[producerImageHead:]
	var prev uint64
	for i := range count {
		if len(rest) < producerEntryBytes {
			return nil, errors.New("producer table image cut short")
		}
		id := le.Uint64(rest)
		if i > 0 && id <= prev {
			return nil, errors.New("producer table image out of id order")
		}
		prev = id
		st := &producerState{epoch: le.Uint32(rest[8:]), nextSeq: le.Uint64(rest[12:]), lastMicros: le.Uint64(rest[20:])}
		runs := le.Uint32(rest[28:])
		rest = rest[producerEntryBytes:]
		if runs > producerBatchesKept || uint64(len(rest)) < uint64(runs)*producerRunBytes {
			return nil, errors.New("producer table image holds a bad batch list")
		}
		for range runs {
			st.done = append(st.done, producerRun{firstSeq: le.Uint64(rest), count: le.Uint32(rest[8:]), base: le.Uint64(rest[12:])})
			rest = rest[producerRunBytes:]
		}
		p.byID[id] = st
	}
	if len(rest) != 0 {
		return nil, errors.New("producer table image has trailing bytes")
	}
	return p, nil
}
