package node

import (
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
)

// propose hands p to the metadata replica and returns its op. Every caller
// checked Full first, so a refusal is a bug.
func (n *Node) propose(p vsr.Prepare) uint64 {
	n.stampPlacement(&p, n.mg.Replica().Op()+1)
	op, ok := n.mg.Replica().Propose(p)
	if !ok {
		assert.Failf("metadata replica refused a proposal (status %s, view %d)", n.mg.Replica().Status(), n.mg.Replica().View())
	}
	return op
}
