package sim

import (
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
	case opSend, opPoll, opPollNext, opStore, opGetOffset:
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
			if code == wire.OK && rt.PartitionID == o.part.Partition && int(rt.Primary) < len(w.hosts) {
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
