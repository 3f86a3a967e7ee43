package wire

import "encoding/binary"

// Deferred polling and poll options (DEFP-1, DEFP-6, MSG-3..8). The target
// release names commands 106 and 108 and the PollOptions, CommitPolicy,
// continuation and checkpoint values but publishes no layout; ours is in
// DESIGN.md "Wire layouts we chose" and pinned by wire/testdata/*.hex.

// DeferredPollWaitMicrosMax is the longest wait a request may ask for (DEFP-9).
const DeferredPollWaitMicrosMax = 10 * 60 * 1_000_000

// CommitPolicy is the byte at auto_commit's place in a poll that carries
// PollOptions (MSG-7, MSG-8). The release's third policy, Auto, is the
// client's own (it stores what it counted) and travels as Manual.
type CommitPolicy uint8

const (
	CommitManual CommitPolicy = 0
	CommitOnRead CommitPolicy = 1
)

// PollOptionsBytes is the size of the block after a poll body:
// [max_wait_us u64][min_count u32][max_bytes u32][incarnation u64].
const PollOptionsBytes = 24

// DeferredPollRequest is a poll with PollOptions: the DeferredPoll (106)
// body, or a PollMessages (100) body followed by the options block. Its
// AutoCommit byte is a CommitPolicy (0 or 1). max_bytes 0 means no cap
// beyond the server's read bound; incarnation 0 is not checked, any other
// value must be the partition's (MSG-6).
type DeferredPollRequest struct {
	Poll        PollMessagesRequest
	WaitMicros  uint64
	MinCount    uint32
	MaxBytes    uint32
	Incarnation uint64
}

// DecodeDeferredPollRequest decodes a 106 body; a wait above
// DeferredPollWaitMicrosMax, a commit policy other than 0 or 1, a short
// options block or trailing bytes are InvalidCommand.
func DecodeDeferredPollRequest(body []byte) (DeferredPollRequest, Code) {
	q, given, code := DecodePollRequest(body)
	if code == OK && !given {
		code = InvalidCommand
	}
	if code != OK {
		return DeferredPollRequest{}, code
	}
	return q, OK
}

// DecodePollRequest decodes a PollMessages (100) body: the body of
// protocol-data.md 5.5 alone (given false), or followed by exactly one
// PollOptions block (given true). Other trailing bytes are InvalidCommand:
// the reference ignores them, but a poll must not silently drop options a
// client meant (a wait, a cap, an incarnation).
func DecodePollRequest(body []byte) (q DeferredPollRequest, given bool, code Code) {
	r := NewReader(body)
	q.Poll = PollMessagesRequest{Consumer: r.Consumer(), StreamID: r.Identifier(), TopicID: r.Identifier(),
		Partition: r.OptionalPartition(), Strategy: r.PollingStrategy(), Count: r.U32()}
	commit := r.U8()
	q.Poll.AutoCommit = commit != 0
	switch {
	case r.Err() != OK:
		return DeferredPollRequest{}, false, r.Err()
	case r.Len() == 0:
		return q, false, OK
	case r.Len() != PollOptionsBytes || commit > uint8(CommitOnRead):
		return DeferredPollRequest{}, false, InvalidCommand
	}
	q.WaitMicros, q.MinCount, q.MaxBytes, q.Incarnation = r.U64(), r.U32(), r.U32(), r.U64()
	if q.WaitMicros > DeferredPollWaitMicrosMax {
		return DeferredPollRequest{}, false, InvalidCommand
	}
	return q, true, OK
}

func (q DeferredPollRequest) Encode(w *Writer) {
	q.Poll.Encode(w)
	w.U64(q.WaitMicros)
	w.U32(q.MinCount)
	w.U32(q.MaxBytes)
	w.U64(q.Incarnation)
}

// NoCheckpoint is PollPositions.Checkpoint of a reply without messages:
// there is nothing to commit. No offset reaches it.
const NoCheckpoint = ^uint64(0)

// PollPositionsBytes is the size of PollPositions on the wire.
const PollPositionsBytes = 24

// PollPositions follow the 16-byte prefix in the reply to a poll that
// carried PollOptions (MSG-3..5): [incarnation u64][continuation u64]
// [checkpoint u64]. The continuation is the offset the next poll of the
// partition starts at; the checkpoint the offset to commit for what the
// reply holds (its last message), NoCheckpoint when it holds none. Both
// belong to the partition's incarnation.
type PollPositions struct {
	Incarnation  uint64
	Continuation uint64
	Checkpoint   uint64
}

// Bytes returns the 24 bytes, to follow the prefix in a reply.
func (p PollPositions) Bytes() []byte {
	b := make([]byte, PollPositionsBytes)
	binary.LittleEndian.PutUint64(b[0:], p.Incarnation)
	binary.LittleEndian.PutUint64(b[8:], p.Continuation)
	binary.LittleEndian.PutUint64(b[16:], p.Checkpoint)
	return b
}

// DecodePolledWithPositions reads the reply to a poll with PollOptions
// (client side): prefix, positions, then records as DecodePolledMessages
// checks them.
func DecodePolledWithPositions(body []byte) (PolledMessages, PollPositions, Code) {
	r := NewReader(body)
	prefix := PollPrefix{PartitionID: r.U32(), CurrentOffset: r.U64(), MessagesCount: r.U32()}
	pos := PollPositions{Incarnation: r.U64(), Continuation: r.U64(), Checkpoint: r.U64()}
	if r.Err() != OK {
		return PolledMessages{}, PollPositions{}, r.Err()
	}
	records, code := decodePollRecords(body[r.Pos():])
	if code != OK {
		return PolledMessages{}, PollPositions{}, code
	}
	return PolledMessages{Prefix: prefix, Records: records}, pos, OK
}

// CancelDeferredPollRequest is the CancelDeferredPoll (108) body:
// [request u64], the request number (header field) of the parked poll of the
// same connection. The reply is status 0 with an empty body, also when that
// poll was answered already.
type CancelDeferredPollRequest struct {
	Request uint64
}

// DecodeCancelDeferredPollRequest decodes a 108 body of exactly 8 bytes.
func DecodeCancelDeferredPollRequest(body []byte) (CancelDeferredPollRequest, Code) {
	r := NewReader(body)
	q := CancelDeferredPollRequest{Request: r.U64()}
	if r.Len() != 0 {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return CancelDeferredPollRequest{}, r.Err()
	}
	return q, OK
}

func (q CancelDeferredPollRequest) Encode(w *Writer) { w.U64(q.Request) }
