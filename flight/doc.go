// Package flight is the flight recorder: it keeps the inputs a production
// server steps into its core (every shard's node.Node) in a bounded ring,
// with a digest of every Ready the core returned, and writes them out as a
// dump that Replay steps through fresh nodes, comparing each Ready's digest
// with the server's. The window starts at boot: the boot reads are recorded
// like any disk completion, so a replay needs no data directory (DESIGN.md
// "Flight recorder").
package flight
