// Package metadata is the deterministic metadata state machine: streams,
// topics, partitions, consumer groups, users and personal access tokens,
// changed only by applying commands from the replicated metadata op log.
//
// Rules that hold throughout (see DESIGN notes in the package README of the
// lead for the node side):
//
//   - Pure: no goroutines, clocks, files or randomness. Time and the op number
//     arrive in Ctx; hashes arrive in the commands (the log never holds a
//     plaintext password or token).
//   - Deterministic: maps serve lookups only and are never iterated where the
//     order could reach a result, an encoding or an effect. Entities live in
//     slices sorted by id.
//   - Total: Apply never panics on a decodable command; a bad command gets
//     the committed rejection code and changes nothing.
//
// Choices this package makes where the specs are silent:
//
//   - Stream and topic ids are the lowest free id (deleted ids are reused).
//     User ids come from a counter and are never reused, so a stale session
//     or grant can never alias a later user. Root is user 0, created by the
//     first CreateUser applied to an empty user table.
//   - Partition ids append max+1. Partition.CreatedRevision is the op that
//     last gave the partition a fresh history: its create, or a purge. A
//     purge therefore is a new incarnation (CGRP-8).
//   - Consumer-group ids are a per-topic counter, never reused. Member ids
//     are the lowest free slot of the group.
//   - Join rebalances cooperatively. A moving partition becomes a pending
//     revocation only if the JoinConsumerGroup command lists it as unsettled
//     (polled but not committed, as the node saw it when it logged the join);
//     otherwise it moves at once. CompleteRevocation finishes a pending move.
//   - Deleting a stream or topic prunes every user's grants on it, because
//     the id will be reused.
//   - Command kinds equal the consensus operation bytes where the protocol
//     has them (UpdateResource is 150, DeleteExpiredTokens 69, MovePrimary 70 and
//     SetStreamKeyOptions 71, ours).
//     Apply refuses with 3 any command Decode could not have produced.
//   - ChangePassword carries the stored hash the node verified the current
//     password against; if another change committed in between, or the
//     password was wrong (ExpectedHash ""), it commits as 42.
//   - UpdateResource re-checks the update rules at apply: only
//     message_expiry and max_topic_size (canonical Uint64) may be set or
//     reset on a topic, other catalog keys get 4103 or 4104, unknown keys
//     4041, stream key projections 4105, a key both set and reset 3. A reset
//     carries the default entry the node derived; it moves to the derived
//     block.
//   - Internal ops (RemoveMember, CompleteRevocation, DeleteExpiredTokens,
//     SetStreamKeyOptions)
//     need manage_servers, so the node submits them as root (user 0).
//   - Root protection follows the target release: only root may rename root
//     or change its status, and root cannot deactivate itself (4108). Deleting
//     root gives 48 and changing root's permissions gives 49 (snapshot codes,
//     the target documents are silent). A non-root caller changing root's
//     password gets 4108 too (our choice: only root may modify root).
package metadata
