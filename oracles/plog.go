package oracles

// plog is an immutable partition log for the porcupine model: a list of
// batches from the newest back to the oldest, sharing prefixes, so a step
// never copies the log and a crash's truncation is a walk back.
type plog struct {
	prev  *plog
	batch uint64
	count uint32
	end   uint64 // messages in the log up to and including this batch
	n     int    // batches up to and including this one
	hash  uint64
}

func (l *plog) length() uint64 {
	if l == nil {
		return 0
	}
	return l.end
}

func (l *plog) push(batch uint64, count uint32) *plog {
	h := uint64(0x9e3779b97f4a7c15)
	n := 1
	if l != nil {
		h, n = l.hash, l.n+1
	}
	h = (h ^ batch*0xff51afd7ed558ccd ^ uint64(count)<<32) * 0xc4ceb9fe1a85ec53
	return &plog{prev: l, batch: batch, count: count, end: l.length() + uint64(count), n: n, hash: h}
}

func (l *plog) hashOf() uint64 {
	if l == nil {
		return 0
	}
	return l.hash
}

// equal compares two logs batch by batch, stopping at a shared prefix.
func (l *plog) equal(o *plog) bool {
	for l != o {
		if l == nil || o == nil || l.n != o.n || l.end != o.end || l.hash != o.hash ||
			l.batch != o.batch || l.count != o.count {
			return false
		}
		l, o = l.prev, o.prev
	}
	return true
}

// at returns the message at offset, false past the end.
func (l *plog) at(offset uint64) (Msg, bool) {
	for e := l; e != nil; e = e.prev {
		start := e.end - uint64(e.count)
		if offset >= e.end {
			return Msg{}, false
		}
		if offset >= start {
			return Msg{Batch: e.batch, Index: uint32(offset - start)}, true
		}
	}
	return Msg{}, false
}

// prefixesFrom lists the log and every prefix of it, at batch
// boundaries, that still holds at least minEnd messages.
func (l *plog) prefixesFrom(minEnd uint64) []*plog {
	var out []*plog
	for e := l; ; e = e.prev {
		if e.length() < minEnd {
			return out
		}
		out = append(out, e)
		if e == nil {
			return out
		}
	}
}
