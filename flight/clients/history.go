// Package clients rebuilds, from a flight dump's replay, what the replayed
// node's clients observed (their requests as recorded, the replies the
// replay produced) as an oracles.History, and judges it with the oracles
// that apply to one node. It lives apart from package flight so the server,
// which links flight to record, does not link the oracles.
package clients

import (
	"fmt"

	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// priorBatch names the messages a partition held before the dump's window
// (appended by an earlier process): the replay never saw them sent, so one
// synthetic append at offset 0 stands for all of them (Index = offset).
const priorBatch = ^uint64(0) - 1

// callsPendingMax bounds the requests awaiting a reply that the history
// tracks; past it the history stops recording (and says so) rather than grow.
const callsPendingMax = 1 << 16

// callKey names one request: replies carry the request number.
type callKey struct {
	conn    bus.ConnID
	request uint64
}

// call is a client request the history waits to see answered.
type call struct {
	op           wire.Operation
	cmd          wire.Command
	at           oracles.Time
	stream       wire.Identifier
	topic        wire.Identifier
	ids          [][16]byte // a send's message ids
	batch        uint64
	partitioning wire.Partitioning
	conn         bus.ConnID
	poll         wire.PollMessagesRequest
	offset       wire.StoreConsumerOffsetRequest
	consumer     wire.ConsumerOffsetRef
}

// History rebuilds what the clients of a replayed node observed, in
// the oracles' terms: each client frame is a call, the replayed node's
// reply to it the return. Message identity is the message id: a send's ids
// become one batch, a poll's returned ids are looked up there.
type History struct {
	h        oracles.History
	now      oracles.Time
	pending  map[callKey]*call
	msgs     map[[16]byte]oracles.Msg
	batches  uint64
	streams  map[string]uint32 // stream name -> numeric id, learnt from sends
	topics   map[string]uint32 // "stream/topic name" -> numeric id
	unjudged map[string]bool   // consumers whose offsets also move by auto-commit or delete
	stored   map[string]bool   // consumers with an acknowledged store in the window
	users    map[string]int
	overflow bool
}

// NewHistory is an empty history, ready to watch a replay (flight.Options.Clients).
func NewHistory() *History {
	return &History{pending: map[callKey]*call{}, msgs: map[[16]byte]oracles.Msg{},
		streams: map[string]uint32{}, topics: map[string]uint32{}, unjudged: map[string]bool{},
		stored: map[string]bool{}, users: map[string]int{}}
}

func (c *History) next() oracles.Time { c.now++; return c.now }

// frame records a client request the history can judge.
func (c *History) Frame(m bus.ClientFrame) {
	h, v := wire.DecodeRequestHeader(m.Frame)
	if v != wire.VerdictAccept || len(m.Frame) < wire.HeaderSize {
		return
	}
	body := m.Frame[wire.HeaderSize:]
	k := &call{op: h.Operation, cmd: h.NRCode}
	var ok bool
	switch {
	case h.Operation == wire.OpSendMessages:
		ok = c.sendCall(k, body)
	case h.Operation == wire.OpStoreConsumerOffset:
		q, code := wire.DecodeStoreConsumerOffsetRequest(body)
		k.offset, k.stream, k.topic, ok = q, q.StreamID, q.TopicID, code == wire.OK
	case h.Operation == wire.OpDeleteConsumerOffset:
		if q, code := wire.DecodeDeleteConsumerOffsetRequest(body); code == wire.OK {
			c.unjudged[consumerName(q.ConsumerOffsetRef)] = true
		}
	case h.Operation == wire.OpNonReplicated && h.NRCode == wire.CmdPollMessages:
		q, code := wire.DecodePollMessagesRequest(body)
		k.poll, k.stream, k.topic, ok = q, q.StreamID, q.TopicID, code == wire.OK
		if ok && q.AutoCommit {
			c.unjudged[consumerName(wire.ConsumerOffsetRef{Consumer: q.Consumer})] = true
		}
	case h.Operation == wire.OpNonReplicated && h.NRCode == wire.CmdGetConsumerOffset:
		q, code := wire.DecodeGetConsumerOffsetRequest(body)
		k.consumer, k.stream, k.topic, ok = q, q.StreamID, q.TopicID, code == wire.OK
	}
	if !ok {
		return
	}
	if len(c.pending) >= callsPendingMax {
		c.overflow = true
		return
	}
	k.at, k.conn = c.next(), m.Conn
	c.pending[callKey{m.Conn, h.Request}] = k
}

func (c *History) sendCall(k *call, body []byte) bool {
	q, code := wire.DecodeSendMessagesRequest(body)
	if code != wire.OK {
		return false
	}
	k.stream, k.topic = q.StreamID, q.TopicID
	frames := batch.FramesOf(q.Batch)
	for f, ok := frames.Next(); ok; f, ok = frames.Next() {
		k.ids = append(k.ids, f.ID)
	}
	if frames.Err() != wire.OK || len(k.ids) != int(q.MessagesCount) {
		return false
	}
	// The batch is named at the call: a poll may return its messages
	// before the reply, or the reply may never come.
	c.batches++
	k.batch, k.partitioning = c.batches, q.Partitioning
	for i, id := range k.ids {
		c.msgs[id] = oracles.Msg{Batch: k.batch, Index: uint32(i)}
	}
	return true
}

// reply settles the call a reply answers; a connection closed with calls
// pending leaves them indefinite (a send may have taken effect).
func (c *History) Reply(rep bus.Reply) {
	if len(rep.Parts) == 0 {
		return
	}
	var frame []byte
	for _, p := range rep.Parts {
		frame = append(frame, p...)
	}
	h, code := wire.DecodeReplyHeader(frame)
	if code != wire.OK {
		return
	}
	key := callKey{rep.Conn, h.Request}
	k, ok := c.pending[key]
	if !ok {
		return
	}
	delete(c.pending, key)
	status, payload := wire.OK, []byte(nil)
	if rb, code := wire.SplitReplyBody(h, frame[min(len(frame), wire.HeaderSize):]); code != wire.OK {
		status = code
	} else {
		status, payload = rb.Result, rb.Payload
	}
	c.settle(rep.Conn, k, status, payload)
}

func (c *History) settle(conn bus.ConnID, k *call, status wire.Code, payload []byte) {
	switch {
	case k.op == wire.OpSendMessages:
		c.settleSend(conn, k, status, payload)
	case status != wire.OK:
		// A refused read or store took no effect and showed nothing.
	case k.op == wire.OpStoreConsumerOffset:
		c.settleStore(k)
	case k.cmd == wire.CmdPollMessages:
		c.settlePoll(conn, k, payload)
	case k.cmd == wire.CmdGetConsumerOffset:
		c.settleGet(k, payload)
	}
}

func (c *History) settleSend(conn bus.ConnID, k *call, status wire.Code, payload []byte) {
	if status != wire.OK {
		return // refused: no effect, nothing to judge
	}
	confs, code := wire.DecodeSendConfirmations(payload)
	if code != wire.OK || len(confs) != 1 {
		return
	}
	cf := confs[0]
	c.learn(k, cf.StreamID, cf.TopicID)
	c.h.Appends = append(c.h.Appends, &oracles.Append{Part: oracles.PartKey{Stream: fmt.Sprint(cf.StreamID), Topic: fmt.Sprint(cf.TopicID), Partition: cf.PartitionID},
		Client: int(conn), Batch: k.batch, Count: uint32(len(k.ids)), Policy: oracles.DurabilityReplicated,
		Outcome: oracles.OutcomeOK, Base: cf.BaseOffset, Call: k.at, Return: c.next()})
}

// learn maps the names a send used to the numeric ids its confirmation
// gave, so requests by name and by id address the same partition.
func (c *History) learn(k *call, stream, topic uint32) {
	if !k.stream.Numeric {
		c.streams[k.stream.Name] = stream
	}
	if !k.topic.Numeric {
		c.topics[fmt.Sprint(stream, "/", k.topic.Name)] = topic
	}
}

// part names a partition by numeric ids where known.
func (c *History) part(stream, topic wire.Identifier, partition uint32) oracles.PartKey {
	s := stream.Name
	if id, ok := c.streams[s]; stream.Numeric || ok {
		s = fmt.Sprint(max(id, stream.ID))
	}
	t := topic.Name
	if id, ok := c.topics[s+"/"+t]; topic.Numeric || ok {
		t = fmt.Sprint(max(id, topic.ID))
	}
	return oracles.PartKey{Stream: s, Topic: t, Partition: partition}
}

func (c *History) settlePoll(conn bus.ConnID, k *call, payload []byte) {
	polled, code := wire.DecodePolledMessages(payload)
	pre := polled.Prefix
	if code != wire.OK || pre.PartitionID == wire.PollResyncPartition {
		return
	}
	st := k.poll.Strategy
	r := &oracles.Read{Part: c.part(k.stream, k.topic, pre.PartitionID), Client: int(conn),
		ByOffset: st.Kind == wire.PollOffset, Offset: st.Value, Count: k.poll.Count, Current: pre.CurrentOffset}
	for _, rec := range polled.Records {
		h := batch.ParseHeader(rec)
		frames := batch.FramesOf(rec)
		for f, ok := frames.Next(); ok; f, ok = frames.Next() {
			off := h.BaseOffset + uint64(f.OffsetDelta)
			m, known := c.msgs[f.ID]
			if !known {
				m = oracles.Msg{Batch: priorBatch, Index: uint32(off)}
			}
			if len(r.Msgs) == 0 {
				r.First = off
			}
			r.Msgs = append(r.Msgs, m)
		}
	}
	if st.Kind != wire.PollOffset && st.Kind != wire.PollNext {
		return // by time, first or last: the oracles model offsets only
	}
	r.Call, r.Return = k.at, c.next()
	c.h.Reads = append(c.h.Reads, r)
}

func (c *History) settleStore(k *call) {
	q := k.offset
	name := consumerName(q.ConsumerOffsetRef)
	c.stored[name] = true
	c.h.Stores = append(c.h.Stores, &oracles.OffsetStore{Part: c.part(k.stream, k.topic, q.Partition.ID),
		Consumer: c.user(name), Value: q.Offset, Policy: oracles.DurabilityReplicated, Outcome: oracles.OutcomeOK,
		Call: k.at, Return: c.next()})
}

// settleGet records an offset read of a consumer whose every store in
// the window the history saw: one with stores before the window, or
// moved by auto-commit or a delete, cannot be judged.
func (c *History) settleGet(k *call, payload []byte) {
	name := consumerName(k.consumer)
	if !c.stored[name] || c.unjudged[name] {
		return
	}
	info, found, code := wire.DecodeConsumerOffsetInfo(payload)
	if code != wire.OK {
		return
	}
	c.h.Gets = append(c.h.Gets, &oracles.OffsetGet{Part: c.part(k.stream, k.topic, k.consumer.Partition.ID),
		Consumer: c.user(name), Found: found, Value: info.StoredOffset, Call: k.at, Return: c.next()})
}

func (c *History) user(name string) int {
	if n, ok := c.users[name]; ok {
		return n
	}
	c.users[name] = len(c.users)
	return c.users[name]
}

func consumerName(r wire.ConsumerOffsetRef) string {
	return fmt.Sprintf("%d:%v", r.Consumer.Kind, r.Consumer.ID)
}

// finish closes the history: calls still pending are indefinite sends, and
// each partition gets one append standing for what it held before the
// window (the lowest base acknowledged in it, or what reads showed).
func (c *History) finish() *oracles.History {
	for _, k := range c.pending {
		if k.op == wire.OpSendMessages && k.partitioning.Kind == wire.PartitioningPartitionID {
			c.h.Appends = append(c.h.Appends, &oracles.Append{Part: c.part(k.stream, k.topic, k.partitioning.PartitionID),
				Client: int(k.conn), Batch: k.batch, Count: uint32(len(k.ids)), Policy: oracles.DurabilityReplicated,
				Outcome: oracles.OutcomeUnknown, Call: k.at, Return: oracles.Never})
		}
	}
	prior := map[oracles.PartKey]uint64{}
	seen := map[oracles.PartKey]bool{}
	for _, a := range c.h.Appends {
		if a.Outcome != oracles.OutcomeOK {
			continue
		}
		if !seen[a.Part] || a.Base < prior[a.Part] {
			prior[a.Part] = a.Base
		}
		seen[a.Part] = true
	}
	for _, r := range c.h.Reads {
		if !seen[r.Part] && (len(r.Msgs) > 0 || r.Current > 0) {
			prior[r.Part] = max(prior[r.Part], r.Current+1)
		}
	}
	c.resolvePrior(prior)
	for k, n := range prior {
		if n > 0 {
			c.h.Appends = append(c.h.Appends, &oracles.Append{Part: k, Client: -2, Batch: priorBatch, Count: uint32(n),
				Policy: oracles.DurabilityReplicated, Outcome: oracles.OutcomeOK, Base: 0, Call: 0, Return: 0})
		}
	}
	return &c.h
}

// Verdict is one oracle's judgement of a replay's client history.
type Verdict struct {
	Oracle string
	// Result is "ok", or the violation, naming the first operation it found.
	Result string
	// Detail is the violating partition's history, call order.
	Detail string
}

// HistoryStats says how much the oracles had to check (vacuity).
type HistoryStats struct {
	Appends, Reads, ReadsWithMessages, Stores, Gets int
}

// judge runs the oracles that apply to one node's clients: the history of
// each partition is linearizable, no offset is acknowledged twice, and
// consumer offsets read back what was stored. The window holds one
// process, so the history records no crash.
func judge(h *oracles.History) []Verdict {
	var out []Verdict
	st, err := oracles.CheckLinearizable(h)
	v := Verdict{Oracle: "linearizable", Result: "ok"}
	if err != nil {
		v.Result = err.Error()
		if st.Failed != nil {
			v.Detail = oracles.DescribePartition(h, *st.Failed)
		}
	}
	out = append(out, v)
	for _, o := range []struct {
		name  string
		check func(*oracles.History) error
	}{{"offsets", oracles.CheckOffsets}, {"offset-reuse", oracles.CheckNoReuse},
		{"consumer-offsets", func(h *oracles.History) error { return oracles.CheckConsumerOffsets(h, mark.Discard{}) }}} {
		v := Verdict{Oracle: o.name, Result: "ok"}
		if err := o.check(h); err != nil {
			v.Result = err.Error()
		}
		out = append(out, v)
	}
	return out
}

func (c *History) Stats() HistoryStats {
	s := HistoryStats{Appends: len(c.h.Appends), Reads: len(c.h.Reads), Stores: len(c.h.Stores), Gets: len(c.h.Gets)}
	for _, r := range c.h.Reads {
		if len(r.Msgs) > 0 {
			s.ReadsWithMessages++
		}
	}
	return s
}

// resolvePrior names again the messages reads returned below a partition's
// prior end (what it held before the window) that are not where their
// batch was acknowledged: a client may reuse message ids, and a message
// before the window that shares an id with one sent in it is not that one.
func (c *History) resolvePrior(prior map[oracles.PartKey]uint64) {
	acked := map[uint64]*oracles.Append{}
	for _, a := range c.h.Appends {
		if a.Outcome == oracles.OutcomeOK {
			acked[a.Batch] = a
		}
	}
	for _, r := range c.h.Reads {
		for i, m := range r.Msgs {
			off := r.First + uint64(i)
			a, ok := acked[m.Batch]
			if off < prior[r.Part] && (!ok || a.Part != r.Part || a.Base+uint64(m.Index) != off) {
				r.Msgs[i] = oracles.Msg{Batch: priorBatch, Index: uint32(off)}
			}
		}
	}
}

// Judge closes the history and runs the one-node oracles over it; call it
// once, after the replay.
func (c *History) Judge() []Verdict { return judge(c.finish()) }
