// Package storage holds the boundary types between the core and a disk: the
// core asks with a Request and learns the outcome from a Completion. A real
// disk (adapters/disk) and the simulator's faulty disk (sim) both execute them.
package storage

// ReqID names one request; the core allocates ids and never reuses one in a run.
type ReqID uint64

// Op is what a request asks the disk to do.
type Op uint8

const (
	// OpCreate creates File (and missing parent directories) if absent, then
	// fsyncs the parent directories, so the name itself survives a crash.
	OpCreate Op = iota + 1
	// OpWrite writes the concatenation of Data at Offset of an existing File.
	// The bytes may be lost by a crash until an OpSync of the file completes.
	OpWrite
	// OpRead reads up to Len bytes at Offset; Completion.Data is shorter at EOF.
	OpRead
	// OpSync makes every completed write of File durable (fdatasync).
	OpSync
	// OpTruncate sets the size of File to Offset, then syncs it.
	OpTruncate
	// OpDelete removes File (a missing file is not an error) and syncs its directory.
	OpDelete
	// OpDeleteTree removes the directory File and everything below it.
	OpDeleteTree
	// OpRename atomically renames File to Target and syncs the directory.
	OpRename
	// OpList lists the entries of the directory File (sorted by name).
	OpList
)

var opNames = [...]string{"", "create", "write", "read", "sync", "truncate", "delete", "delete-tree", "rename", "list"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "unknown"
}

// Request is one disk operation. Paths are relative to the data root and use '/'.
type Request struct {
	ID     ReqID
	Op     Op
	File   string
	Target string   // OpRename
	Offset uint64   // OpWrite, OpRead, OpTruncate
	Len    uint64   // OpRead
	Data   [][]byte // OpWrite: written in order, without being copied into one buffer
	// ReplyOnly (OpRead) is the reader's promise that it keeps no reference
	// to Completion.Data except in the replies it emits; dropping the data
	// is allowed. An adapter may then lend Into and reuse it once those
	// replies are written ("Buffers and their lifetimes" in DESIGN.md).
	ReplyOnly bool
	// Into (OpRead) is a buffer of at least Len bytes lent by the adapter
	// that executes the request; Completion.Data is then a prefix of it.
	// The core never sets it: a disk allocates when it is nil.
	Into []byte
}

// Size is the number of bytes an OpWrite carries.
func (r *Request) Size() uint64 {
	var n uint64
	for _, b := range r.Data {
		n += uint64(len(b))
	}
	return n
}

// Entry is one name in a directory listing.
type Entry struct {
	Name  string
	Size  uint64
	IsDir bool
}

// Result classifies a completion so the core can act without inspecting OS errors.
type Result uint8

const (
	ResultOK Result = iota
	ResultNotFound
	ResultIOError
)

// Completion reports the outcome of the request with the same ID.
type Completion struct {
	ID      ReqID
	Result  Result
	Err     string  // detail for logs when Result is not ResultOK
	Data    []byte  // OpRead
	Entries []Entry // OpList
}
