package partition

import (
	"sort"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// Strategy is a polling strategy; the values are the wire kinds (§0.2).
type Strategy uint8

const (
	StrategyOffset    Strategy = 1
	StrategyTimestamp Strategy = 2
	StrategyFirst     Strategy = 3
	StrategyLast      Strategy = 4
	// StrategyNext is resolved by the node (stored offset + 1, or 0); the
	// log treats it as StrategyOffset with that value.
	StrategyNext Strategy = 5
)

// CanPoll says whether Poll may be called: OK, or 58 TransientNotAccepted
// while too many polls wait for the disk.
func (l *Log) CanPoll() wire.Code {
	if l.phase != phaseReady || len(l.polls) >= pollsPendingMax {
		return wire.TransientNotAccepted
	}
	return wire.OK
}

// Poll answers with a PollDone{ID: id} event holding up to count committed
// messages selected by the strategy (§5.5), at once from the tail cache
// or after disk reads guided by the sparse index. One poll returns at
// most about ReadBytesMax bytes (and at least one record), so it may hold
// fewer than count messages although more are committed. The caller
// checked CanPoll. (MSG-10, MSG-11, MSG-13)
func (l *Log) Poll(id uint64, strategy Strategy, value uint64, count uint32) {
	l.PollBounded(id, strategy, value, count, l.cfg.ReadBytesMax)
}

// PollBounded is Poll with a reply of at most about bytesMax bytes (at
// most ReadBytesMax, and still at least one record): a deferred poll's
// read never holds more than the memory it reserved (DEFP-13).
func (l *Log) PollBounded(id uint64, strategy Strategy, value uint64, count uint32, bytesMax uint64) {
	code := l.CanPoll()
	if code != wire.OK {
		assert.Failf("partition: Poll refused with %d", code)
	}
	col := collector{remaining: count, bytesLeft: min(bytesMax, l.cfg.ReadBytesMax)}
	if count == 0 || l.committedNext == l.logStart() {
		l.finishPoll(id, &col)
		return
	}
	if strategy == StrategyTimestamp {
		l.pollTimestamp(id, value, col)
		return
	}
	col.start = l.startOffset(strategy, value, count)
	if col.start >= l.committedNext {
		l.finishPoll(id, &col)
		return
	}
	if v := l.cache.view(); len(v) > 0 && col.start >= v[0].base {
		l.serveCached(id, &col, v)
		return
	}
	l.readFrom(&pendingPoll{id: id, col: col}, col.start)
}

// startOffset is where an offset-like strategy starts; never before the log
// start, which retention moves forward.
func (l *Log) startOffset(strategy Strategy, value uint64, count uint32) uint64 {
	start := l.logStart()
	switch strategy {
	case StrategyOffset, StrategyNext:
		start = max(start, value)
	case StrategyFirst:
	case StrategyLast:
		if l.committedNext > uint64(count) {
			start = max(start, l.committedNext-uint64(count))
		}
	default:
		assert.Failf("partition: poll strategy %d", strategy)
	}
	return start
}

// pollTimestamp starts at the first batch whose base_timestamp >= ts.
// Stamps never decrease, so the cache answers when it starts below ts or
// holds the whole log.
func (l *Log) pollTimestamp(id, ts uint64, col collector) {
	if v := l.cache.view(); len(v) > 0 && (v[0].timestamp < ts || v[0].base == l.logStart()) {
		i := sort.Search(len(v), func(i int) bool { return v[i].timestamp >= ts })
		if i < len(v) {
			col.start = v[i].base
			l.serveCached(id, &col, v[i:])
			return
		}
		l.finishPoll(id, &col)
		return
	}
	n := len(l.segments)
	for n > 0 && !l.segments[n-1].hasCommitted() {
		n--
	}
	k := sort.Search(n, func(i int) bool { return l.segments[i].committedMaxTs >= ts })
	if k == n {
		l.finishPoll(id, &col)
		return
	}
	s := l.segments[k]
	entries := s.index[:s.indexCommitted]
	p := &pendingPoll{id: id, col: col, byTimestamp: true, timestamp: ts, seg: s, expect: s.start}
	if i := lastBeforeTimestamp(entries, ts); i >= 0 {
		p.position, p.expect = entries[i].position, entries[i].offset
	}
	l.submitRead(p, 0)
}

func (l *Log) serveCached(id uint64, col *collector, v []cachedRecord) {
	for _, r := range v {
		if !col.take(r.rec, r.base, r.count) {
			break
		}
	}
	l.finishPoll(id, col)
}

func (l *Log) finishPoll(id uint64, col *collector) {
	l.emit(PollDone{ID: id, Records: col.parts, MessagesCount: col.count, CurrentOffset: l.CurrentOffset()})
}

// pendingPoll is a poll waiting for a read of one segment.
type pendingPoll struct {
	id          uint64
	col         collector
	byTimestamp bool
	timestamp   uint64 // byTimestamp: first base_timestamp wanted
	found       bool   // byTimestamp: the first wanted record was seen
	seg         *segment
	position    uint64 // next byte to read in seg's .log
	expect      uint64 // base_offset of the record at position
	readLen     uint64 // length of the read in flight
}

// readFrom plans a disk read for the first offset wanted by p. An offset
// no segment holds (after a damaged sealed segment) is refused.
func (l *Log) readFrom(p *pendingPoll, off uint64) {
	s := l.segmentFor(off)
	if off >= s.committedNext {
		if s == l.active() {
			assert.Failf("partition: reading uncommitted offset %d", off)
		}
		if p.col.count > 0 {
			l.finishPoll(p.id, &p.col) // a replanned poll keeps what it has
			return
		}
		l.emit(PollDone{ID: p.id, Code: missingCode, CurrentOffset: l.CurrentOffset()})
		return
	}
	p.seg, p.position, p.expect = s, 0, s.start
	entries := s.index[:s.indexCommitted]
	if i := lastAtOrBefore(entries, off); i >= 0 {
		p.position, p.expect = entries[i].position, entries[i].offset
	}
	l.submitRead(p, 0)
}

// submitRead reads from p.position up to the committed end of the segment:
// ReadBytesMax bytes while looking for the first wanted record, then what
// is left of the reply budget, but at least minLen (a record larger than
// that).
func (l *Log) submitRead(p *pendingPoll, minLen uint64) {
	avail := l.wantedEnd(p) - p.position
	if avail <= 0 {
		assert.Failf("partition: read at the committed end of segment %d", p.seg.start)
	}
	want := l.cfg.ReadBytesMax
	if p.col.count > 0 {
		want = p.col.bytesLeft
	}
	n := min(avail, max(want, minLen))
	p.readLen = n
	// ReplyOnly: the data reaches nothing but the poll's reply (PollDone
	// records); it is dropped when the poll fails or is replanned.
	id := l.submit(storage.Request{
		Op: storage.OpRead, File: l.segmentPath(p.seg.start, extLog), Offset: p.position, Len: n, ReplyOnly: true,
	}, reqPollRead, p.id)
	l.polls[id] = p
}

// wantedEnd is where the records a poll still wants end in its segment: at
// the first committed index entry at or past the last wanted offset + 1, so
// a poll of 1,000 messages reads about their bytes, not ReadBytesMax; else
// the segment's committed end. A poll by timestamp does not know its last
// offset yet.
func (l *Log) wantedEnd(p *pendingPoll) uint64 {
	if p.byTimestamp || p.col.remaining == 0 {
		return p.seg.committedBytes
	}
	end := p.col.start + uint64(p.col.remaining)
	entries := p.seg.index[:p.seg.indexCommitted]
	if i := lastAtOrBefore(entries, end-1) + 1; i < len(entries) && entries[i].position > p.position {
		return entries[i].position
	}
	return p.seg.committedBytes
}

// onPollRead walks the records read, checks each one (validate_checksum),
// and answers, or reads on when the wanted records were not reached yet.
func (l *Log) onPollRead(c storage.Completion) {
	p := l.polls[c.ID]
	if p == nil {
		assert.Failf("partition: read %d has no poll", c.ID)
	}
	delete(l.polls, c.ID)
	if p.seg.deleted {
		l.replan(p)
		return
	}
	if c.Result != storage.ResultOK {
		l.emit(PollDone{ID: p.id, Code: wire.CannotReadMessage, CurrentOffset: l.CurrentOffset()})
		return
	}
	data := c.Data
	if uint64(len(data)) < p.readLen {
		// The file is shorter than its committed bytes (cut at rest): read
		// again, the poll would get the same short answer for ever.
		l.pollCorrupt(p, p.position+uint64(len(data)), p.seg.committedBytes)
		return
	}
	var needLen uint64
	for len(data) > 0 {
		needLen = batch.HeaderBytes
		if len(data) >= batch.HeaderBytes {
			needLen = batch.ParseHeader(data).Length
		}
		if needLen > uint64(len(data)) {
			// The record continues past this read; it must end within the
			// committed bytes, or the length field is corrupt.
			if needLen > batch.RecordBytesMax || p.position+needLen > p.seg.committedBytes {
				l.pollCorrupt(p, p.position, p.seg.committedBytes)
				return
			}
			break
		}
		needLen = 0
		h := batch.ParseHeader(data)
		rec := data[:h.Length]
		if h.Length < recordBytesMin || h.BaseOffset != p.expect {
			l.pollCorrupt(p, p.position, p.position+h.Length)
			return
		}
		data = data[len(rec):]
		p.position += h.Length
		take, ok := l.walkRecord(p, rec, h)
		if !ok {
			l.pollCorrupt(p, p.position-h.Length, p.position)
			return
		}
		if !take {
			continue
		}
		if !p.col.take(rec, h.BaseOffset, h.Count) {
			l.finishPoll(p.id, &p.col)
			return
		}
	}
	l.continuePoll(p, needLen)
}

// walkRecord checks a record a poll read and says whether the poll takes
// it. Its count, and when searching by timestamp its timestamp, decide
// that, so they are checked before they are trusted: the layout, count
// included, always (a count read as 0 once made a poll skip the record it
// wanted and answer nothing, swarm seed 60757); the checksums before a
// timestamp decides or the record is served (validate_checksum). A record
// before the wanted offsets is not hashed.
func (l *Log) walkRecord(p *pendingPoll, rec []byte, h batch.Header) (take, ok bool) {
	if _, code := batch.ValidateLayout(rec); code != wire.OK {
		return false, false
	}
	p.expect = h.BaseOffset + uint64(h.Count)
	if p.byTimestamp && !p.found {
		if !l.checksumsHold(rec) {
			return false, false
		}
		if h.BaseTimestamp < p.timestamp {
			return false, true
		}
		p.found = true
		p.col.start = h.BaseOffset
	}
	if p.expect <= p.col.start {
		return false, true // before the wanted offsets: only its header was needed
	}
	return true, l.checksumsHold(rec)
}

// checksumsHold re-hashes a record a poll read, unless validate_checksum
// is off.
func (l *Log) checksumsHold(rec []byte) bool {
	if l.cfg.SkipReadChecksums || canarySkipChecksum {
		return true
	}
	_, code := batch.Validate(rec)
	return code == wire.OK
}

// pollCorrupt fails a poll whose read found data that does not check out
// at bytes [from, to) of its segment, reporting the place the first time.
func (l *Log) pollCorrupt(p *pendingPoll, from, to uint64) {
	l.emit(PollDone{ID: p.id, Code: wire.CannotReadMessage, CurrentOffset: l.CurrentOffset()})
	place := damagePlace{p.seg.start, from}
	if _, seen := l.damageSeen[place]; seen || len(l.damageSeen) >= damageReportsMax {
		return
	}
	if l.damageSeen == nil {
		l.damageSeen = make(map[damagePlace]struct{})
	}
	l.damageSeen[place] = struct{}{}
	l.emit(Damaged{Path: l.segmentPath(p.seg.start, extLog), FromByte: from, ToByte: max(from, to)})
}

// damagePlace is a segment and the byte where a poll found damage.
type damagePlace struct{ segment, position uint64 }

// missingCode answers a poll that starts at an offset no segment holds:
// a damaged sealed segment kept by recovery lost it (recover.go).
const missingCode = wire.SegmentNotFound

// continuePoll reads on: the rest of a record that crossed the end of the
// read, the rest of the segment, or the next segment, until the reply is
// full or the committed log ends. Every read consumes at least one record.
// A reply ends before offsets no segment holds; a poll by timestamp still
// looking for its first record goes on past them.
func (l *Log) continuePoll(p *pendingPoll, needLen uint64) {
	if p.position >= p.seg.committedBytes {
		i := l.segmentIndex(p.seg.start)
		if i < 0 || i+1 >= len(l.segments) || !l.segments[i+1].hasCommitted() {
			l.finishPoll(p.id, &p.col)
			return
		}
		if gap := p.seg.committedNext < l.segments[i+1].start; gap && (!p.byTimestamp || p.found) {
			if p.col.count == 0 {
				l.emit(PollDone{ID: p.id, Code: missingCode, CurrentOffset: l.CurrentOffset()})
				return
			}
			l.finishPoll(p.id, &p.col)
			return
		}
		if v := l.cache.view(); p.col.count > 0 && len(v) > 0 && p.col.start >= v[0].base {
			l.serveCached(p.id, &p.col, v)
			return
		}
		next := l.segments[i+1]
		p.seg, p.position, p.expect, needLen = next, 0, next.start, 0
	}
	l.submitRead(p, needLen)
}

// replan continues a poll whose segment retention deleted while it read:
// from the new log start, unless records already collected would then be
// followed by a gap.
func (l *Log) replan(p *pendingPoll) {
	if p.byTimestamp && !p.found {
		l.pollTimestamp(p.id, p.timestamp, p.col) // nothing collected yet
		return
	}
	col := p.col
	if col.count > 0 && col.start < l.logStart() {
		l.finishPoll(p.id, &col)
		return
	}
	col.start = max(col.start, l.logStart())
	if col.start >= l.committedNext {
		l.finishPoll(p.id, &col)
		return
	}
	if v := l.cache.view(); len(v) > 0 && col.start >= v[0].base {
		l.serveCached(p.id, &col, v)
		return
	}
	l.readFrom(&pendingPoll{id: p.id, col: col}, col.start)
}

// collector gathers the reply's records: whole stored records, or slices
// of one (§5.6) where the selection starts or ends inside it.
type collector struct {
	start     uint64 // first offset wanted
	remaining uint32 // messages still wanted
	bytesLeft uint64 // reply byte budget; the first record always fits
	parts     [][]byte
	count     uint32
}

// take adds the wanted messages of one record; false means the reply is full.
func (c *collector) take(rec []byte, base uint64, count uint32) bool {
	if base+uint64(count) <= c.start {
		return true
	}
	if len(c.parts) > 0 && uint64(len(rec)) > c.bytesLeft {
		return false
	}
	n := count
	if base >= c.start && count <= c.remaining {
		c.parts = append(c.parts, rec)
	} else {
		hdr, frames, sliced := batch.Slice(rec, c.start, c.remaining)
		if sliced <= 0 {
			assert.Failf("partition: empty slice of record %d", base)
		}
		c.parts = append(c.parts, hdr[:], frames)
		n = sliced
	}
	c.count += n
	c.remaining -= n
	c.start = base + uint64(count)
	c.bytesLeft -= min(c.bytesLeft, uint64(len(rec)))
	return c.remaining > 0 && c.bytesLeft > 0
}
