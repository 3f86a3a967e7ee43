package node_test

import (
	"fmt"

	"github.com/iggygo/iggy/wire"
)

// deferred-poll c stream topic partition=N (offset=N | next) count=N
// wait-us=N [min=N] [max-bytes=N] [inc=N] [consumer=ID] [auto-commit]:
// command 106.
func cmdDeferredPoll(w *world, a *args) {
	c := w.clientOf(a)
	q := pollWithOptions(a)
	a.done(3)
	// A parked poll is quiet until data, its wait or a cancel: no verdict.
	w.call(c, "deferred-poll", wire.CmdDeferredPoll, encode(q.Encode), decodePositions).held = true
	w.finish()
}

// pollWithOptions reads a poll and its PollOptions from a script line.
func pollWithOptions(a *args) wire.DeferredPollRequest {
	q := wire.DeferredPollRequest{Poll: wire.PollMessagesRequest{Consumer: consumerOf(a), StreamID: ident(a.arg(1)),
		TopicID: ident(a.arg(2)), Partition: partitionOf(a), Count: a.u32("count", 100), AutoCommit: a.flag("auto-commit"),
		Strategy: wire.PollingStrategy{Kind: wire.PollOffset, Value: a.u64("offset", 0)}},
		WaitMicros: a.u64("wait-us", 0), MinCount: a.u32("min", 1), MaxBytes: a.u32("max-bytes", 0),
		Incarnation: a.u64("inc", 0)}
	switch {
	case a.flag("next"):
		q.Poll.Strategy = wire.PollingStrategy{Kind: wire.PollNext}
	case a.flag("first"):
		q.Poll.Strategy = wire.PollingStrategy{Kind: wire.PollFirst}
	}
	return q
}

// decodePositions is decodePoll for a reply with PollPositions, which it
// appends: next= the continuation, checkpoint= (or none), inc=.
func decodePositions(w *world, c *simClient, p []byte) string {
	if len(p) < wire.PollPrefixBytes+wire.PollPositionsBytes {
		return fmt.Sprintf("short poll reply with positions (%d bytes)", len(p))
	}
	_, pos, code := wire.DecodePolledWithPositions(p)
	if code != wire.OK {
		return "malformed poll reply: " + code.Name()
	}
	plain := append(append([]byte{}, p[:wire.PollPrefixBytes]...), p[wire.PollPrefixBytes+wire.PollPositionsBytes:]...)
	checkpoint := "none"
	if pos.Checkpoint != wire.NoCheckpoint {
		checkpoint = fmt.Sprint(pos.Checkpoint)
	}
	return fmt.Sprintf("%s next=%d checkpoint=%s inc=%d", decodePoll(w, c, plain), pos.Continuation, checkpoint, pos.Incarnation)
}

// poll-options c ...: as deferred-poll, sent as PollMessages (100) with
// the PollOptions block.
func cmdPollOptions(w *world, a *args) {
	c := w.clientOf(a)
	q := pollWithOptions(a)
	a.done(3)
	w.call(c, "poll-options", wire.CmdPollMessages, encode(q.Encode), decodePositions).held = true
	w.finish()
}

// cancel-deferred c: command 108 naming c's latest deferred poll.
func cmdCancelDeferred(w *world, a *args) {
	c := w.clientOf(a)
	a.done(1)
	var req uint64
	for _, r := range c.awaiting {
		if r.what == "deferred-poll" {
			req = r.header.Request
		}
	}
	q := wire.CancelDeferredPollRequest{Request: req}
	w.call(c, "cancel-deferred", wire.CmdCancelDeferredPoll, encode(q.Encode), func(*world, *simClient, []byte) string {
		return "cancelled"
	})
	w.finish()
}
