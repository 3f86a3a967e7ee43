package sim

import (
	"fmt"

	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
)

// Client timing, in ticks.
const (
	transientRetryTicksMax = 5  // a 57/58 answer is replayed after 1..this
	reconnectTicksMax      = 10 // a lost connection is dialled again after 1..this
	loginTimeoutTicks      = 400
)

// client is one simulated SDK: a client id, a request counter, a session,
// one request in flight at a time, timeouts, and retries. It outlives its
// connections and keeps its client id across them, so a metadata request
// retried after a lost connection carries the same request id and the
// node's duplicate table can answer it with its first reply.
type client struct {
	idx     int
	target  int // the replica it connects to
	id      wire.U128
	counter uint64
	session uint64
	link    *link
	bound   bool
	att     *attempt // in flight on link
	op      *op      // the operation being done (it may take many attempts)
	nextAt  uint64
	// deadline is when the attempt in flight times out.
	deadline uint64
	names    int          // creates so far: names are "s<idx>-<n>", "t<idx>-<n>"
	churn    churn        // what it created to update and delete
	plan     []*op        // ops it does next, in order (a recreate's)
	store    *storeIntent // the offset store a poll by next asks for
	final    *finalRead   // client 0's read-back after heal
	done     bool         // nothing left to do after heal
	// routing is the route lookup a 58 to a partition op asks for first.
	routing *op
	// routes are the partitions' primaries the lookups named, so later ops
	// of a partition go to its primary at once (routes.go).
	routes map[oracles.PartKey]int
	// follow is set for the change log follower (follow.go).
	follow *follower
}

// attempt is one frame sent for an op (or a login) on one link.
type attempt struct {
	op        *op // nil for a login
	frame     []byte
	header    wire.RequestHeader
	link      *link
	call      oracles.Time
	sentTick  uint64
	delivered bool // the node was stepped with the frame
	resolved  bool
	app       *oracles.Append      // a send's history entry
	store     *oracles.OffsetStore // an offset store's history entry
	// quorate: a deferred poll sent in a replica set to the primary of a
	// partition group that had a quorum serving (deferred.go).
	quorate bool
}

func (w *World) newClient(idx int) *client {
	c := &client{idx: idx, target: idx % w.knobs.Replicas}
	w.freshIdentity(c)
	return c
}

// freshIdentity draws a new client id whose request ids start at 1
// (protocol-framing.md 4.5), as the SDK does after an eviction. A
// metadata request in progress is stamped again under it.
func (w *World) freshIdentity(c *client) {
	c.id = wire.U128{}
	for c.id.IsZero() {
		c.id = wire.U128{Lo: w.rng.Uint64(), Hi: w.rng.Uint64()}
	}
	c.counter, c.session = 1, 0
	if c.op != nil {
		c.op.frame = nil
	}
}

// stamp fills a request header by the SDK's rules (protocol-framing.md 4.5).
func (c *client) stamp(code wire.Command) wire.RequestHeader {
	h, next := wire.StampRequest(c.id, wire.OperationForCommand(code), code, c.counter, c.session)
	c.counter = next
	return h
}

func buildFrame(h wire.RequestHeader, body []byte) []byte {
	frame := make([]byte, wire.HeaderSize+len(body))
	h.Put(frame, len(body))
	copy(frame[wire.HeaderSize:], body)
	return frame
}

// act is one tick of a client: connect, log in, start or retry its op.
func (w *World) act(c *client) {
	if c.att != nil && w.tick >= c.deadline {
		w.marks.Hit("sim.client.timeout")
		w.event("client %d: timeout on conn %d", c.idx, c.link.id)
		w.hangUp(c.link)
		w.lost(c)
	}
	if w.tick < c.nextAt || c.att != nil {
		return
	}
	if c.link == nil {
		w.connect(c)
		return
	}
	if !c.bound {
		w.login(c) // a login answered 57 or 58 is replayed on the same link
		return
	}
	if c.routing != nil {
		w.transmit(c, c.routing)
		return
	}
	if c.op == nil {
		c.op = w.nextOp(c)
		if c.op == nil {
			c.nextAt = w.tick + 1 + w.rng.Uint64N(w.knobs.ThinkTicksMax+1)
			return
		}
		c.op.since = w.tick
	}
	if w.switchToPrimary(c, c.op) {
		return
	}
	w.transmit(c, c.op)
}

// connect dials and logs in under the client's id: a resume when the node
// still holds its session (after a restart), else a new session.
func (w *World) connect(c *client) {
	l, ok := w.dial(c)
	if !ok {
		c.nextAt = w.tick + 1 + w.rng.Uint64N(reconnectTicksMax)
		w.moveOn(c)
		return
	}
	c.link, c.bound = l, false
	w.login(c)
}

func (w *World) login(c *client) {
	body := wire.Writer{}
	wire.LoginPrefix{Version: wire.ProtocolVersionCurrent, SDKName: "iggy-sim", SDKVersion: "1"}.Encode(&body)
	wire.LoginPassword{Username: rootUsername, Password: rootPassword}.Encode(&body)
	h := c.stamp(wire.CmdLoginRegister)
	w.start(c, &attempt{frame: buildFrame(h, body.Buf), header: h}, loginTimeoutTicks)
	if w.cluster() {
		w.event("client %d: login on conn %d (replica %d)", c.idx, c.link.id, c.link.host.idx)
	}
}

// transmit sends op's frame, stamped on its first attempt; every retry
// resends the same bytes (the same request id).
func (w *World) transmit(c *client, o *op) {
	if o.frame == nil {
		o.header = c.stamp(o.code)
		o.frame = buildFrame(o.header, o.body)
	}
	o.tries++
	a := &attempt{op: o, frame: o.frame, header: o.header, call: w.next()}
	if w.cluster() {
		a.quorate = o.deferred != nil && w.groupQuorate(c.link.host, o.part)
		w.event("client %d: %s request %d session %d on conn %d (replica %d)", c.idx, o, o.header.Request, o.header.Session, c.link.id, c.link.host.idx)
	}
	w.opSent(c, a)
	w.start(c, a, w.knobs.ClientTimeoutTicks)
}

func (w *World) start(c *client, a *attempt, timeout uint64) {
	a.link, a.sentTick = c.link, w.tick
	c.att, c.deadline = a, w.tick+timeout
	w.send(c.link, a)
}

// lost forgets the connection: a reset seen, a timeout, a close by the
// server. The attempt in flight stays open on the link, for a late reply
// or a crash to settle; the op is retried after reconnecting, in a
// replica set on another replica.
func (w *World) lost(c *client) {
	if c.link != nil {
		c.link.clientGone = true
		w.event("client %d: lost conn %d", c.idx, c.link.id)
	}
	c.link, c.bound, c.att, c.routing = nil, false, nil, nil
	w.moveOn(c)
	c.nextAt = w.tick + 1 + w.rng.Uint64N(reconnectTicksMax)
	if c.op != nil && !w.retries(c.op) {
		w.marks.Hit("sim.client.gave_up")
		c.op = nil
	}
	if w.knobs.HeartbeatTicks != 0 && w.knobs.Profile != ProfileSwarm && w.rng.IntN(abandonOneIn) == 0 {
		// Some clients come back as a new session (an SDK restarted): the
		// old one is left to its lease, which the primary ends. Not in
		// swarm yet: there the changed schedule fails swarm seed 58 on a
		// persisted consumer offset whether or not leases are on (open).
		w.marks.Hit("sim.client.session_abandoned")
		w.freshIdentity(c)
	}
}

// abandonOneIn: one lost connection in this many abandons its session
// (when sessions have leases).
const abandonOneIn = 3

// onFrame handles one frame from the node on the client's live link.
func (w *World) onFrame(c *client, frame []byte) {
	p, code := wire.DecodePrologue(frame)
	if code != wire.OK {
		w.fail("protocol", fmt.Sprintf("client %d: unreadable frame of %d bytes", c.idx, len(frame)))
		return
	}
	a := c.att
	if p.Command == wire.FrameEviction {
		w.evicted(c, frame)
		return
	}
	h, code := wire.DecodeReplyHeader(frame)
	if code != wire.OK || a == nil || h.Request != a.header.Request || !echoes(a.header.Operation, h.Operation) {
		w.fail("protocol", fmt.Sprintf("client %d: unexpected reply (request %d, operation %d)", c.idx, h.Request, h.Operation))
		return
	}
	status, payload := splitReply(h, frame[wire.HeaderSize:])
	if status == wire.Unauthenticated && w.leaseMayHaveRun(c, a) {
		w.marks.Hit(markSessionRetired40)
		w.event("client %d: %s answered 40 on conn %d: its session was retired", c.idx, a.op, c.link.id)
		w.sessionGone(c, a)
		return
	}
	if a.op != nil && a.op.kind == opRoutes {
		c.att = nil
		w.routed(c, a.op, status, payload)
		return
	}
	if status == wire.TransientNotCommitted || status == wire.TransientNotAccepted || status == wire.NotPrimary {
		w.marks.Hit("sim.client.transient_" + fmt.Sprint(uint32(status)))
		w.settle(a, status, nil, false)
		c.att = nil
		c.nextAt = w.tick + 1 + w.rng.Uint64N(transientRetryTicksMax)
		if w.cluster() && status != wire.TransientNotCommitted && a.op != nil && a.op.partitionPlane() {
			c.routing = routesOp(a.op) // ask this replica where the partition's primary is
			return
		}
		if a.op == nil && status == wire.TransientNotAccepted {
			// A login refused as stale (a backup that has not applied the
			// client's newest session yet) or during a view change: the
			// same replica takes it once it caught up; moving would log in
			// elsewhere and make the session older here again.
			w.marks.Hit("sim.client.login_retried_here")
			return
		}
		if w.cluster() { // not the primary, or no longer: retry elsewhere
			l := c.link
			w.lost(c)
			w.hangUp(l)
		}
		return
	}
	c.att = nil
	if a.op == nil {
		w.loggedIn(c, status, payload)
		return
	}
	w.settle(a, status, payload, false)
	c.op = nil
	w.ops++
	w.answeredTick = w.tick
	c.nextAt = w.tick + w.rng.Uint64N(w.knobs.ThinkTicksMax+1)
	if len(c.plan) > 0 {
		c.nextAt = w.tick // a planned op follows at once (recreate.go)
	}
}

func echoes(sent, got wire.Operation) bool {
	return got == sent || (sent == wire.OpDeleteSegments && got == wire.OpTruncatePartition)
}

// splitReply returns the code of a reply (header status, else its result
// entry) and its payload.
func splitReply(h wire.ReplyHeader, body []byte) (wire.Code, []byte) {
	if h.Status != wire.OK {
		return h.Status, nil
	}
	rb, code := wire.SplitReplyBody(h, body)
	switch {
	case code != wire.OK:
		return code, nil
	case rb.Result != wire.OK:
		return rb.Result, nil
	}
	return wire.OK, rb.Payload
}

func (w *World) loggedIn(c *client, status wire.Code, payload []byte) {
	if status != wire.OK {
		w.fail("protocol", fmt.Sprintf("client %d: login answered %d %s", c.idx, status, status.Name()))
		return
	}
	reg, code := wire.DecodeRegisterReply(payload)
	if code != wire.OK || reg.Session == 0 {
		w.fail("protocol", fmt.Sprintf("client %d: malformed register reply", c.idx))
		return
	}
	if c.session != 0 && reg.Session > c.session {
		w.marks.Hit("sim.client.session_resumed")
	}
	c.session, c.bound = reg.Session, true
	w.event("client %d: logged in on conn %d (replica %d), session %d", c.idx, c.link.id, c.link.host.idx, reg.Session)
}

// evicted: the SDK closes the socket and starts over under a fresh id.
func (w *World) evicted(c *client, frame []byte) {
	e, _ := wire.DecodeEviction(frame)
	w.marks.Hit(fmt.Sprintf("sim.client.evicted_%d", e.Reason))
	w.event("client %d: evicted (reason %d) on conn %d", c.idx, e.Reason, c.link.id)
	if e.Reason == wire.EvictSessionTooLow && c.bound {
		// The client logs in once per connection and never runs two
		// sessions: no newer session of its id can exist.
		w.fail("session", fmt.Sprintf("client %d evicted as session too low on its newest session %d (replica %d)", c.idx, c.session, c.link.host.idx))
		return
	}
	if a := c.att; a != nil && a.delivered && !a.resolved && e.Reason == wire.EvictStaleClient {
		// The node was still serving this connection's request: it was
		// not silent (lite seed 904612408).
		w.fail("session", fmt.Sprintf("client %d evicted as stale with its request in flight (%v, sent at tick %d)", c.idx, a.op, a.sentTick))
		return
	}
	w.sessionGone(c, c.att)
}

// markSessionRetired40 is hit when a read is answered 40 because the
// client's session was retired under its bound connection.
const markSessionRetired40 = "sim.client.session_retired_40"

// leaseMayHaveRun says whether a 40 (Unauthenticated) answer to a's
// non-replicated request may be the node's: a connection whose session was
// retired is Connected again, and its next NR request gets status 40
// (protocol-framing.md 4.2; the SDK reports Eviction 1 as 40 too). In a
// replica set with leases a session bound to a backup is retired when that
// backup's renewals do not reach the primary for a session timeout (the
// backup paused or cut off; SESS-7), with the client doing nothing wrong
// (cluster seed 730020048). Standalone, a bound connection renews its own
// lease, so there a 40 stays a failure.
func (w *World) leaseMayHaveRun(c *client, a *attempt) bool {
	return w.cluster() && w.knobs.HeartbeatTicks != 0 && c.bound && a.header.Operation == wire.OpNonReplicated
}

// sessionGone: the node ended the client's session under the connection
// (an eviction, or a session retired). The SDK closes the socket and starts
// over under a fresh id; the request in flight (a) is settled.
func (w *World) sessionGone(c *client, a *attempt) {
	switch {
	case a != nil && a.delivered && (a.app != nil || a.store != nil):
		// The node took the write before it ended the session (a lease
		// that ran out while the write waited its turn): it may still
		// commit, handed to its partition's shard, so it stays unknown.
		w.marks.Hit("sim.write.evicted_in_flight")
		a.resolved = true
	case a != nil:
		// A read or metadata request that an eviction ended got no answer:
		// it tells the oracles nothing (it may have been applied).
		w.settle(a, wire.Unauthenticated, nil, a.app == nil && a.store == nil)
	}
	l := c.link
	w.lost(c)
	w.hangUp(l)
	w.freshIdentity(c)
}
