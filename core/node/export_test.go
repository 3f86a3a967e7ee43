package node

// EvidenceUntil exposes the tick up to which the node admits partition
// requests, for the quorum evidence tests (package node_test).
func (n *Node) EvidenceUntil() uint64 { return n.ev.until }
