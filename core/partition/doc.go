// Package partition is the log of one partition: segment files of batch
// records (protocol-data.md §10), a sparse index per segment, consumer
// offsets, a bounded tail cache that serves most polls without disk reads,
// and retention. It is a pure, deterministic state machine: no goroutines,
// clock, locks or file system. Its disk I/O leaves as storage.Request
// through the Disk the node provides and comes back through Complete; its
// results come out as events drained by TakeEvents.
//
// Disk ordering assumption. The disk executes the requests for the SAME
// file in submission order (FIFO per file); requests for different files
// may run in any order. The log relies on it to pipeline the requests of
// one file without waiting (create, write, sync, truncate, delete), and
// waits for a completion whenever the order across two files matters:
// a segment is sealed (its .log and .index synced) and the seal completed
// before the next segment's files are created, so a crash can never leave
// a newer segment behind a torn older one (STOR-45).
//
// Durability. An append is reported Committed once its write completed
// (sync=false) or once an fdatasync covering it completed (sync=true).
// Commits are reported in offset order, and polls see committed messages
// only.
package partition
