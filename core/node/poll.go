package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/partition"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/xxh32"
)

// pollsInFlightMax bounds polls waiting for disk reads across the node.
const pollsInFlightMax = 4096

type pendingPoll struct {
	fetch      *logFetch // a peer's state transfer fetch, not a client's poll
	conn       *conn
	header     wire.RequestHeader
	part       partKey
	autoCommit bool
	kind       partition.OffsetKind
	consumer   uint32
	deferred   *parkedPoll // a deferred poll's read (deferred.go)
	grouped    *fetchRef   // a grouped fetch's read of one partition (grouped.go)
}

// resyncPartition is the poll reply's partition id telling a group member to
// fetch its assignment again (protocol-data.md 5.6).
const resyncPartition = 0xFFFFFFFF

// poll serves PollMessages (code 100), an NR read of committed messages.
// A poll followed by PollOptions is served as a deferred poll (106) is,
// its wait possibly 0, and answered with positions (MSG-3..5).
func (n *Node) poll(c *conn, h wire.RequestHeader, body []byte) {
	q, given, code := wire.DecodePollRequest(body)
	if code != wire.OK {
		n.deny(c, h, code)
		return
	}
	if given {
		d := n.deferOptsOf(q, c)
		n.servePoll(c, h, q.Poll, &d)
		return
	}
	n.servePoll(c, h, q.Poll, nil)
}

// servePoll checks and routes a poll; d is set for a deferred poll (106).
func (n *Node) servePoll(c *conn, h wire.RequestHeader, q wire.PollMessagesRequest, d *deferOpts) {
	if !q.Partition.Given {
		n.deny(c, h, wire.InvalidCommand) // MSG-2: every poll names its partition
		return
	}
	s, t, ok := n.dataTopic(c, h, q.StreamID, q.TopicID, metadata.ActionPollMessages)
	if !ok {
		return
	}
	kind, consumer, pid, code := n.resolveConsumer(c, s, t, q.Consumer, q.Partition, true)
	if code != wire.OK {
		n.dataDeny(c, h, code)
		return
	}
	// Only a group member's poll is answered with the sentinel: a plain
	// consumer naming partition 0xFFFFFFFF names a partition that is not there.
	if kind == partition.Group && pid == resyncPartition {
		n.raw(c, h, wire.PollPrefix{PartitionID: pid}.Bytes())
		return
	}
	k := partKey{s.ID, t.ID, pid}
	if code := n.partitionCode(k); code != wire.OK {
		n.dataDeny(c, h, code)
		return
	}
	revision := n.partitionRevision(k)
	if d != nil && d.incarnation != 0 && d.incarnation != revision {
		n.cfg.Marks.Hit("node.poll.incarnation_refused")
		n.dataDeny(c, h, wire.PartitionIncarnationMismatch) // MSG-6
		return
	}
	req := pollRequest{part: k, strategy: partition.Strategy(q.Strategy.Kind), value: q.Strategy.Value,
		next: q.Strategy.Kind == wire.PollNext, count: q.Count, autoCommit: q.AutoCommit, kind: kind, consumer: consumer,
		revision: revision}
	start := func() { n.startPoll(c, h, req) }
	if d != nil {
		start = func() { n.startDeferred(c, h, req, *d) }
	}
	if n.remote(k) {
		sp := shardPoll{conn: c.id, h: h, q: req}
		if d != nil {
			sp.deferred, sp.d = true, *d
		}
		n.handOff(sp)
		return
	}
	if n.cfg.clustered() {
		n.readThroughGroup(c, h, k, start)
		return
	}
	start()
}

// startPoll reads a poll's messages from its partition log.
func (n *Node) startPoll(c *conn, h wire.RequestHeader, q pollRequest) {
	n.readPoll(c, h, q, nil)
}

// readPoll reads q from its partition log; dp is the deferred poll it
// serves, if any, which keeps the position resolved here for its rereads.
func (n *Node) readPoll(c *conn, h wire.RequestHeader, q pollRequest, dp *parkedPoll) {
	log, ok := n.partitions[q.part]
	code := wire.OK
	switch {
	case !ok:
		code = wire.PartitionNotFound
	case log.CanPoll() != wire.OK || len(n.polls) >= pollsInFlightMax:
		code = wire.TransientNotAccepted
	}
	if code != wire.OK {
		if dp != nil {
			n.release(dp)
			n.unpark(dp)
		}
		n.deny(c, h, code)
		return
	}
	if q.next {
		q.next, q.strategy, q.value = false, partition.StrategyOffset, 0
		if stored, ok := log.Offset(q.kind, q.consumer); ok {
			q.value = stored + 1
		}
	}
	if dp != nil {
		dp.q = q
	}
	n.pollSeq++
	id := n.pollSeq
	n.polls[id] = pendingPoll{conn: c, header: h, part: q.part, autoCommit: q.autoCommit, kind: q.kind,
		consumer: q.consumer, deferred: dp}
	if dp != nil {
		log.PollBounded(id, q.strategy, q.value, q.count, dp.reserved)
	} else {
		log.Poll(id, q.strategy, q.value, q.count)
	}
	n.drainEvents(q.part)
}

// resolveConsumer returns the offset key of a consumer and the partition a
// request targets. A group member must own the partition; otherwise the
// partition is the resync sentinel.
func (n *Node) resolveConsumer(c *conn, s *metadata.Stream, t *metadata.Topic, cons wire.Consumer,
	part wire.OptionalPartition, polling bool) (partition.OffsetKind, uint32, uint32, wire.Code) {
	pid := uint32(0)
	if part.Given {
		pid = part.ID
	}
	switch cons.Kind {
	case wire.ConsumerKindGroup:
		g, code := n.meta.Group(wire.NumericID(s.ID), wire.NumericID(t.ID), cons.ID)
		if code != wire.OK {
			return 0, 0, 0, code
		}
		if polling && part.Given && !n.meta.GroupOwns(wire.NumericID(s.ID), wire.NumericID(t.ID),
			wire.NumericID(g.ID), metadataClientID(c.client), pid) {
			pid = resyncPartition
		}
		return partition.Group, g.ID, pid, wire.OK
	case wire.ConsumerKindConsumer:
		return partition.Consumer, consumerKey(cons.ID), pid, wire.OK
	case wire.ConsumerKindExternalGroup:
		// Managed outside Iggy: no membership here, the id is only a key (CGRP-2).
		return partition.External, consumerKey(cons.ID), pid, wire.OK
	}
	return 0, 0, 0, wire.InvalidCommand
}

// drainEvents handles what a log produced outside a completion (cached polls).
func (n *Node) drainEvents(k partKey) {
	if log, ok := n.partitions[k]; ok {
		for _, ev := range log.TakeEvents() {
			n.partitionEvent(k, ev)
		}
	}
}

func (n *Node) pollDone(ev partition.PollDone) {
	p, ok := n.polls[ev.ID]
	if !ok {
		return
	}
	delete(n.polls, ev.ID)
	if ev.Code == wire.CannotReadMessage {
		n.noteDamaged(p.part)
	}
	if p.fetch != nil {
		n.answerLogFetch(p.fetch, ev)
		return
	}
	if p.grouped != nil {
		n.fetchReadEnded(*p.grouped, ev)
		return
	}
	if dp := p.deferred; dp != nil {
		n.readEnded(dp)
		if ev.Code == wire.OK && n.connOpen(p.conn) && !n.deferredReady(dp, ev.MessagesCount, ev.Records) {
			n.park(dp)
			return
		}
		n.unpark(dp)
	}
	open := n.connOpen(p.conn)
	if !open && p.deferred != nil {
		return // nobody waits for it any more: neither answered nor committed
	}
	records, code := ev.Records, ev.Code
	if code == wire.OK {
		records, code = n.openRecords(p.part, records)
	}
	if code != wire.OK {
		if open {
			n.deny(p.conn, p.header, code)
		}
		return
	}
	// OnRead is at-most-once (MSG-9): the offset advances with the read,
	// before the return hop's check, so a reply that check denies (or that
	// has no connection to go to) loses its messages rather than delivering
	// them twice.
	if p.autoCommit && ev.MessagesCount > 0 {
		n.autoCommit(p, ev)
	}
	if !open {
		n.cfg.Marks.Hit("node.poll.reply_lost_closed")
		return
	}
	if code := n.returnHopCode(p); code != wire.OK {
		n.cfg.Marks.Hit("node.poll.reply_denied_return_hop")
		n.deny(p.conn, p.header, code)
		return
	}
	prefix := wire.PollPrefix{PartitionID: p.part.partition, CurrentOffset: ev.CurrentOffset, MessagesCount: ev.MessagesCount}
	parts := [][]byte{prefix.Bytes()}
	if p.deferred != nil {
		parts = append(parts, n.positionsOf(p.deferred.q, ev).Bytes())
	}
	parts = append(parts, records...)
	n.raw(p.conn, p.header, parts...)
}

// returnHopCode is the final check of a poll's reply (MSG-9): the session
// that asked must still be signed in and still allowed to poll the topic,
// or the reply is denied, 40 or 41. A host shard's stand-in connection
// carries no session (the front checked it when it handed the poll over).
func (n *Node) returnHopCode(p pendingPoll) wire.Code {
	switch c := p.conn; {
	case c.handed:
		return wire.OK
	case !c.bound:
		return wire.Unauthenticated
	case !n.meta.Authorize(c.userID, metadata.ActionPollMessages, p.part.stream, p.part.topic):
		return wire.Unauthorized
	}
	return wire.OK
}

// positionsOf are the continuation and checkpoint of a read of q (MSG-3..5).
// A read without messages continues where it was asked to start, or, for
// first, last and timestamp, at the next offset to be committed.
func (n *Node) positionsOf(q pollRequest, ev partition.PollDone) wire.PollPositions {
	pos := wire.PollPositions{Incarnation: q.revision, Checkpoint: wire.NoCheckpoint}
	switch {
	case ev.MessagesCount > 0:
		last := lastOffset(ev.Records, ev.MessagesCount)
		pos.Continuation, pos.Checkpoint = last+1, last
	case q.strategy == partition.StrategyOffset:
		pos.Continuation = q.value
	default:
		if log, ok := n.partitions[q.part]; ok && !log.Empty() {
			pos.Continuation = log.CurrentOffset() + 1
		}
	}
	return pos
}

// autoCommit stores the offset of the last returned message, best effort,
// never lowering a higher stored value.
func (n *Node) autoCommit(p pendingPoll, ev partition.PollDone) {
	log, ok := n.partitions[p.part]
	if !ok {
		return
	}
	last := lastOffset(ev.Records, ev.MessagesCount)
	if stored, ok := log.Offset(p.kind, p.consumer); ok && stored >= last {
		return
	}
	if n.cfg.clustered() {
		n.proposeAutoCommit(p.part, p.kind, p.consumer, last)
		return
	}
	log.StoreOffset(p.kind, p.consumer, last, false)
}

// consumerKey is a consumer's offset key: its numeric id, or XXH32 of its
// name (protocol-data.md 6).
func consumerKey(id wire.Identifier) uint32 {
	if id.Numeric {
		return id.ID
	}
	return xxh32.Hash([]byte(id.Name), 0)
}
