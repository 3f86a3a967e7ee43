//go:build !canary_reply_before_fsync

package node

// canaryReplyBeforeFsync is the simulator's canary mutant (build tag
// canary_reply_before_fsync): a persisted send is answered once written,
// before its fdatasync. Off in every real build; the constant folds away.
const canaryReplyBeforeFsync = false
