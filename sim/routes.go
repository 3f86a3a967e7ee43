package sim

import (
	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
)

// A partition of a replica set is served by its group's primary; another
// replica answers its requests 89 (NotPrimary), or 58 while it cannot
// tell. The client then asks the replica it is on for the topic's routes (PartitionRoutes, code 105) and reconnects to
// the primary named, as a routing SDK does, instead of trying replicas at
// random (every reconnect logs in again, a metadata op).

// partitionPlane reports an op served by a partition's primary.
func (o *op) partitionPlane() bool {
	switch o.kind {
	case opSend, opPoll, opPollNext, opStore, opGetOffset, opPollOther, opGroupPoll:
		return true
	}
	return false
}

// routesOp asks for the routes of the topic of o's partition.
func routesOp(o *op) *op {
	ref := wire.TopicRef{StreamID: wire.NamedID(o.part.Stream), TopicID: wire.NamedID(o.part.Topic)}
	return &op{kind: opRoutes, code: wire.CmdPartitionRoutes, part: o.part, topic: o.topic, body: encode(ref.Encode)}
}

// routed follows a routes answer: the client stays if the replica it is
// on is the primary named (it only lagged), else it reconnects there;
// without an answer it moves on as after any refusal.
func (w *World) routed(c *client, o *op, status wire.Code, payload []byte) {
	c.routing = nil
	c.nextAt = w.tick + 1 + w.rng.Uint64N(transientRetryTicksMax)
	primary := -1
	if status == wire.OK {
		routes, code := wire.DecodePartitionRoutes(payload)
		for _, rt := range routes {
			if code != wire.OK || int(rt.Primary) >= len(w.hosts) {
				continue
			}
			if c.routes == nil {
				c.routes = map[oracles.PartKey]int{}
			}
			c.routes[oracles.PartKey{Stream: o.part.Stream, Topic: o.part.Topic, Partition: rt.PartitionID}] = int(rt.Primary)
			if rt.PartitionID == o.part.Partition {
				primary = int(rt.Primary)
			}
		}
	}
	if primary == c.link.host.idx {
		w.marks.Hit("sim.client.routed_here")
		return
	}
	l := c.link
	w.lost(c)
	w.hangUp(l)
	if primary >= 0 {
		w.marks.Hit("sim.client.routed")
		c.target = primary
	}
}

// switchToPrimary moves a client about to send a partition op to the
// primary its routes name, when it is connected elsewhere: it hangs up
// and dials that replica (logging in again), keeping the op. A stale route
// costs one 89 and a fresh lookup.
func (w *World) switchToPrimary(c *client, o *op) bool {
	p, ok := c.routes[o.part]
	if !ok || !o.partitionPlane() || p == c.link.host.idx {
		return false
	}
	if !w.hosts[p].accepting() {
		delete(c.routes, o.part) // down or retired: the replica it is on answers, or routes anew
		return false
	}
	w.marks.Hit("sim.client.switched_to_primary")
	l := c.link
	c.link, c.bound, c.att = nil, false, nil
	w.hangUp(l)
	c.target = p
	c.nextAt = w.tick + 1
	return true
}
