//go:build canary_skip_checksum

package partition

// canarySkipChecksum on: a record read from disk is served after a layout
// check only. sim's canary test requires the simulator to catch it.
const canarySkipChecksum = true
