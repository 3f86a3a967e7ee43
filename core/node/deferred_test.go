package node_test

import (
	"github.com/iggygo/iggy/wire"
)

// deferred-poll c stream topic partition=N (offset=N | next) count=N
// wait-us=N [min=N] [max-bytes=N] [consumer=ID] [auto-commit]: command 106.
func cmdDeferredPoll(w *world, a *args) {
	c := w.clientOf(a)
	q := wire.DeferredPollRequest{Poll: wire.PollMessagesRequest{Consumer: consumerOf(a), StreamID: ident(a.arg(1)),
		TopicID: ident(a.arg(2)), Partition: partitionOf(a), Count: a.u32("count", 100), AutoCommit: a.flag("auto-commit"),
		Strategy: wire.PollingStrategy{Kind: wire.PollOffset, Value: a.u64("offset", 0)}},
		WaitMicros: a.u64("wait-us", 0), MinCount: a.u32("min", 1), MaxBytes: a.u32("max-bytes", 0)}
	if a.flag("next") {
		q.Poll.Strategy = wire.PollingStrategy{Kind: wire.PollNext}
	}
	a.done(3)
	// A parked poll is quiet until data, its wait or a cancel: no verdict.
	w.call(c, "deferred-poll", wire.CmdDeferredPoll, encode(q.Encode), decodePoll).held = true
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
