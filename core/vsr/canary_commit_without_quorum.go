//go:build canary_commit_without_quorum

package vsr

// canaryCommit on: the primary commits every op as soon as its own journal
// wrote it, without waiting for a quorum (nor for its own sync). sim's
// canary test requires the cluster simulator to catch it.
func canaryCommit(r *Replica, quorum uint64) uint64 {
	return max(quorum, min(r.journal.WrittenOp(), r.log.head()))
}
