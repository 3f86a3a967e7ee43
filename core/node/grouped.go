package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// Grouped fetch (109, DEFP-16..19): one deferred read of up to 1000
// partitions of a topic. The front resolves and checks every partition
// (a failure is that partition's section status, DEFP-18), then reads all
// of them at once, each on the shard that holds it. Every read that ends
// is judged with the ones already back: once together they hold min_count
// messages (or count, or max_bytes, or the wait ran out) the fetch is
// answered. Reads still out then get until the next tick to come back
// (the other shards' reads of the same moment join the reply); after it
// the fetch is answered without them, so a busy partition never holds up a
// ready one on another shard for more than a tick (DEFP-19). Otherwise
// the fetch parks, and a commit to one of its partitions rereads that one.
// count, min_count and max_bytes bound the whole reply (DEFP-17): the
// sections are filled in request order and cut where the count runs out,
// and the reply is cut to deferred_poll_max_read_bytes, as a deferred poll's.

// fetchPart is one partition of a grouped fetch.
type fetchPart struct {
	id      uint32      // the partition id the request named
	q       pollRequest // its start resolved by its first read
	status  wire.Code   // nonzero: the section's status; it is not read
	reading bool
	read    *fetchRead // the last read that ended
}

// fetchRead is what one read of a partition found, as whole records
// copied out of the log (the reply may leave later than the cache keeps them).
type fetchRead struct {
	records [][]byte
	count   uint32
	bytes   uint64
	current uint64
	start   uint64             // the resolved start, for rereads
	pos     wire.PollPositions // of the whole read
}

// groupFetch is one grouped fetch from its first reads to its reply.
type groupFetch struct {
	id       uint64
	conn     *conn
	h        wire.RequestHeader
	onRead   bool // CommitOnRead
	count    uint32
	minCount uint32
	maxBytes uint32
	deadline uint64
	session  uint64
	parts    []fetchPart
	arrived  uint64 // the tick it arrived at
	starting bool   // its first reads are being issued: no answer yet
	ripe     bool   // its answer waits for reads out until the next tick
	done     bool   // answered or dropped
}

// fetchRef names one partition's read of a grouped fetch across shards.
type fetchRef struct {
	fetch uint64
	index int
	q     pollRequest
}

// groupFetches are the grouped fetches in flight on the front, oldest first.
type groupFetches struct {
	list []*groupFetch
	seq  uint64
}

// groupedFetch serves GroupedDeferredFetch (109).
func (n *Node) groupedFetch(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeGroupedFetchRequest(body)
	switch {
	case code != wire.OK:
		n.deny(c, h, code)
		return
	case n.cfg.clustered():
		n.deny(c, h, wire.FeatureUnavailable) // not built for replica sets yet (DESIGN.md)
		return
	}
	s, t, ok := n.dataTopic(c, h, q.StreamID, q.TopicID, metadata.ActionPollMessages)
	if !ok {
		return
	}
	if len(n.fetches.list)+len(n.parked.list) >= int(n.cfg.DeferredPollMaxPending) ||
		n.parked.bySession[c.session] >= n.cfg.DeferredPollMaxPendingPerSession {
		n.cfg.Marks.Hit("node.fetch.capacity_refused")
		n.deny(c, h, wire.DeferredPollCapacityExceeded)
		return
	}
	d := n.deferOptsOf(wire.DeferredPollRequest{WaitMicros: q.WaitMicros}, c)
	n.fetches.seq++
	f := &groupFetch{id: n.fetches.seq, conn: c, h: h, onRead: q.Commit == wire.CommitOnRead, count: q.Count,
		minCount: q.MinCount, maxBytes: q.MaxBytes, deadline: n.now.Ticks + d.waitTicks, session: c.session,
		parts: make([]fetchPart, len(q.Partitions)), arrived: n.now.Ticks, starting: true}
	for i, p := range q.Partitions {
		f.parts[i] = n.fetchPartOf(c, s, t, q.Consumer, p)
	}
	n.fetches.list = append(n.fetches.list, f)
	n.parked.count(f.session, 1)
	for i := range f.parts {
		n.readFetchPart(f, i)
	}
	f.starting = false
	n.judgeFetch(f)
}

// fetchPartOf resolves one partition of a fetch, or the status of its section.
func (n *Node) fetchPartOf(c *conn, s *metadata.Stream, t *metadata.Topic, cons wire.Consumer, p wire.FetchPartition) fetchPart {
	kind, consumer, pid, code := n.resolveConsumer(c, s, t, cons, wire.OptionalPartition{Given: true, ID: p.PartitionID}, true)
	k := partKey{s.ID, t.ID, p.PartitionID}
	revision := n.partitionRevision(k)
	switch {
	case code != wire.OK:
	case pid != p.PartitionID:
		code = wire.ConsumerGroupPartitionNotOwned
		if g, _ := n.meta.Group(wire.NumericID(s.ID), wire.NumericID(t.ID), cons.ID); g != nil {
			n.notOwned(c.client, s.ID, t.ID, g.ID, p.PartitionID)
		}
	case !n.hasPartition(k):
		code = wire.PartitionNotFound
	case p.Incarnation != 0 && p.Incarnation != revision:
		n.cfg.Marks.Hit("node.fetch.incarnation_refused")
		code = wire.PartitionIncarnationMismatch // MSG-6
	}
	if code != wire.OK {
		return fetchPart{id: p.PartitionID, status: code}
	}
	return fetchPart{id: p.PartitionID, q: pollRequest{part: k, strategy: partition.Strategy(p.Strategy.Kind), value: p.Strategy.Value,
		next: p.Strategy.Kind == wire.PollNext, kind: kind, consumer: consumer, revision: revision}}
}

// readFetchPart starts a read of part i where its partition lives. Each
// read may return the whole reply's count, and its share of the reply's
// bytes, so the reads together stay near one reply.
func (n *Node) readFetchPart(f *groupFetch, i int) {
	p := &f.parts[i]
	if p.status != wire.OK || p.reading {
		return
	}
	p.reading = true
	live := 0
	for _, q := range f.parts {
		if q.status == wire.OK {
			live++
		}
	}
	share := max(n.fetchReplyBytes(f)/uint64(live), 1)
	q := p.q
	q.count = f.count
	ref := fetchRef{fetch: f.id, index: i, q: q}
	if n.remote(q.part) {
		n.handOff(shardFetchRead{ref: ref, bytesMax: share})
		return
	}
	n.readForFetch(ref, share)
}

// fetchReplyBytes is the largest reply of f (DEFP-13).
func (n *Node) fetchReplyBytes(f *groupFetch) uint64 {
	if f.maxBytes > 0 {
		return min(uint64(f.maxBytes), n.cfg.DeferredPollReadBytesMax)
	}
	return n.cfg.DeferredPollReadBytesMax
}

// readForFetch reads one partition of a grouped fetch on the shard that
// holds it; fetchReadEnded takes the result.
func (n *Node) readForFetch(ref fetchRef, bytesMax uint64) {
	log, ok := n.partitions[ref.q.part]
	switch {
	case !ok:
		n.fetchReadEnded(ref, partition.PollDone{Code: wire.PartitionNotFound})
		return
	case log.CanPoll() != wire.OK || len(n.polls) >= pollsInFlightMax:
		n.fetchReadEnded(ref, partition.PollDone{Code: wire.TransientNotAccepted})
		return
	}
	if ref.q.next {
		ref.q.next, ref.q.strategy, ref.q.value = false, partition.StrategyOffset, 0
		if stored, ok := log.Offset(ref.q.kind, ref.q.consumer); ok {
			ref.q.value = stored + 1
		}
	}
	n.pollSeq++
	n.polls[n.pollSeq] = pendingPoll{part: ref.q.part, grouped: &ref}
	log.PollBounded(n.pollSeq, ref.q.strategy, ref.q.value, ref.q.count, bytesMax)
	n.drainEvents(ref.q.part)
}

// fetchReadEnded opens (an encrypted stream's) and copies a read's records
// out and gives them to the front.
func (n *Node) fetchReadEnded(ref fetchRef, ev partition.PollDone) {
	records, code := ev.Records, ev.Code
	if code == wire.OK {
		records, code = n.openRecords(ref.q.part, records)
	}
	r := fetchResult{ref: ref, code: code}
	if code == wire.OK {
		r.read = &fetchRead{records: wholeRecords(records), count: ev.MessagesCount, current: ev.CurrentOffset,
			start: ref.q.value, pos: n.positionsOf(ref.q, ev)}
		for _, rec := range r.read.records {
			r.read.bytes += uint64(len(rec))
		}
	}
	if n.isHost() {
		n.toShard(0, shardFetchDone{r})
		return
	}
	n.fetchPartDone(r)
}

// fetchResult is one partition read's outcome, sent back to the front.
type fetchResult struct {
	ref  fetchRef
	code wire.Code
	read *fetchRead
}

// wholeRecords copies a poll's parts (whole records, or a sliced record's
// new header followed by its frames) into one buffer of whole records.
func wholeRecords(parts [][]byte) [][]byte {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	buf := make([]byte, 0, size)
	var out [][]byte
	for i := 0; i < len(parts); i++ {
		start := len(buf)
		buf = append(buf, parts[i]...)
		if len(parts[i]) == batch.HeaderBytes && i+1 < len(parts) {
			i++ // a sliced record's header: its frames follow
			buf = append(buf, parts[i]...)
		}
		out = append(out, buf[start:len(buf):len(buf)])
	}
	return out
}

// fetchPartDone records a partition's read on the front and judges the fetch.
func (n *Node) fetchPartDone(r fetchResult) {
	f := n.fetchByID(r.ref.fetch)
	if f == nil {
		return // answered while this read was out
	}
	p := &f.parts[r.ref.index]
	p.reading = false
	if r.code != wire.OK {
		p.status = r.code
	} else {
		p.read = r.read
		p.q.next, p.q.strategy, p.q.value = false, r.ref.q.strategy, r.read.start
	}
	n.judgeFetch(f)
}

// judgeFetch answers f when what its reads hold is its answer (DEFP-17,
// DEFP-19); else it stays parked for data or its wait.
func (n *Node) judgeFetch(f *groupFetch) {
	switch {
	case f.starting || f.done:
		return
	case !n.connOpen(f.conn):
		n.dropFetch(f)
		return
	}
	var count uint32
	var bytes uint64
	reading, live := false, false
	for _, p := range f.parts {
		reading = reading || p.reading
		live = live || p.status == wire.OK
		if p.read != nil && p.status == wire.OK {
			count += p.read.count
			bytes += p.read.bytes
		}
	}
	ready := n.now.Ticks >= f.deadline || !live || count >= min(f.minCount, f.count) ||
		f.maxBytes > 0 && bytes >= uint64(f.maxBytes)
	switch {
	case ready && reading && n.now.Ticks == f.arrived:
		f.ripe = true // the other reads of this moment may join it
	case ready:
		if reading {
			n.cfg.Marks.Hit("node.fetch.answered_while_reading")
		}
		n.answerFetch(f)
	case !reading:
		n.cfg.Marks.Hit("node.fetch.parked")
	}
}

// answerFetch sends f's reply: [n u32] then one section per partition in
// request order, filled until the count and the reply's bytes run out.
func (n *Node) answerFetch(f *groupFetch) {
	n.dropFetch(f)
	count, budget := f.count, n.fetchReplyBytes(f)
	w := wire.Writer{}
	w.U32(uint32(len(f.parts)))
	out := [][]byte{w.Buf}
	for _, p := range f.parts {
		if p.status != wire.OK {
			out = append(out, wire.FetchSectionHeader(p.id, p.status, 0))
			continue
		}
		sec := n.fetchSection(f, p, &count, &budget)
		out = append(out, sec...)
	}
	n.raw(f.conn, f.h, out...)
}

// fetchSection is one partition's section: the records of its last read
// that still fit, and their positions; an OnRead fetch stores the offset
// of the last one.
func (n *Node) fetchSection(f *groupFetch, p fetchPart, count *uint32, budget *uint64) [][]byte {
	pos := wire.PollPositions{Incarnation: p.q.revision, Continuation: p.q.value, Checkpoint: wire.NoCheckpoint}
	stats, _ := n.partitionStats(p.q.part) // a section without a read yet: what the front knows
	current := stats.CurrentOffset
	var records [][]byte
	var taken uint32
	if r := p.read; r != nil {
		current, pos = r.current, r.pos
		records, taken = takeRecords(r.records, count, budget)
		if taken < r.count {
			n.cfg.Marks.Hit("node.fetch.section_cut")
		}
		switch {
		case taken > 0:
			last := lastOffset(records, taken)
			pos.Continuation, pos.Checkpoint = last+1, last
		case r.count > 0:
			pos.Continuation, pos.Checkpoint = batch.ParseHeader(r.records[0]).BaseOffset+firstDelta(r.records[0]), wire.NoCheckpoint
		}
	}
	if f.onRead && taken > 0 {
		n.commitFetched(p.q, pos.Checkpoint)
	}
	size := wire.PollPrefixBytes + wire.PollPositionsBytes
	for _, rec := range records {
		size += len(rec)
	}
	sec := [][]byte{wire.FetchSectionHeader(p.q.part.partition, wire.OK, uint32(size)),
		wire.PollPrefix{PartitionID: p.q.part.partition, CurrentOffset: current, MessagesCount: taken}.Bytes(), pos.Bytes()}
	return append(sec, records...)
}

// takeRecords takes whole records while count and budget last (the first
// record always, DEFP-13's "at least one record"), slicing the one where
// the count runs out.
func takeRecords(records [][]byte, count *uint32, budget *uint64) ([][]byte, uint32) {
	var out [][]byte
	var taken uint32
	for _, rec := range records {
		if *count == 0 || *budget == 0 {
			break
		}
		h := batch.ParseHeader(rec)
		if h.Count > *count {
			hdr, frames, n := batch.Slice(rec, h.BaseOffset+firstDelta(rec), *count)
			rec = append(hdr[:], frames...)
			h.Count = n
		}
		out = append(out, rec)
		taken += h.Count
		*count -= h.Count
		*budget -= min(*budget, uint64(len(rec)))
	}
	return out, taken
}

// firstDelta is the offset delta of a record's first message (a sliced
// record keeps its base offset).
func firstDelta(rec []byte) uint64 {
	f := batch.FramesOf(rec)
	first, _ := f.Next()
	return uint64(first.OffsetDelta)
}

// commitFetched stores an OnRead fetch's checkpoint, never lowering a
// higher stored offset, on the shard that holds the partition.
func (n *Node) commitFetched(q pollRequest, offset uint64) {
	if n.remote(q.part) {
		n.handOff(shardFetchCommit{k: q.part, kind: q.kind, consumer: q.consumer, offset: offset})
		return
	}
	n.storeReadOffset(q.part, q.kind, q.consumer, offset)
}

// storeReadOffset stores offset unless a higher one is stored (MSG-8).
func (n *Node) storeReadOffset(k partKey, kind partition.OffsetKind, consumer uint32, offset uint64) {
	log, ok := n.partitions[k]
	if !ok {
		return
	}
	if stored, ok := log.Offset(kind, consumer); ok && stored >= offset {
		return
	}
	log.StoreOffset(kind, consumer, offset, false)
}

// fetchByID finds a fetch in flight.
func (n *Node) fetchByID(id uint64) *groupFetch {
	for _, f := range n.fetches.list {
		if f.id == id {
			return f
		}
	}
	return nil
}

// dropFetch ends f: reads still out find nothing when they end.
func (n *Node) dropFetch(f *groupFetch) {
	f.done = true
	for i, g := range n.fetches.list {
		if g == f {
			n.fetches.list = append(n.fetches.list[:i], n.fetches.list[i+1:]...)
			n.parked.count(f.session, -1)
			return
		}
	}
}

// wakeFetches rereads partition k for the fetches parked on it, after a
// commit there (on the front, or mirrored from its host).
func (n *Node) wakeFetches(k partKey) {
	for _, f := range append([]*groupFetch(nil), n.fetches.list...) {
		for i, p := range f.parts {
			if p.q.part == k && p.status == wire.OK && !p.reading && !f.done {
				n.cfg.Marks.Hit("node.fetch.woken_by_data")
				n.readFetchPart(f, i)
			}
		}
	}
}

// tickFetches answers the fetches whose wait ran out (DEFP-4) or whose
// answer waited a tick for reads out (DEFP-19); those whose connection is
// gone leave.
func (n *Node) tickFetches() {
	for _, f := range append([]*groupFetch(nil), n.fetches.list...) {
		if f.ripe || n.now.Ticks >= f.deadline || !n.connOpen(f.conn) {
			n.judgeFetch(f)
		}
	}
}

// cancelFetch ends the fetch of connection c with request number req at
// once, with what its reads hold (DEFP-6).
func (n *Node) cancelFetch(c *conn, req uint64) {
	for _, f := range n.fetches.list {
		if f.conn == c && f.h.Request == req {
			n.cfg.Marks.Hit("node.fetch.cancelled")
			f.deadline = n.now.Ticks
			n.judgeFetch(f)
			return
		}
	}
}
