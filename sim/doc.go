// Package sim is the deterministic simulator: the same core that serves
// clients (core/node), driven in one goroutine by one seeded PRNG, with no
// wall clock and no goroutines. cmd/iggy-sim is its command line.
//
// A run draws every knob from its seed and profile (Draw) and prints them
// first. Profiles lite, swarm and liveness run one replica (a standalone
// node, sends and polls included); profile cluster runs a replica set of
// 2 to 6 (mostly 3 to 5) whose metadata group and partition groups are
// replicated with VSR, under the same workload of metadata, sessions,
// sends, polls and offsets.
//
// Each replica is a host (host.go): its own node, sim/disk, drifting
// clock and process faults. A standalone node's process runs 1 to 3 shards
// (knob shards, shards.go): the front (metadata, connections, some
// partitions) and host shards of partitions, each a node.Node over the one
// disk (requests renamed per shard, each shard's on its own queue, ordered
// within it only, completions routed back); hand-offs
// between shards are stepped among the client frames and disk completions
// in an order the seed draws (each pair of shards in order), sometimes
// only next tick; a crash, pause or fatal of one shard is the process's.
// Each tick the world injects faults, then steps every running node in
// replica order (a clock.Tick to every shard, then what the client links,
// the replica network and the compute workers delivered, then some disk
// completions with TakeReady between them, so group commit sees several),
// delivers replies, and lets every client act. Then, after
// FaultTicks, it heals: no more faults, the network heals, every replica
// that is down restarts, clients finish what they started, client 0 reads
// every stream, topic and partition back (in a replica set, once the live
// replicas converged), and every pending request must finish within
// HealBudgetTicks (liveness).
//
// What is modelled:
//   - Disk: completion order and throughput (latency), power loss losing
//     unsynced writes and tearing the ones in flight, transient read faults
//     of partition segments, bit rot at rest of segments and metadata; the
//     fault atlas (faults.go) says which of these a replica must survive
//     and which make data legitimately unrecoverable. In a replica set,
//     metadata rots on at most f = (n-1)/2 replicas, so a quorum keeps a
//     good copy; a replica that stops on its damaged metadata is retired.
//   - Process: kill (page cache survives), power loss, restart from the
//     disk after a downtime, pause; primaries crash as often as backups.
//     In a replica set a power loss may also strike between two disk
//     completions of a tick (small metadata writes are synced at once).
//   - Clock: per-replica drift and forward/backward steps of the wall clock
//     the node stamps batches with (ticks stay monotonic).
//   - Client network (the transport seam): per-connection FIFO with
//     exponential delays (connections reorder against each other), and
//     loss as a connection reset that both ends learn later. It never
//     duplicates a frame; duplicates come from clients resending.
//   - Replica network (peernet.go): per-path exponential delays (messages
//     reorder), loss, duplication, at most peerPathMessagesMax in flight
//     per path (more are dropped), clogged paths that hold everything for
//     a while, partitions (symmetric, asymmetric, one replica isolated)
//     that heal after a drawn time. A crashed replica loses what was in
//     flight to it. Every message travels encoded as a replica frame
//     (package wire/replica) and decoded, as on a real link.
//   - Clients: SDK-like, real frames built with package wire; one request in
//     flight, timeouts, and after a lost connection a reconnect under the
//     same client id (a resume) and the same frame again: a metadata retry
//     keeps its request id, a send resent may be applied twice (partition
//     ops have no duplicate table). A standalone client replays 57/58 on
//     the same connection; in a replica set a client moves to another
//     replica (drawn from the PRNG) on 57, 58, a lost connection or a
//     timeout, logs in there under its id and resends the same frame.
//   - Churn (churn.go, cluster profile and a quarter of swarm seeds, where
//     host shards drop the partitions deleted): renames and deletes of streams and
//     topics, partitions added and removed, users created, updated and
//     deleted, tokens created and deleted, logouts and logins again; from
//     workload 3 admin moves too (admin.go: passwords, permissions,
//     consumer groups created and deleted, operator reads). With
//     several shards, recreates too (recreate.go): a topic deleted while
//     another client creates one of the same name in the same stream, so
//     the front holds the new partitions' opens behind the hosts' drops;
//     the new topic is sent to, polled from offset 0 (judged there: only
//     its own batches, from offset 0, what was acknowledged), its segments
//     deleted and read back at once (views parked while a host truncates).
//
// Workload (knob workload): 1, the light one the corpus's older seeds
// replay, or 2, the heavy one new runs draw (heavier.go): 1 to 64 clients,
// little think time, polls of every strategy, consumer group moves,
// sessions resumed after a dropped connection, at most 3 clients on one
// partition at once. A long run (long.go) alternates storms and calms for
// ten simulated minutes or 100,000 ops.
//
// Every history event goes to package oracles: porcupine per partition,
// the O(n) offset and consumer-offset oracles, metadata durability. One
// more client follows the metadata change log (follow.go): every committed
// change once and in order, across restarts and replicas. In a
// replica set, the convergence oracle checks every op each replica applied
// (two replicas at one op must have applied the same prepare checksum, and
// the newest op of a step batch, when a multiple of 4, the same state
// digest), and at the
// end requires every live replica to be normal, in one view, fully applied
// and identical; reads served during the run may be stale there, so only
// the read-back after convergence feeds the durability oracle. Node log
// lines about rare paths become coverage marks, and the consensus core's
// own marks (node.Config.Marks) are counted too. A reply the client never
// saw (its link broke or it gave up) is still read off the link for the
// oracles.
//
// A trace (-record) is gzip text: the version, seed, profile and knobs,
// then per node incarnation a "node" line (replica, set size, parameters,
// shards), "host i s" whenever the following lines are about another
// replica or shard, "boot", every input stepped into a shard (tick, open,
// close, frame, peer, done, job, and "hand from to": the oldest hand-off
// of that pair, which a replay takes from its own shards' output) and
// every TakeReady ("take"), then "end <hash>". A peer message is
// traced field by field, each prepare as its encoding plus the checksum it
// claimed. The hash covers every output of every incarnation of every
// replica (replies, peer messages, hand-offs' ends, disk requests, jobs,
// logs, boot, fatal).
// Replay drives fresh nodes with those inputs alone and checks the hash.
package sim
