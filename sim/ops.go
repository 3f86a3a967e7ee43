package sim

import (
	"fmt"

	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
)

// opKind is what a client operation does.
type opKind uint8

const (
	opSend opKind = iota + 1
	opPoll
	opPollNext
	opStore
	opGetOffset
	opCreateStream
	opCreateTopic
	opCreatePartitions
	opListStreams
	opGetTopic
	opChurn  // an update or delete, a user or token op (churn.go)
	opLogout // ends the session; the client logs in again
	opRoutes // asks where a partition's primary is, after a 58 (routes.go)
	// The heavy workload's (heavier.go).
	opPollOther // a poll by the first or last offset, or a timestamp
	opGroup     // a consumer group's create, join, leave or read
	opGroupPoll // a poll by next as a group member
	opChanges   // the follower's GetMetadataChanges (follow.go)
)

var opNames = [...]string{opSend: "send", opPoll: "poll", opPollNext: "poll-next", opStore: "store-offset",
	opGetOffset: "get-offset", opCreateStream: "create-stream", opCreateTopic: "create-topic",
	opCreatePartitions: "create-partitions", opListStreams: "get-streams", opGetTopic: "get-topic",
	opChurn: "churn", opLogout: "logout", opRoutes: "routes", opPollOther: "poll-other", opGroup: "group",
	opGroupPoll: "group-poll", opChanges: "metadata-changes"}

func (k opKind) String() string { return opNames[k] }

// op is one client operation: its request (stamped once, so every retry
// is the same bytes and the same request id) and what it is about.
type op struct {
	kind   opKind
	code   wire.Command
	body   []byte
	frame  []byte
	header wire.RequestHeader
	since  uint64 // tick of its first attempt
	tries  int

	part   oracles.PartKey
	topic  *topicInfo
	batch  uint64 // sends
	count  uint32 // messages sent, or messages asked for by a poll
	offset uint64 // poll by offset
	value  uint64 // offset store
	final  bool   // part of the read-back after heal
	// deferred is set for a deferred poll (106) of kind opPoll (deferred.go).
	deferred *deferredAsk
	// fetch is set for a grouped fetch (109), a deferred poll of several
	// partitions of the topic (grouped.go).
	fetch *fetchAsk

	stream, name string // creates
	partitions   uint32
	policy       oracles.Durability // a new topic's durability
	offsetPolicy oracles.Durability
	create       *oracles.MetaCreate
	resent       bool // a send attempted before

	rc   *recreate // the recreate it is a step of (recreate.go)
	step recreateStep

	strategy wire.PollingKind // opPollOther
	group    groupMove        // opGroup
}

func (o *op) String() string {
	switch o.kind {
	case opSend, opPoll, opPollNext, opStore, opGetOffset, opRoutes, opPollOther, opGroupPoll:
		return fmt.Sprintf("%s %s/%s/%d", o.kind, o.part.Stream, o.part.Topic, o.part.Partition)
	case opChurn, opLogout:
		return o.stream
	case opGroup:
		return fmt.Sprintf("group-%s %s/%s/%s", groupMoveNames[o.group], o.part.Stream, o.part.Topic, o.name)
	}
	return fmt.Sprintf("%s %s/%s", o.kind, o.stream, o.name)
}

// retries says whether a client tries op again after a lost connection.
// Sends are retried only when the knob says so (an SDK that resends may
// duplicate, the offset oracle then allows it); reads are not retried.
func (w *World) retries(o *op) bool {
	switch o.kind {
	case opSend:
		return w.knobs.ResendSends || o.final
	case opPoll, opPollNext, opGetOffset, opListStreams, opGetTopic, opPollOther, opGroupPoll, opChanges:
		return o.final
	}
	return true
}

// opSent records the call of an attempt in the history.
func (w *World) opSent(c *client, a *attempt) {
	o := a.op
	switch o.kind {
	case opSend:
		a.app = &oracles.Append{Part: o.part, Client: c.idx, Batch: o.batch, Count: o.count,
			Policy: o.topic.policy, Outcome: oracles.OutcomeUnknown, Resend: o.resent, Call: a.call, Return: oracles.Never}
		o.resent = true
		w.hist.Appends = append(w.hist.Appends, a.app)
		w.catalog.part(o.part).ops++
	case opStore:
		a.store = &oracles.OffsetStore{Part: o.part, Consumer: c.idx, Value: o.value, Policy: o.topic.offsetPolicy,
			Outcome: oracles.OutcomeUnknown, Call: a.call, Return: oracles.Never}
		w.hist.Stores = append(w.hist.Stores, a.store)
	case opChurn:
		if o.rc != nil {
			w.recreateSent(o, a)
		}
	case opCreateStream, opCreateTopic, opCreatePartitions:
		if o.create == nil {
			o.create = &oracles.MetaCreate{Kind: createKind(o.kind), Stream: o.stream, Topic: o.name,
				Count: o.partitions, Outcome: oracles.OutcomeUnknown, Call: a.call, Return: oracles.Never}
			w.hist.Creates = append(w.hist.Creates, o.create)
		}
	}
}

func createKind(k opKind) oracles.MetaKind {
	switch k {
	case opCreateStream:
		return oracles.CreateStream
	case opCreateTopic:
		return oracles.CreateTopic
	}
	return oracles.CreatePartitions
}

// settle records how an attempt ended. captured: the client had given up,
// and the world read the node's reply off the dead link for the oracles.
func (w *World) settle(a *attempt, status wire.Code, payload []byte, captured bool) {
	if a.resolved || a.op == nil {
		return
	}
	a.resolved = true
	o := a.op
	switch {
	case a.app != nil:
		w.settleSend(a, status, payload)
	case a.store != nil && status == wire.TransientNotCommitted:
		// Proposed, then the replica lost its primacy: it may still
		// commit, so it stays indefinite.
	case a.store != nil:
		a.store.Return = w.next()
		a.store.Outcome = outcomeOf(status)
	case captured:
		// Reads and metadata answers nobody received tell the oracles nothing.
	case status == wire.TransientNotCommitted || status == wire.TransientNotAccepted || status == wire.NotPrimary:
	default:
		w.settleRead(a, o, status, payload)
	}
}

func outcomeOf(status wire.Code) oracles.Outcome {
	if status == wire.OK {
		return oracles.OutcomeOK
	}
	return oracles.OutcomeFailed
}

// settleSend: an error answer other than 57 means the batch was refused
// before it was appended (this simulator injects no write errors, the one
// failure that comes after an append).
func (w *World) settleSend(a *attempt, status wire.Code, payload []byte) {
	o := a.op
	if w.producerSettled(a, status, payload) {
		return
	}
	if status == wire.TransientNotCommitted {
		// Proposed in a partition's group, then the replica lost its
		// primacy: the append may still commit, so it stays indefinite.
		w.marks.Hit("sim.send.outcome_unknown_57")
		return
	}
	if status == wire.CannotSaveMessagesToSegment && w.writeFaulted(o.part) {
		// A write of the partition failed: a reopen cuts what the append
		// wrote, but a crash first keeps what reached the disk, so it
		// stays indefinite.
		w.marks.Hit("sim.send.outcome_unknown_4006")
		return
	}
	a.app.Return = w.next()
	if status != wire.OK {
		a.app.Outcome = oracles.OutcomeFailed
		w.marks.Hit("sim.send.refused_" + fmt.Sprint(uint32(status)))
		if notFound(status) || status == wire.CannotSaveMessagesToSegment {
			// The topic's create was acknowledged; and with no write error
			// injected there, a log that cannot write lost its files.
			w.unexpected(o, status)
		}
		return
	}
	confs, code := wire.DecodeSendConfirmations(payload)
	if code != wire.OK || len(confs) != 1 || confs[0].PartitionID != o.part.Partition {
		w.fail("protocol", fmt.Sprintf("malformed send confirmation for %s", o))
		return
	}
	a.app.Outcome, a.app.Base = oracles.OutcomeOK, confs[0].BaseOffset
	w.sawOffset(o.part, confs[0].BaseOffset+uint64(o.count)-1)
}

func (w *World) sawOffset(k oracles.PartKey, current uint64) {
	p := w.catalog.part(k)
	p.highest, p.known = max(p.highest, current), true
}

// undelivered settles an attempt whose frame never reached the node.
func (w *World) undelivered(a *attempt) {
	if a.resolved || a.delivered {
		return
	}
	a.resolved = true
	switch {
	case a.app != nil:
		a.app.Outcome, a.app.Return = oracles.OutcomeFailed, w.next()
	case a.store != nil:
		a.store.Outcome, a.store.Return = oracles.OutcomeFailed, w.next()
	}
}

// bounded settles an attempt the node died with: whatever it did, it did
// before now. Its outcome stays unknown.
func (w *World) bounded(a *attempt) {
	if a.resolved {
		return
	}
	if !a.delivered {
		w.undelivered(a)
		return
	}
	a.resolved = true
	switch {
	case a.app != nil:
		a.app.Return = w.next()
	case a.store != nil:
		a.store.Return = w.next()
	}
}

// capture reads a reply that reached a link its client gave up on.
func (w *World) capture(l *link, frame []byte) {
	a := l.att
	if a == nil || a.resolved || len(frame) < wire.HeaderSize {
		return
	}
	p, code := wire.DecodePrologue(frame)
	if code != wire.OK || p.Command == wire.FrameEviction {
		return
	}
	h, code := wire.DecodeReplyHeader(frame)
	if code != wire.OK || h.Request != a.header.Request || !echoes(a.header.Operation, h.Operation) {
		return
	}
	// A 57 stays what it is, an unknown outcome: a partition group's
	// primary answers it when it lost its primacy after proposing.
	status, payload := splitReply(h, frame[wire.HeaderSize:])
	w.marks.Hit("sim.net.reply_captured")
	w.settle(a, status, payload, true)
}

// notFound: the answer says an acknowledged stream, topic or partition is
// not there.
func notFound(status wire.Code) bool {
	switch status {
	case wire.StreamIdNotFound, wire.StreamNameNotFound, wire.TopicIdNotFound, wire.TopicNameNotFound, wire.PartitionNotFound:
		return true
	}
	return false
}
