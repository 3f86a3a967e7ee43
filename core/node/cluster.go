package node

import (
	"github.com/iggygo/iggy/core/vsr"
	"github.com/zeebo/xxh3"
)

// PeerMessage is one replica-to-replica message of a consensus group, in
// and out of the node. Group names the group; the zero value is the
// metadata group (partition groups are not replicated yet, see DESIGN.md
// "Replication").
type PeerMessage struct {
	Group GroupID
	Msg   vsr.Message
}

// GroupID names a consensus group of the node: the zero value is the
// metadata group.
type GroupID struct {
	Stream, Topic, Partition uint32
}

// GroupState describes one group of the node for the simulator's oracles:
// where its replica is in the protocol and what it committed and applied.
type GroupState struct {
	Group   GroupID
	Status  vsr.Status
	View    uint32
	Primary bool // primary of its view, in normal status
	Op      uint64
	Commit  uint64
	// Applied is the op the node's state reflects and AppliedChecksum the
	// checksum of its prepare: the prepares chain by parent checksum, so
	// equal checksums at one op mean equal committed logs up to it.
	Applied         uint64
	AppliedChecksum uint64
}

// clustered reports a replica set of more than one.
func (c *Config) clustered() bool { return c.Replicas > 1 }

// Groups reports the node's groups in a fixed order (the metadata group
// first); nil before the node opened its replica.
func (n *Node) Groups() []GroupState {
	if n.replica == nil {
		return nil
	}
	r := n.replica
	return []GroupState{{
		Status: r.Status(), View: r.View(), Primary: r.IsPrimary() && r.Status() == vsr.StatusNormal,
		Op: r.Op(), Commit: r.Commit(), Applied: n.applied, AppliedChecksum: n.appliedChecksum,
	}}
}

// MetadataDigest is the XXH3 of the image of the applied state (metadata
// and client table): replicas that applied the same op must agree on it.
func (n *Node) MetadataDigest() uint64 {
	return xxh3.Hash(n.encodeImage(n.applied))
}

// onPeer steps a message of another replica into its group.
func (n *Node) onPeer(m PeerMessage) {
	if n.replica == nil || m.Group != (GroupID{}) {
		return // not open yet, or a group this node does not run
	}
	n.replica.Step(m.Msg)
	n.applyCommitted()
}
