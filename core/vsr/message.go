package vsr

// Command is the kind of a replica message; the values are the frame
// discriminants of protocol-framing.md 1.3, so a codec maps them 1:1.
type Command uint8

const (
	CmdPing                 Command = 1  // metadata primary -> backup: an evidence probe (Op: its number, Commit); the caller handles it, Step ignores it
	CmdPong                 Command = 2  // backup -> metadata primary: the probe answered (Op: its number); the caller handles it
	CmdRequest              Command = 5  // backup -> primary: a client request to propose (Prepares: one, unsealed); the caller handles it, Step ignores it
	CmdPrepare              Command = 6  // primary -> backup: one new op
	CmdPrepareOk            Command = 7  // backup -> primary: cumulative acknowledgement
	CmdCommit               Command = 9  // primary -> backups: commit point, the heartbeat
	CmdStartViewChange      Command = 10 // any -> all: vote to leave the view
	CmdDoViewChange         Command = 11 // any -> new primary: log claim for the new view
	CmdStartView            Command = 12 // new primary -> backups: the new view's log
	CmdRequestStartView     Command = 17 // recovering or lagging replica -> primary
	CmdRequestPrepares      Command = 18 // repairing replica -> source: a range of ops
	CmdRepairPrepare        Command = 19 // source -> repairing replica: prepares of the range
	CmdRangeEvicted         Command = 21 // source -> repairing replica: range no longer held
	CmdRequestStateTransfer Command = 22 // repairing replica -> source: which checkpoint?
	CmdStateTransferTarget  Command = 23 // source -> lagging replica: this checkpoint
	CmdRequestStateChunk    Command = 24 // lagging replica -> source: image bytes at offset
	CmdStateChunk           Command = 25 // source -> lagging replica: image bytes
	// A partition group's checkpoint image names the log's length; the
	// messages themselves are fetched by the caller (core/node), past the
	// replica-to-replica values of protocol-framing.md 1.3. Step ignores them.
	CmdRequestLogData Command = 30 // installing replica -> peer: messages from Offset up to Op
	CmdLogData        Command = 31 // peer -> installing replica: whole batch records from Offset
)

var commandNames = map[Command]string{
	CmdPing: "ping", CmdPong: "pong", CmdRequest: "request", CmdPrepare: "prepare", CmdPrepareOk: "prepare_ok", CmdCommit: "commit",
	CmdStartViewChange: "start_view_change", CmdDoViewChange: "do_view_change",
	CmdStartView: "start_view", CmdRequestStartView: "request_start_view",
	CmdRequestPrepares: "request_prepares", CmdRepairPrepare: "repair_prepare",
	CmdRangeEvicted: "range_evicted", CmdRequestStateTransfer: "request_state_transfer",
	CmdStateTransferTarget: "state_transfer_target", CmdRequestStateChunk: "request_state_chunk",
	CmdStateChunk: "state_chunk", CmdRequestLogData: "request_log_data", CmdLogData: "log_data",
}

func (c Command) String() string {
	if s, ok := commandNames[c]; ok {
		return s
	}
	return "unknown"
}

// Message is one replica-to-replica message, already decoded. One flat
// struct serves every command; the fields a command uses:
//
//	command                  View  Op              Checksum          Commit  other
//	prepare                  yes   op of Prepares  of that prepare   yes     Parent, Prepares: the one prepare
//	prepare_ok               yes   op written      of that op        yes     Durable: op synced
//	commit                   yes   head            of head           yes
//	start_view_change        yes                                             Last: 1 after a hand-off (HandOff)
//	do_view_change           yes   head            of head           yes     LogView, Untrusted, Parent, Prepares (suffix ending at head)
//	start_view               yes   head            of head           yes     Parent, Prepares (suffix ending at head)
//	request_start_view       yes                                     yes
//	request_prepares         yes   first wanted                              Last: last wanted
//	repair_prepare           yes   first in reply                            Parent, Prepares (consecutive)
//	range_evicted            yes   first wanted
//	request_state_transfer   yes
//	state_transfer_target    yes                                             Checkpoint: the source's newest
//	request_state_chunk      yes                                             Checkpoint, Offset
//	state_chunk              yes                                             Checkpoint, Offset, Data
//
// Parent is the checksum of the prepare before the first of Prepares (0 when
// that is op 1), which is how a receiver checks that they continue its log.
// Prepares and Data alias the sender's memory and are never changed.
type Message struct {
	Command    Command
	From, To   uint8
	View       uint32
	LogView    uint32
	Op         uint64
	Checksum   uint64
	Commit     uint64
	Durable    uint64
	Last       uint64
	Parent     uint64
	Untrusted  bool
	Prepares   []Prepare
	Checkpoint Checkpoint
	Offset     uint64
	Data       []byte
}

// Checkpoint names a durable checkpoint of the group: the application state
// after Op, an image of Size bytes with XXH3 ImageChecksum, and the checksum
// of the prepare of Op, which the next op's parent link must match.
type Checkpoint struct {
	Op            uint64
	Checksum      uint64
	Size          uint64
	ImageChecksum uint64
}

// Images is the caller's side of state transfer: the node owns the image
// format, the replica only moves the bytes.
type Images interface {
	// Latest is the newest durable checkpoint this replica can serve.
	Latest() (Checkpoint, bool)
	// Chunk returns up to sizeMax bytes of the image of cp from offset, or
	// false when cp is no longer held (a newer checkpoint replaced it).
	Chunk(cp Checkpoint, offset uint64, sizeMax int) ([]byte, bool)
}

// ViewState is what the replica needs durable before it acts in a view: the
// caller writes it into the superblock (next to its checkpoint fields) and
// reports the write with SuperblockWritten. LogHeadOp and LogHeadChecksum
// name the head of the log of LogView as adopted.
type ViewState struct {
	View            uint32
	LogView         uint32
	LogHeadOp       uint64
	LogHeadChecksum uint64
}

// Install is a state transfer that arrived whole: the caller verifies and
// installs the image as its application state, makes it its durable
// checkpoint, and then calls Installed.
type Install struct {
	Checkpoint Checkpoint
	Image      []byte
	Source     uint8 // the replica that served it
}

// Ready is what the replica asks of its caller after some steps.
type Ready struct {
	Messages   []Message
	Superblock *ViewState // write it, then SuperblockWritten; one at a time
	Install    *Install
}
