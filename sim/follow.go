package sim

import (
	"fmt"

	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
)

// The change log follower (MCL-4, MCL-9, MCL-21..25): one more client,
// after the workload's, that reads GetMetadataChanges (17) of every group
// from earliest, page after page with the cursor each page returned, on
// whatever replica it is connected to: across restarts, view changes and
// its own moves. behind: it asks again, in a set elsewhere; expired: it
// walks current to its end and follows from the anchor; reset: this run
// has one history, so it fails. After heal (in a set, once the replicas
// converged) it reads until a page brings nothing more. The oracle
// (oracles.CheckChanges) then compares what it saw with a live replica's
// log: every committed change once and in order.

// Follower timing and bounds.
const (
	followThinkTicksMax = 40   // between pages once caught up
	followPauseOneIn    = 16   // one wait in this many is a long pause
	followPauseTicksMax = 1500 // so the activity ring can evict past it
	followMoveOneIn     = 4    // in a set, one wait in this many moves
	// followConvergeEveryTicks spaces the follower's convergence checks.
	followConvergeEveryTicks = 200
	// simActivityCapacity is the sim nodes' activity ring: small, so
	// membership churn evicts past a paused follower (expired is reached).
	simActivityCapacity = 32
	// anchorPageLimit is the limit of a current walk's pages.
	anchorPageLimit = 1000
)

// followLimits are the limits a follower's history pages ask for.
var followLimits = [...]uint32{1, 3, 100, wire.ChangeLimitMax}

// Marks of the follower.
const (
	markFollowRecords = "sim.changes.page_with_records"
	markFollowRestart = "sim.changes.followed_across_restart"
	markFollowNodes   = "sim.changes.followed_across_nodes"
	markFollowBehind  = "sim.changes.behind"
	markFollowExpired = "sim.changes.expired"
	markFollowAnchor  = "sim.changes.anchored"
)

// followRequired are the follower's marks a standalone sweep must hit,
// followClusterRequired a cluster sweep's.
var (
	followRequired        = []string{markFollowRecords, markFollowRestart, markFollowExpired, markFollowAnchor, oracles.MarkChangesChecked}
	followClusterRequired = []string{markFollowRecords, markFollowNodes, oracles.MarkChangesChecked}
)

// follower is the follower client's state.
type follower struct {
	cursor string // "" before the first page: earliest
	seq    uint64 // the cursor's seq
	// replica and epoch answered the page the cursor came from.
	replica, epoch int
	// anchoring: walking current after expired; token is the next page's.
	anchoring bool
	token     string
	expiredAt uint64
	// reconnect: behind in a set (ask another replica), or the
	// connection's session is gone (log in again).
	reconnect bool
	waitUntil uint64 // the next page is asked no earlier
	caughtUp  bool
	// converged: after heal, the replicas of a set converged; the next
	// check is no earlier than convergeCheckAt.
	converged       bool
	convergeCheckAt uint64
	seen            oracles.ChangeFollow
}

// followOp is the follower's next request; nil while it waits.
func (w *World) followOp(c *client) *op {
	f := c.follow
	if w.tick < f.waitUntil {
		return nil
	}
	if f.reconnect {
		f.reconnect = false
		l := c.link
		w.lost(c)
		w.hangUp(l)
		return nil
	}
	if w.healed && (f.caughtUp || !w.followerConverged(f)) {
		c.done = c.done || f.caughtUp
		return nil
	}
	q := wire.ChangesRequest{Start: wire.ChangeStartEarliest, Limit: followLimits[w.rng.IntN(len(followLimits))]}
	switch {
	case f.anchoring:
		q = wire.ChangesRequest{Start: wire.ChangeStartCurrent, Limit: anchorPageLimit, Token: f.token}
	case f.cursor != "":
		q.Start, q.Token = wire.ChangeStartCursor, f.cursor
	}
	buf := &wire.Writer{}
	wire.EncodeChangesRequest(buf, q)
	return &op{kind: opChanges, code: wire.CmdGetMetadataChanges, body: buf.Buf}
}

// followed takes a GetMetadataChanges answer of the follower.
func (w *World) followed(a *attempt, status wire.Code, payload []byte) {
	c := a.link.client
	f := c.follow
	if status == wire.Unauthenticated {
		w.marks.Hit("sim.changes.unauthenticated")
		f.reconnect = true
		return
	}
	if status != wire.OK {
		w.fail("protocol", fmt.Sprintf("GetMetadataChanges answered %d %s", status, status.Name()))
		return
	}
	rep, code := wire.DecodeChangesReply(payload)
	if code != wire.OK {
		w.fail("protocol", "malformed GetMetadataChanges reply")
		return
	}
	switch rep.Status {
	case wire.ChangeStatusOK:
		if f.anchoring {
			w.anchorPage(f, rep)
		} else {
			w.historyPage(c, a, rep)
		}
	case wire.ChangeStatusBehind:
		w.marks.Hit(markFollowBehind)
		f.reconnect = w.cluster()
	case wire.ChangeStatusExpired:
		w.marks.Hit(markFollowExpired)
		f.anchoring, f.token, f.expiredAt = true, "", f.seq
	case wire.ChangeStatusReset:
		w.fail("changes", fmt.Sprintf("replica %d answered reset for cursor %s of the run's only history", a.link.host.idx, f.cursor))
	}
	if !rep.HasMore && !f.anchoring {
		f.waitUntil = w.tick + w.followWait()
		// In a set, it also moves to another replica now and then, so its
		// cursor is followed across nodes (MCL-4).
		f.reconnect = f.reconnect || w.cluster() && w.rng.IntN(followMoveOneIn) == 0
	}
}

// followerConverged: after heal the follower reads on once the replicas
// converged (always, for one replica). It asks at most once per
// followConvergeEveryTicks: each check encodes every replica's image.
func (w *World) followerConverged(f *follower) bool {
	if !w.cluster() || f.converged {
		return true
	}
	if w.tick < f.convergeCheckAt {
		return false
	}
	f.convergeCheckAt = w.tick + followConvergeEveryTicks
	f.converged = w.converged()
	return f.converged
}

// followWait is how long the follower waits after a page that ended.
func (w *World) followWait() uint64 {
	if !w.healed && w.rng.IntN(followPauseOneIn) == 0 {
		return w.rng.Uint64N(followPauseTicksMax)
	}
	return w.rng.Uint64N(followThinkTicksMax)
}

// historyPage records an ok page of history and moves the cursor on.
func (w *World) historyPage(c *client, a *attempt, rep wire.ChangesReply) {
	f := c.follow
	cur, ok := wire.ParseChangeCursor(rep.Cursor)
	if !ok {
		w.fail("changes", fmt.Sprintf("an ok page carried cursor %q", rep.Cursor))
		return
	}
	h := a.link.host
	if len(rep.Records) > 0 {
		w.marks.Hit(markFollowRecords)
		switch {
		case f.cursor == "":
		case h.idx != f.replica:
			w.marks.Hit(markFollowNodes)
		case a.link.epoch != f.epoch:
			w.marks.Hit(markFollowRestart)
		}
	}
	f.seen.Pages = append(f.seen.Pages, oracles.ChangePage{After: f.seq, Earliest: f.cursor == "",
		Records: rep.Records, Replica: h.idx, Next: cur.Seq})
	f.cursor, f.seq, f.replica, f.epoch = rep.Cursor, cur.Seq, h.idx, a.link.epoch
	if w.healed && len(rep.Records) == 0 && !rep.HasMore && w.followerConverged(f) {
		f.caughtUp, f.seen.CaughtUp = true, cur.Seq
	}
}

// anchorPage takes one page of the current walk after expired; the last
// one's anchor is where history goes on (MCL-25).
func (w *World) anchorPage(f *follower, rep wire.ChangesReply) {
	if rep.HasMore {
		f.token = rep.PageToken
		return
	}
	cur, ok := wire.ParseChangeCursor(rep.Cursor)
	if !ok {
		w.fail("changes", fmt.Sprintf("a current page carried anchor %q", rep.Cursor))
		return
	}
	w.marks.Hit(markFollowAnchor)
	f.seen.Expired = append(f.seen.Expired, oracles.ChangeGap{Cursor: f.expiredAt, Anchor: cur.Seq})
	f.anchoring, f.token, f.cursor, f.seq = false, "", rep.Cursor, cur.Seq
}

// checkChanges runs the change log oracle against a live replica's log.
func (w *World) checkChanges(*oracles.History) error {
	f := w.followerState()
	if f == nil {
		return nil
	}
	if !w.cluster() && len(w.hist.MetaDamages) > 0 {
		return nil // the only copy of the log may be gone
	}
	final, ok := w.finalChanges()
	if !ok {
		return nil
	}
	if err := oracles.CheckChanges(&f.seen, final); err != nil {
		return err
	}
	for _, p := range f.seen.Pages {
		if len(p.Records) > 0 {
			w.marks.Hit(oracles.MarkChangesChecked)
			break
		}
	}
	return nil
}

func (w *World) followerState() *follower {
	for _, c := range w.clients {
		if c.follow != nil {
			return c.follow
		}
	}
	return nil
}

// finalChanges reads the whole log of the first live replica (in a set
// they converged, so every one holds the same).
func (w *World) finalChanges() (oracles.FinalChanges, bool) {
	for _, h := range w.hosts {
		if h.retired || h.node == nil || !h.booted {
			continue
		}
		var out oracles.FinalChanges
		q := wire.ChangesRequest{Start: wire.ChangeStartEarliest, Limit: wire.ChangeLimitMax}
		for first := true; ; first = false {
			p := h.node.MetadataChanges(q)
			if first {
				cur, _ := wire.ParseChangeCursor(p.Cursor)
				out.Floor = cur.Seq
				if len(p.Records) > 0 {
					out.Floor = p.Records[0].Seq - 1
				}
			}
			out.Records = append(out.Records, p.Records...)
			if !p.HasMore || p.Status != wire.ChangeStatusOK {
				return out, true
			}
			q = wire.ChangesRequest{Start: wire.ChangeStartCursor, Limit: wire.ChangeLimitMax, Token: p.Cursor}
		}
	}
	return oracles.FinalChanges{}, false
}
