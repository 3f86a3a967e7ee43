//go:build !canary_commit_without_quorum

package vsr

// canaryCommit is the simulator's canary mutant (build tag
// canary_commit_without_quorum): off, the commit point a quorum reached
// stands as it is. The call inlines away in every real build.
func canaryCommit(_ *Replica, quorum uint64) uint64 { return quorum }
