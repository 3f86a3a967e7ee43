//go:build !canary_skip_checksum

package partition

// canarySkipChecksum is the simulator's canary mutant (build tag
// canary_skip_checksum): polls skip re-hashing records read from disk.
// Off in every real build; the constant folds away.
const canarySkipChecksum = false
