//go:build canary_reply_before_fsync

package node

// canaryReplyBeforeFsync on: persisted sends are acknowledged before they
// are durable. sim's canary test requires the simulator to catch it.
const canaryReplyBeforeFsync = true
