package node

import (
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/clock"
	"github.com/iggygo/iggy/wire"
)

// Deferred polling (DEFP-1..12): a poll that finds fewer messages than its
// min_count stays parked on the shard that holds its partition until a
// commit to that partition brings enough, its reply reaches max_bytes, its
// wait runs out (counted in ticks) or the client cancels it (108). Each wake
// reads again from the poll's first position, so one reply carries every
// message that arrived and none twice.

// Defaults of the sharding.deferred_poll_* keys (DEFP-10..12).
const (
	deferredWaitTicksDefault         = 30_000 / clock.TickMillis
	deferredPendingDefault           = 1024
	deferredPendingPerSessionDefault = 64
	deferredReadBytesDefault         = 16 << 20
	deferredInflightBytesDefault     = 64 << 20
)

func (c *Config) deferredDefaults() {
	if c.DeferredPollMaxWaitTicks == 0 {
		c.DeferredPollMaxWaitTicks = deferredWaitTicksDefault
	}
	if c.DeferredPollMaxPending == 0 {
		c.DeferredPollMaxPending = deferredPendingDefault
	}
	if c.DeferredPollMaxPendingPerSession == 0 {
		c.DeferredPollMaxPendingPerSession = min(deferredPendingPerSessionDefault, c.DeferredPollMaxPending)
	}
	if c.DeferredPollInflightBytesMax == 0 {
		c.DeferredPollInflightBytesMax = deferredInflightBytesDefault
	}
	if c.DeferredPollReadBytesMax == 0 {
		c.DeferredPollReadBytesMax = min(deferredReadBytesDefault, c.DeferredPollInflightBytesMax)
	}
}

// deferOpts are a deferred poll's limits as the serving shard needs them.
type deferOpts struct {
	waitTicks uint64
	minCount  uint32
	maxBytes  uint32
	session   uint64 // the per-session bound's key (DEFP-12)
	// incarnation the poll's start belongs to, 0 unchecked (MSG-6); the
	// front checks it, hosts never see it used.
	incarnation uint64
}

// deferOptsOf converts a request's wait to ticks, rounded up, and cuts it
// to the configured maximum (DEFP-10).
func (n *Node) deferOptsOf(q wire.DeferredPollRequest, c *conn) deferOpts {
	const tickMicros = clock.TickMillis * 1000
	wait := (q.WaitMicros + tickMicros - 1) / tickMicros
	return deferOpts{waitTicks: min(wait, n.cfg.DeferredPollMaxWaitTicks), minCount: q.MinCount,
		maxBytes: q.MaxBytes, session: c.session, incarnation: q.Incarnation}
}

// parkedPoll is one deferred poll from its first read to its reply.
type parkedPoll struct {
	conn     *conn
	h        wire.RequestHeader
	q        pollRequest // its position resolved at the first read
	d        deferOpts
	deadline uint64 // tick at which the wait ends
	listed   bool   // holds a parking place
	reading  bool   // a read is in flight; wakes wait for it
	reserved uint64 // read memory its read in flight holds (DEFP-13)
	roomless bool   // a read waits for read memory (DEFP-15)
}

// parkedPolls are the deferred polls of one shard in the order they parked,
// so wakes and timeouts answer in an order independent of map iteration.
type parkedPolls struct {
	list      []*parkedPoll
	bySession map[uint64]uint32
	// inflightBytes is what the reads in flight reserve (DEFP-14).
	inflightBytes uint64
}

// deferredPoll serves DeferredPoll (106).
func (n *Node) deferredPoll(c *conn, h wire.RequestHeader, body []byte) {
	q, code := wire.DecodeDeferredPollRequest(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	d := n.deferOptsOf(q, c)
	n.servePoll(c, h, q.Poll, &d)
}

// startDeferred is a deferred poll's first read, on the partition's shard.
func (n *Node) startDeferred(c *conn, h wire.RequestHeader, q pollRequest, d deferOpts) {
	p := &parkedPoll{conn: c, h: h, q: q, d: d, deadline: n.now.Ticks + d.waitTicks}
	n.reread(p)
}

// deferredReady says whether a deferred poll's read is its answer.
func (n *Node) deferredReady(p *parkedPoll, count uint32, records [][]byte) bool {
	if n.now.Ticks >= p.deadline || count >= p.d.minCount || count >= p.q.count {
		return true
	}
	if p.d.maxBytes == 0 {
		return false
	}
	size := 0
	for _, r := range records {
		size += len(r)
	}
	return size >= int(p.d.maxBytes)
}

// park keeps p for a later wake. A poll that holds no place yet takes one
// if the shard's and its session's bounds allow (DEFP-11, DEFP-12).
func (n *Node) park(p *parkedPoll) {
	if p.listed {
		return
	}
	ps := &n.parked
	if len(ps.list)+len(n.fetches.list) >= int(n.cfg.DeferredPollMaxPending) || ps.bySession[p.d.session] >= n.cfg.DeferredPollMaxPendingPerSession {
		n.cfg.Marks.Hit("node.defer.capacity_refused")
		n.dataDeny(p.conn, p.h, wire.DeferredPollCapacityExceeded)
		return
	}
	n.cfg.Marks.Hit("node.defer.parked")
	p.listed = true
	ps.list = append(ps.list, p)
	ps.count(p.d.session, 1)
}

// count adds delta to session's parked polls and grouped fetches (DEFP-12).
func (ps *parkedPolls) count(session uint64, delta int) {
	if ps.bySession == nil {
		ps.bySession = map[uint64]uint32{}
	}
	if ps.bySession[session] = uint32(int(ps.bySession[session]) + delta); ps.bySession[session] == 0 {
		delete(ps.bySession, session)
	}
}

// unpark gives p's place back.
func (n *Node) unpark(p *parkedPoll) {
	if !p.listed {
		return
	}
	ps := &n.parked
	p.listed = false
	for i, q := range ps.list {
		if q == p {
			ps.list = append(ps.list[:i], ps.list[i+1:]...)
			break
		}
	}
	ps.count(p.d.session, -1)
}

// reread reads p's partition (again); a poll whose connection is gone is
// dropped instead. The read first reserves its memory; without room it
// stays parked and waits for a read in flight to end (DEFP-15).
func (n *Node) reread(p *parkedPoll) {
	if !n.connOpen(p.conn) {
		n.unpark(p)
		return
	}
	reserve := n.cfg.DeferredPollReadBytesMax
	if p.d.maxBytes > 0 {
		reserve = min(reserve, uint64(p.d.maxBytes))
	}
	if n.parked.inflightBytes+reserve > n.cfg.DeferredPollInflightBytesMax {
		n.cfg.Marks.Hit("node.defer.read_waits_for_room")
		n.park(p)
		p.roomless = p.listed
		return
	}
	n.parked.inflightBytes += reserve
	p.reserved, p.roomless, p.reading = reserve, false, true
	n.readPoll(p.conn, p.h, p.q, p)
}

// readEnded gives back the memory p's read reserved and starts the reads
// that waited for it, in the order they parked.
func (n *Node) readEnded(p *parkedPoll) {
	n.release(p)
	for _, w := range n.parkedWhere(func(w *parkedPoll) bool { return w.roomless }) {
		if !w.roomless {
			continue // a read started meanwhile, by a read that ended inside this loop
		}
		n.reread(w)
		if w.roomless {
			return
		}
	}
}

// release gives back the memory p's read reserved.
func (n *Node) release(p *parkedPoll) {
	n.parked.inflightBytes -= p.reserved
	p.reserved, p.reading = 0, false
}

// wakeParked rereads the polls parked on k after a commit to it.
func (n *Node) wakeParked(k partKey) {
	for _, p := range n.parkedWhere(func(p *parkedPoll) bool { return p.q.part == k && !p.roomless }) {
		n.cfg.Marks.Hit("node.defer.woken_by_data")
		n.reread(p)
	}
}

// tickParked answers the polls whose wait ran out, with what there is (DEFP-4).
func (n *Node) tickParked() {
	for _, p := range n.parkedWhere(func(p *parkedPoll) bool { return n.now.Ticks >= p.deadline && !p.roomless }) {
		n.cfg.Marks.Hit("node.defer.woken_by_timeout")
		n.reread(p)
	}
}

// parkedWhere copies out the idle parked polls that match: rereads change
// the list.
func (n *Node) parkedWhere(match func(*parkedPoll) bool) []*parkedPoll {
	var out []*parkedPoll
	for _, p := range n.parked.list {
		if !p.reading && match(p) {
			out = append(out, p)
		}
	}
	return out
}

// cancelParked ends the parked poll of connection id with request number
// req (DEFP-6): it is answered at once with what there is, as if its wait
// had run out. It runs when the cancel arrives, ahead of the frames queued
// behind the poll; the cancel itself is answered in turn (cancelDeferred).
func (n *Node) cancelParked(id bus.ConnID, req uint64) {
	for _, p := range n.parked.list {
		if p.conn.id != id || p.h.Request != req {
			continue
		}
		n.cfg.Marks.Hit("node.defer.cancelled")
		p.deadline = n.now.Ticks
		if !p.reading && !p.roomless {
			n.reread(p)
		}
		return
	}
}

// cancelArrived looks at a frame that arrived while c was busy: a
// well-formed cancel ends the poll it names before it waits its turn.
func (n *Node) cancelArrived(c *conn, frame []byte) {
	h, verdict := wire.DecodeRequestHeader(frame)
	if verdict != wire.VerdictAccept || h.Operation != wire.OpNonReplicated || h.NRCode != wire.CmdCancelDeferredPoll {
		return
	}
	q, code := wire.DecodeCancelDeferredPollRequest(frame[wire.HeaderSize:])
	if code != wire.OK {
		return
	}
	n.cancelParked(c.id, q.Request)
	n.cancelFetch(c, q.Request)
	for s := uint8(1); s < n.cfg.Shards; s++ {
		n.toShard(s, shardCancel{conn: c.id, request: q.Request})
	}
}

// cancelDeferred answers CancelDeferredPoll (108) in its turn: status 0 with
// an empty body, whether or not the poll it named was still parked.
func (n *Node) cancelDeferred(c *conn, h wire.RequestHeader, body []byte) {
	if _, code := wire.DecodeCancelDeferredPollRequest(body); code != wire.OK {
		n.deny(c, h, code)
		return
	}
	n.raw(c, h)
}
