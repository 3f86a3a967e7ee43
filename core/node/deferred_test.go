package node_test

import (
	"fmt"
	"strings"

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

// fetch c stream topic parts=P@START[~INC],... count=N wait-us=N [min=N]
// [max-bytes=N] [consumer=ID] [auto-commit] [nowait]: a grouped fetch
// (109); START is an offset, next or first, INC the incarnation to check.
// Each section prints on its own line.
func cmdFetch(w *world, a *args) {
	c := w.clientOf(a)
	q := wire.GroupedFetchRequest{Consumer: consumerOf(a), StreamID: ident(a.arg(1)), TopicID: ident(a.arg(2)),
		Count: a.u32("count", 100), WaitMicros: a.u64("wait-us", 0), MinCount: a.u32("min", 1), MaxBytes: a.u32("max-bytes", 0)}
	if a.flag("auto-commit") {
		q.Commit = wire.CommitOnRead
	}
	for _, spec := range strings.Split(a.str("parts", ""), ",") {
		q.Partitions = append(q.Partitions, fetchPartitionOf(a, spec))
	}
	a.done(3)
	w.call(c, "fetch", wire.CmdGroupedDeferredFetch, encode(q.Encode), decodeFetch).held = true
	w.finish()
}

func fetchPartitionOf(a *args, spec string) wire.FetchPartition {
	var p wire.FetchPartition
	pid, rest, _ := strings.Cut(spec, "@")
	start, inc, _ := strings.Cut(rest, "~")
	if _, err := fmt.Sscan(pid, &p.PartitionID); err != nil {
		a.fail("parts: %q", spec)
	}
	if inc != "" {
		if _, err := fmt.Sscan(inc, &p.Incarnation); err != nil {
			a.fail("parts: %q", spec)
		}
	}
	switch start {
	case "next":
		p.Strategy = wire.PollingStrategy{Kind: wire.PollNext}
	case "first":
		p.Strategy = wire.PollingStrategy{Kind: wire.PollFirst}
	default:
		p.Strategy = wire.PollingStrategy{Kind: wire.PollOffset}
		if _, err := fmt.Sscan(start, &p.Strategy.Value); err != nil {
			a.fail("parts: %q", spec)
		}
	}
	return p
}

// decodeFetch prints a grouped reply, one line per section.
func decodeFetch(w *world, c *simClient, p []byte) string {
	sections, code := wire.DecodeGroupedFetchReply(p)
	if code != wire.OK {
		return "malformed grouped fetch reply: " + code.Name()
	}
	lines := []string{fmt.Sprintf("fetched %d sections", len(sections))}
	r := wire.NewReader(p)
	r.U32()
	for _, s := range sections {
		r.U32()
		r.U32()
		body := r.Bytes(int(r.U32()))
		if s.Status != wire.OK {
			lines = append(lines, fmt.Sprintf("  %d: status=%d %s", s.PartitionID, uint32(s.Status), s.Status.Name()))
			continue
		}
		lines = append(lines, fmt.Sprintf("  %d: %s", s.PartitionID, decodePositions(w, c, body)))
	}
	return strings.Join(lines, "\n")
}
