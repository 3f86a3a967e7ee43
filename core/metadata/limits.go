package metadata

// Limits of protocol-data.md section 11, enforced at apply so that every
// replica refuses the same commands whatever the node checked before.
const (
	// streamsMax: stream ids and the stream count stay below 1,048,576 (1020).
	streamsMax = 1_048_576
	// topicsPerStreamMax: a stream holds fewer than 4096 topics (2021).
	topicsPerStreamMax = 4096
	// partitionIDsMax: partition ids of a topic stay below 1,000,000 (3013).
	partitionIDsMax = 1_000_000
	// partitionsPerRequestMax: one create or delete names at most 1000 (2015).
	partitionsPerRequestMax = 1000
	// usernameBytesMin, usernameBytesMax: a username is 3..50 bytes (43).
	usernameBytesMin = 3
	usernameBytesMax = 50
	// replicationFactorMax: a topic lives on at most 32 replicas (2018).
	replicationFactorMax = 32
	// hashBytesMax bounds a stored password or token hash (an argon2id PHC
	// string is about 100 bytes, a BLAKE3 hex digest 64).
	hashBytesMax = 1024
	// optionsBytesMax bounds one options TLV block (protocol-data.md 1.2).
	optionsBytesMax = 100_000
	// optionsEntriesMax bounds the pairs of one options block.
	optionsEntriesMax = 1024
)

// NoResource stands for "no particular stream or topic" in Authorize: only
// rights that cover every stream (or every topic of the stream) count.
const NoResource = ^uint32(0)
