package wire

// Deferred polling (DEFP-1, DEFP-6). The target release names commands 106
// and 108 but publishes no layout; ours is in DESIGN.md "Wire layouts we
// chose" and pinned by wire/testdata/deferred-*.hex.

// DeferredPollWaitMicrosMax is the longest wait a request may ask for (DEFP-9).
const DeferredPollWaitMicrosMax = 10 * 60 * 1_000_000

// DeferredPollRequest is the DeferredPoll (106) body: a PollMessages body
// followed by [max_wait_us u64][min_count u32][max_bytes u32]. Nothing may
// follow. max_bytes 0 means no cap beyond the server's read bound.
type DeferredPollRequest struct {
	Poll       PollMessagesRequest
	WaitMicros uint64
	MinCount   uint32
	MaxBytes   uint32
}

// DecodeDeferredPollRequest decodes a 106 body; a wait above
// DeferredPollWaitMicrosMax or trailing bytes are InvalidCommand.
func DecodeDeferredPollRequest(body []byte) (DeferredPollRequest, Code) {
	r := NewReader(body)
	q := DeferredPollRequest{Poll: PollMessagesRequest{Consumer: r.Consumer(), StreamID: r.Identifier(),
		TopicID: r.Identifier(), Partition: r.OptionalPartition(), Strategy: r.PollingStrategy(),
		Count: r.U32(), AutoCommit: r.Bool()}}
	q.WaitMicros, q.MinCount, q.MaxBytes = r.U64(), r.U32(), r.U32()
	if r.Len() != 0 || q.WaitMicros > DeferredPollWaitMicrosMax {
		r.Fail(InvalidCommand)
	}
	if r.Err() != OK {
		return DeferredPollRequest{}, r.Err()
	}
	return q, OK
}

func (q DeferredPollRequest) Encode(w *Writer) {
	q.Poll.Encode(w)
	w.U64(q.WaitMicros)
	w.U32(q.MinCount)
	w.U32(q.MaxBytes)
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
