package sim

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// settleRead records the answer of everything but sends and stores.
func (w *World) settleRead(a *attempt, o *op, status wire.Code, payload []byte) {
	switch o.kind {
	case opPoll, opPollNext, opPollOther, opGroupPoll:
		w.settlePoll(a, o, status, payload)
	case opGroup:
		w.settleGroup(o, status)
	case opChanges:
		w.followed(a, status, payload)
	case opGetOffset:
		w.settleGetOffset(a, o, status, payload)
	case opCreateStream, opCreateTopic, opCreatePartitions:
		w.settleCreate(a, o, status, payload)
	case opListStreams:
		w.settleList(a, status, payload)
	case opGetTopic:
		w.settleGetTopic(a, o, status, payload)
	case opChurn, opLogout:
		if o.rc != nil {
			w.settleRecreate(a, o, status, payload)
		}
		w.settleChurn(a, o, status)
	}
}

// unexpected fails the run on an answer a correct node does not give,
// unless metadata was damaged at rest (then anything may be gone).
func (w *World) unexpected(o *op, status wire.Code) {
	reason := fmt.Sprintf("%s answered %d %s", o, status, status.Name())
	if len(w.hist.MetaDamages) > 0 {
		w.classify("metadata-damaged", reason+" after metadata was damaged at rest on the only replica")
		return
	}
	w.fail("protocol", reason)
}

func (w *World) settlePoll(a *attempt, o *op, status wire.Code, payload []byte) {
	if status == wire.CannotReadMessage {
		w.marks.Hit("sim.poll.cannot_read")
		switch dir, ok := w.partitionDir(o.part); {
		case !ok:
		case w.readFaults[dir] > 0:
			w.marks.Hit("sim.poll.read_fault_surfaced")
		case !w.damaged(o.part):
			w.fail("availability", fmt.Sprintf("%s answered CannotReadMessage, with no read fault or damage in that partition", o))
		case o.final:
			w.finalSkipHole(o)
		}
		return
	}
	if status == wire.SegmentNotFound && w.damaged(o.part) {
		// A damaged sealed segment lost the offsets (truncate.go).
		w.marks.Hit("sim.poll.lost_range_refused")
		if o.final {
			w.finalSkipHole(o)
		}
		return
	}
	if status == wire.DeferredPollCapacityExceeded && o.deferred != nil {
		w.marks.Hit(markDeferredRefused)
		return
	}
	if o.fetch != nil && status == wire.OK {
		w.settleFetch(a, o, payload)
		return
	}
	if status == wire.PartitionIncarnationMismatch && o.deferred != nil && o.deferred.incarnation != 0 {
		w.marks.Hit(markIncarnationRefused)
		w.catalog.part(o.part).incarnation = 0 // the next deferred poll learns the new one
		return
	}
	if o.kind == opGroupPoll && groupRefusal(status) {
		w.marks.Hit(fmt.Sprintf("sim.workload.group_poll_refused_%d", uint32(status)))
		return
	}
	if status != wire.OK {
		w.unexpected(o, status)
		return
	}
	var pos wire.PollPositions
	var r *oracles.Read
	var err error
	if o.deferred != nil {
		if len(payload) < wire.PollPrefixBytes+wire.PollPositionsBytes {
			w.fail("wrong-data", fmt.Sprintf("%s: a reply of %d bytes has no positions", o, len(payload)))
			return
		}
		// Decoded in place: the records after the positions are those of
		// a plain poll reply, and copying them out cost a swarm sweep 4%.
		var polled wire.PolledMessages
		var code wire.Code
		polled, pos, code = wire.DecodePolledWithPositions(payload)
		r, err = decodePolled(o, polled, code)
	} else {
		r, err = decodePoll(o, payload)
	}
	if err == nil && r == nil {
		return // a group member told to fetch its assignment again
	}
	if err == nil && o.deferred != nil {
		err = w.checkPositions(o, r, pos)
	}
	if err != nil {
		w.fail("wrong-data", fmt.Sprintf("%s: %v", o, err))
		return
	}
	if o.deferred != nil {
		w.checkDeferred(a, o, len(r.Msgs))
	}
	w.recordRead(a, o, r)
	if o.final {
		w.finalPolled(o, r)
	}
	if len(r.Msgs) > 0 {
		w.pollMarks(o)
	}
	if o.kind != opPollNext || len(r.Msgs) == 0 {
		return
	}
	g := &oracles.OffsetGet{Part: o.part, Consumer: a.link.client.idx, Found: r.First > 0, Call: r.Call, Return: r.Return}
	if g.Found {
		g.Value = r.First - 1
	}
	w.hist.Gets = append(w.hist.Gets, g)
	a.link.client.store = &storeIntent{part: o.part, topic: o.topic, value: r.First + uint64(len(r.Msgs)) - 1}
}

// recordRead adds a poll's read to the history the oracles judge.
func (w *World) recordRead(a *attempt, o *op, r *oracles.Read) {
	r.Client, r.Epoch, r.Call, r.Return = a.link.client.idx, a.link.epoch, a.call, w.next()
	w.hist.Reads = append(w.hist.Reads, r)
	w.catalog.part(o.part).ops++
	w.sawOffset(o.part, r.Current)
}

// decodePoll checks every record a poll returned as a consumer would:
// layout and every checksum, consecutive offsets, payloads that match
// the message ids. Any failure is wrong data served to a client.
func decodePoll(o *op, payload []byte) (*oracles.Read, error) {
	polled, code := wire.DecodePolledMessages(payload)
	return decodePolled(o, polled, code)
}

// decodePolled is decodePoll of a reply decoded with code.
func decodePolled(o *op, polled wire.PolledMessages, code wire.Code) (*oracles.Read, error) {
	if code != wire.OK {
		return nil, fmt.Errorf("malformed poll reply: %s", code.Name())
	}
	return decodeRecords(o, polled)
}

// decodeRecords is decodePoll of a decoded reply.
func decodeRecords(o *op, polled wire.PolledMessages) (*oracles.Read, error) {
	pre := polled.Prefix
	if o.kind == opGroupPoll {
		if err := groupPolled(o, pre.PartitionID, pre.MessagesCount); err != nil || pre.PartitionID != o.part.Partition {
			return nil, err
		}
	} else if pre.PartitionID != o.part.Partition {
		return nil, fmt.Errorf("answered for partition %d", pre.PartitionID)
	}
	r := &oracles.Read{Part: o.part, ByOffset: o.kind == opPoll, Offset: o.offset, Count: o.count, Current: pre.CurrentOffset}
	for _, rec := range polled.Records {
		h := batch.ParseHeader(rec)
		if err := verifyRecord(rec, h); err != nil {
			return nil, fmt.Errorf("record at offset %d: %v", h.BaseOffset, err)
		}
		frames := batch.FramesOf(rec)
		for f, ok := frames.Next(); ok; f, ok = frames.Next() {
			off := h.BaseOffset + uint64(f.OffsetDelta)
			m, err := messageOf(f.ID, f.Payload)
			if err != nil {
				return nil, fmt.Errorf("offset %d: %v", off, err)
			}
			if len(r.Msgs) == 0 {
				r.First = off
			} else if off != r.First+uint64(len(r.Msgs)) {
				return nil, fmt.Errorf("offsets not consecutive: %d after %d", off, r.First+uint64(len(r.Msgs))-1)
			}
			r.Msgs = append(r.Msgs, m)
		}
		if frames.Err() != wire.OK {
			return nil, fmt.Errorf("bad frames: %s", frames.Err().Name())
		}
	}
	if int(pre.MessagesCount) != len(r.Msgs) {
		return nil, fmt.Errorf("declares %d messages, holds %d", pre.MessagesCount, len(r.Msgs))
	}
	return r, nil
}

// Checksum inputs of a record (protocol-data.md 5.2): the batch checksum
// hashes the header up to the checksum field, the message count, then the
// checksum field of every frame; a message checksum hashes its frame after
// the checksum field.
const (
	batchChecksumAt   = 40
	batchCountAt      = 48
	frameChecksumSize = 8
)

// verifyRecord is a consumer's check of one record as served: a whole
// stored record or a slice of one (whose offset deltas do not start at 0,
// so admission's batch.Validate does not apply).
func verifyRecord(rec []byte, h batch.Header) error {
	if h.Length != uint64(len(rec)) || h.Count == 0 {
		return fmt.Errorf("length %d for %d bytes, count %d", h.Length, len(rec), h.Count)
	}
	sum := xxh3.New()
	_, _ = sum.Write(rec[:batchChecksumAt])
	_, _ = sum.Write(rec[batchCountAt : batchCountAt+4])
	frames := batch.FramesOf(rec)
	n, prevDelta := uint32(0), uint32(0)
	for f, ok := frames.Next(); ok; f, ok = frames.Next() {
		if xxh3.Hash(f.Bytes[frameChecksumSize:]) != f.Checksum {
			return fmt.Errorf("message %d fails its checksum", n)
		}
		if n > 0 && f.OffsetDelta != prevDelta+1 {
			return fmt.Errorf("offset deltas %d then %d", prevDelta, f.OffsetDelta)
		}
		prevDelta = f.OffsetDelta
		_, _ = sum.Write(f.Bytes[:frameChecksumSize])
		n++
	}
	switch {
	case frames.Err() != wire.OK:
		return fmt.Errorf("bad frames: %s", frames.Err().Name())
	case n != h.Count:
		return fmt.Errorf("declares %d messages, holds %d", h.Count, n)
	case sum.Sum64() != h.Checksum:
		return fmt.Errorf("fails its batch checksum")
	}
	return nil
}

// messageID and payload name message i of batch b; both are checked on
// read, so a flipped bit anywhere in a message is caught even when the
// node skipped its own checksum.
func messageID(b uint64, i uint32) [16]byte {
	var id [16]byte
	binary.LittleEndian.PutUint64(id[:], b)
	binary.LittleEndian.PutUint64(id[8:], uint64(i)+1)
	return id
}

func payload(b uint64, i uint32, size int) []byte {
	var head [payloadHeadBytesMax]byte
	h := payloadHead(head[:0], b, i)
	p := make([]byte, max(size, len(h)))
	fill := p[copy(p, h):]
	if len(fill) > 0 {
		// Doubling copies: a byte loop over every payload byte was a tenth
		// of a swarm sweep's CPU.
		fill[0] = '.'
		for n := 1; n < len(fill); n *= 2 {
			copy(fill[n:], fill[:n])
		}
	}
	return p
}

// payloadHeadBytesMax bounds "b<batch>#<index>".
const payloadHeadBytesMax = 32

func payloadHead(dst []byte, b uint64, i uint32) []byte {
	dst = append(dst, 'b')
	dst = strconv.AppendUint(dst, b, 10)
	dst = append(dst, '#')
	return strconv.AppendUint(dst, uint64(i), 10)
}

// messageOf names a polled message and checks its payload is the one its
// id says, without building that payload again.
func messageOf(id [16]byte, p []byte) (oracles.Msg, error) {
	b := binary.LittleEndian.Uint64(id[:])
	i := binary.LittleEndian.Uint64(id[8:])
	if i == 0 || i > 1<<32 {
		return oracles.Msg{}, fmt.Errorf("foreign message id %x", id)
	}
	m := oracles.Msg{Batch: b, Index: uint32(i - 1)}
	var head [payloadHeadBytesMax]byte
	if h := payloadHead(head[:0], m.Batch, m.Index); !bytes.HasPrefix(p, h) || !padding(p[len(h):]) {
		return oracles.Msg{}, fmt.Errorf("payload of %d#%d does not match its id", m.Batch, m.Index)
	}
	return m, nil
}

// padding: p is dots only (counted with the vectorized byte count).
func padding(p []byte) bool { return bytes.Count(p, []byte{'.'}) == len(p) }

func (w *World) settleGetOffset(a *attempt, o *op, status wire.Code, payload []byte) {
	if status != wire.OK {
		w.unexpected(o, status)
		return
	}
	info, found, code := wire.DecodeConsumerOffsetInfo(payload)
	if code != wire.OK {
		w.fail("protocol", fmt.Sprintf("%s: malformed reply", o))
		return
	}
	w.hist.Gets = append(w.hist.Gets, &oracles.OffsetGet{Part: o.part, Consumer: a.link.client.idx,
		Found: found, Value: info.StoredOffset, Call: a.call, Return: w.next()})
}

func (w *World) settleCreate(a *attempt, o *op, status wire.Code, payload []byte) {
	cr := o.create
	cr.Return, cr.Retried = w.next(), o.tries > 1
	w.event("client %d: %s (%d partitions) answered %d after %d tries", a.link.client.idx, o, o.partitions, status, o.tries)
	switch status {
	case wire.OK:
		cr.Outcome = oracles.OutcomeOK
		if o.tries > 1 {
			w.marks.Hit("sim.meta.retry_answered_ok")
		}
	case wire.StreamNameAlreadyExists, wire.TopicNameAlreadyExists:
		cr.Exists = true
		w.marks.Hit("sim.meta.retry_found_existing")
	default:
		cr.Outcome = oracles.OutcomeFailed
		w.marks.Hit("sim.meta.refused_" + fmt.Sprint(uint32(status)))
		return
	}
	switch o.kind {
	case opCreateStream:
		id, idKnown := uint32(0), false
		if status == wire.OK {
			r := wire.NewReader(payload)
			s := r.StreamResponse()
			if r.Err() != wire.OK || s.Name != o.stream {
				w.fail("protocol", fmt.Sprintf("%s: malformed stream reply", o))
				return
			}
			id, idKnown = s.ID, true
		}
		w.catalog.addStream(o.stream, id, idKnown)
	case opCreateTopic:
		t := &topicInfo{stream: o.stream, name: o.name, partitions: o.partitions, policy: o.policy, offsetPolicy: o.offsetPolicy}
		if status == wire.OK {
			d, found, code := wire.DecodeTopicDetails(payload)
			if code != wire.OK || !found || d.Topic.Name != o.name {
				w.fail("protocol", fmt.Sprintf("%s: malformed topic reply", o))
				return
			}
			t.id, t.idKnown = d.Topic.ID, true
		}
		w.catalog.addTopic(t)
	case opCreatePartitions:
		o.topic.partitions += o.partitions
		o.topic.partitionsBusy = false
	}
}

func (w *World) settleList(a *attempt, status wire.Code, payload []byte) {
	if status != wire.OK {
		w.unexpected(a.op, status)
		return
	}
	streams, code := wire.DecodeStreams(payload)
	if code != wire.OK {
		w.fail("protocol", "get-streams: malformed reply")
		return
	}
	l := &oracles.MetaList{Call: a.call, Return: w.next()}
	for _, s := range streams {
		if churnName(s.Name) {
			continue
		}
		l.Streams = append(l.Streams, s.Name)
		if known := w.catalog.stream(s.Name); known != nil {
			known.id, known.idKnown = s.ID, true
		}
	}
	if w.staleRead(a.op) {
		return
	}
	w.hist.Lists = append(w.hist.Lists, l)
}

func (w *World) settleGetTopic(a *attempt, o *op, status wire.Code, payload []byte) {
	t := &oracles.MetaTopic{Stream: o.stream, Topic: o.name, Call: a.call}
	switch status {
	case wire.OK:
		d, found, code := wire.DecodeTopicDetails(payload)
		if code != wire.OK {
			w.fail("protocol", fmt.Sprintf("%s: malformed reply", o))
			return
		}
		t.Found, t.Partitions = found, uint32(len(d.Partitions))
		if found && o.topic != nil {
			o.topic.id, o.topic.idKnown = d.Topic.ID, true
		}
	case wire.StreamIdNotFound, wire.StreamNameNotFound, wire.TopicIdNotFound, wire.TopicNameNotFound:
	default:
		w.unexpected(o, status)
		return
	}
	t.Return = w.next()
	if w.staleRead(o) {
		return
	}
	w.hist.Topics = append(w.hist.Topics, t)
}

// staleRead: in a replica set a non-replicated read is served from the
// local state of whichever replica the client reached, which may lag, so
// only the read-back after convergence goes to the durability oracle.
func (w *World) staleRead(o *op) bool {
	if !w.cluster() || o.final {
		return false
	}
	w.marks.Hit("sim.read.stale_unchecked")
	return true
}

// pollMarks marks the heavy workload's polls that returned messages.
func (w *World) pollMarks(o *op) {
	switch {
	case o.kind == opGroupPoll:
		w.marks.Hit(markGroupPolled)
	case o.kind != opPollOther:
	case o.strategy == wire.PollFirst:
		w.marks.Hit(markPollFirst)
	case o.strategy == wire.PollLast:
		w.marks.Hit(markPollLast)
	default:
		w.marks.Hit(markPollTimestamp)
	}
}
