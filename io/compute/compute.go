// Package compute holds the boundary types for work the core hands out and
// takes back as an input: CPU-heavy or host-specific jobs that must not run
// inside the single-threaded core (core-shape.md, "computed result").
package compute

// Kind is what a job asks for.
type Kind uint8

const (
	// KindSnapshotArchive builds the diagnostic ZIP of GetSnapshotFile (11)
	// from host facts the core cannot see (processes, logs, configuration).
	KindSnapshotArchive Kind = iota + 1
	// KindHashPassword hashes Password (argon2id in production); Data is the hash.
	KindHashPassword
	// KindVerifyPassword checks Password against Hash; Code 0 means it
	// matches. An empty Hash is a login of a user that does not exist: the
	// job costs what a check of a real user's hash costs and never matches.
	KindVerifyPassword
	// KindExternalAuth asks the external_auth service about a password
	// login of a user the node does not know (Username, Password,
	// Transport, ClientAddress). Code 0: allowed, Data is the Iggy username
	// the service named; InvalidCredentials: denied or an invalid answer;
	// TransientNotAccepted: a timeout, a 5xx or 429, or no answer at all.
	// It waits on the network, not the CPU: the adapter runs it beside the
	// workers, never in their queue.
	KindExternalAuth
	// KindFlightDump writes a flight recorder dump (DumpFlightRecorder,
	// 19); Data is the dump's file name.
	KindFlightDump
)

// Request is one job; the core allocates ids and never reuses one in a run.
type Request struct {
	ID   uint64
	Kind Kind
	// KindSnapshotArchive: the compression and snapshot type codes of
	// protocol-framing.md 7.6, already validated.
	Compression uint8
	Types       []uint8
	// KindHashPassword, KindVerifyPassword. The plaintext never enters the
	// log; a trace recorder must drop it.
	Password string
	Hash     string
	// KindExternalAuth: who asks, and over which transport ("tcp", "quic",
	// "http", "ws").
	Username, Transport, ClientAddress string
}

// Result answers the request with the same ID.
type Result struct {
	ID   uint64
	Code uint32 // 0 on success, else the Iggy error code to answer with
	Data []byte
}
