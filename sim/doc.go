// Package sim is the deterministic simulator: the same core that serves
// clients (core/node), driven in one goroutine by one seeded PRNG, with no
// wall clock and no goroutines. cmd/iggy-sim is its command line.
//
// A run draws every knob from its seed and profile (Draw) and prints them
// first. Replicas are fixed at 1: the node does not replicate its metadata
// group across nodes yet (core/vsr has the protocol; the node does not run
// it), so a run is one node over one simulated disk (sim/disk).
//
// Each tick the world injects faults, steps the node (a clock.Tick, then
// what the network and the compute workers delivered, then some disk
// completions with TakeReady between them, so group commit sees several),
// delivers replies, and lets every client act. Then, after FaultTicks, it
// heals: no more faults, clients finish what they started, client 0 reads
// every stream, topic and partition back, and every pending request must
// finish within HealBudgetTicks (liveness).
//
// What is modelled:
//   - Disk: completion order and throughput (latency), power loss losing
//     unsynced writes and tearing the ones in flight, transient read faults
//     of partition segments, bit rot at rest of segments and metadata; the
//     fault atlas (faults.go) says which of these a single replica must
//     survive and which make data legitimately unrecoverable.
//   - Process: kill (page cache survives), power loss, restart from the
//     disk after a downtime, pause.
//   - Clock: per-replica drift and forward/backward steps of the wall clock
//     the node stamps batches with (ticks stay monotonic).
//   - Network (the transport seam): per-connection FIFO with exponential
//     delays (connections reorder against each other), and loss as a
//     connection reset that both ends learn later. It never duplicates a
//     frame; duplicates come from clients resending.
//   - Clients: SDK-like, real frames built with package wire; one request in
//     flight, timeouts, 57/58 replayed on the same connection, and after a
//     lost connection a reconnect under the same client id (a resume) and
//     the same frame again: a metadata retry keeps its request id, a send
//     resent may be applied twice (partition ops have no duplicate table).
//
// Every history event goes to package oracles: porcupine per partition,
// the O(n) offset and consumer-offset oracles, metadata durability. Node
// log lines about rare paths become coverage marks (the node has no mark
// sink); the simulator adds its own. A reply the client never saw (its
// link broke or it gave up) is still read off the link for the oracles.
//
// A trace (-record) is gzip text: the version, seed, profile and knobs,
// then per node incarnation a "node" line, "boot", every input stepped into
// it (tick, open, close, frame, done, job) and every TakeReady ("take"),
// then "end <hash>". The hash covers every output of every incarnation
// (replies, disk requests, jobs, logs, boot, fatal). Replay drives fresh
// nodes with those inputs alone and checks the hash.
package sim
