package node

import "github.com/iggygo/iggy/wire"

// claim is what a client's metadata op in flight holds of a capped
// capacity: personal access tokens of its user, partitions of all topics.
// A create counts the committed resources and the claims of the creates
// still in flight: one that fits the committed resources alone but not the
// claims too gets 58, so racing creates never pass the cap together
// (AUTH-13, RES-41). It is local: only the replica that proposes checks.
type claim struct {
	op         uint64 // the op its proposal gets; 0: none
	tokens     uint32
	partitions uint32
}

// claimNext records what the op c is about to propose holds. Nothing is
// proposed between a command's build and its proposal, and a proposal to a
// replica that is not full succeeds, so the op is the log's next one. A
// full replica proposes nothing (58, or a forward the primary checks).
func (n *Node) claimNext(c *conn, cl claim) {
	e, ok := n.clients[c.client]
	if !ok || n.mg.Replica().Full() {
		return
	}
	cl.op = n.mg.Replica().Op() + 1
	e.claim = cl
}

// claimed sums the claims of the ops in flight (proposed here, awaited,
// not applied): the tokens of user and the partitions. The waiting ops are
// bounded by the pipeline, and a sum does not depend on map order.
func (n *Node) claimed(user uint32) (tokens, partitions uint64) {
	for op, w := range n.waiting {
		e, ok := n.clients[w.header.Client]
		if !ok || e.claim.op != op {
			continue
		}
		if e.userID == user {
			tokens += uint64(e.claim.tokens)
		}
		partitions += uint64(e.claim.partitions)
	}
	return tokens, partitions
}

// capacityCode answers a create of want more under limit (0: no cap), with
// committed resources and claimed ones in flight: the capacity error full
// when the committed alone leave no room, 58 when only the creates in
// flight do.
func capacityCode(limit, committed, claimed, want uint64, full wire.Code) wire.Code {
	switch {
	case limit == 0:
		return wire.OK
	case committed+want > limit:
		return full
	case committed+claimed+want > limit:
		return wire.TransientNotAccepted
	}
	return wire.OK
}

// topicRoom applies metadata.partitions_max to a topic create of count
// partitions in stream. A missing stream is not refused here: the create
// commits and gets the stream's not-found error, at the cap as below it
// (RES-42).
func (n *Node) topicRoom(c *conn, stream wire.Identifier, count uint32) wire.Code {
	if _, ok := n.meta.Stream(stream); !ok {
		return wire.OK
	}
	return n.partitionsClaim(c, count)
}

// partitionsRoom is topicRoom for a CreatePartitions in an existing topic.
func (n *Node) partitionsRoom(c *conn, stream, topic wire.Identifier, count uint32) wire.Code {
	if _, _, code := n.meta.Topic(stream, topic); code != wire.OK {
		return wire.OK
	}
	return n.partitionsClaim(c, count)
}

func (n *Node) partitionsClaim(c *conn, count uint32) wire.Code {
	_, claimed := n.claimed(c.userID)
	code := capacityCode(uint64(n.cfg.PartitionsMax), uint64(n.meta.PartitionsTotal()), claimed, uint64(count), wire.TooManyPartitions)
	if code == wire.OK && n.cfg.PartitionsMax > 0 {
		n.claimNext(c, claim{partitions: count})
	}
	return code
}
