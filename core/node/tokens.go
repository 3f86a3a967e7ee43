package node

import (
	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/vsr"
)

// cleanTokens runs once per token-cleaner interval: when some personal access
// token has expired, it proposes their deletion as an internal op of root, so
// every replica drops the same tokens at the same op.
func (n *Node) cleanTokens() {
	every := n.cfg.TokenCleanerIntervalTicks
	if every == 0 || n.now.Ticks%every != 0 || n.mg.Replica().Full() || !n.anyTokenExpired() {
		return
	}
	n.propose(vsr.Prepare{
		Kind: vsr.KindCommand, Timestamp: n.now.NowMicros,
		Body: metadata.Encode(&metadata.DeleteExpiredTokens{}),
	})
}

func (n *Node) anyTokenExpired() bool {
	for _, u := range n.meta.Users() {
		for _, t := range n.meta.Tokens(u.ID) {
			if t.Expired(n.now.NowMicros) {
				return true
			}
		}
	}
	return false
}
