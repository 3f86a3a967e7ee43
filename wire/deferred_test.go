package wire

import (
	"bytes"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// ownVector reads one of our own golden vectors (wire/testdata), for layouts
// the spec leaves to us (DESIGN.md "Wire layouts we chose").
func ownVector(tb testing.TB, name string) []byte {
	tb.Helper()
	text, err := os.ReadFile("testdata/" + name)
	if err != nil {
		tb.Fatalf("vector %s: %v", name, err)
	}
	b, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
	if err != nil {
		tb.Fatalf("vector %s: %v", name, err)
	}
	return b
}

var goldenDeferredPoll = DeferredPollRequest{Poll: PollMessagesRequest{
	Consumer: Consumer{Kind: ConsumerKindConsumer, ID: NumericID(42)}, StreamID: NumericID(1), TopicID: NumericID(2),
	Partition: OptionalPartition{Given: true, ID: 7}, Strategy: PollingStrategy{Kind: PollOffset, Value: 5}, Count: 100,
	AutoCommit: true}, WaitMicros: 1_500_000, MinCount: 10, MaxBytes: 65536, Incarnation: 0x11}

// covers DEFP-1
func TestDeferredPollVector(t *testing.T) {
	b := ownVector(t, "deferred-poll-request-body.hex")
	q := dataExact(t, DecodeDeferredPollRequest, DeferredPollRequest.Encode, b)
	if q != goldenDeferredPoll {
		t.Fatalf("decoded %+v", q)
	}
	if _, code := DecodeDeferredPollRequest(append(bytes.Clone(b), 0)); code != InvalidCommand {
		t.Errorf("a trailing byte: %v", code)
	}
	if _, code := DecodeDeferredPollRequest(b[:len(b)-1]); code != InvalidCommand {
		t.Errorf("a short body: %v", code)
	}
}

// covers DEFP-9
func TestDeferredPollWaitBound(t *testing.T) {
	for _, c := range []struct {
		wait uint64
		want Code
	}{{DeferredPollWaitMicrosMax, OK}, {DeferredPollWaitMicrosMax + 1, InvalidCommand}, {0, OK}} {
		q := goldenDeferredPoll
		q.WaitMicros = c.wait
		w := &Writer{}
		q.Encode(w)
		if _, code := DecodeDeferredPollRequest(w.Buf); code != c.want {
			t.Errorf("wait %d µs: %v, want %v", c.wait, code, c.want)
		}
	}
}

// covers DEFP-6
func TestCancelDeferredPollVector(t *testing.T) {
	b := ownVector(t, "cancel-deferred-poll-request-body.hex")
	q := dataExact(t, DecodeCancelDeferredPollRequest, CancelDeferredPollRequest.Encode, b)
	if q.Request != 0x0102030405060708 {
		t.Fatalf("decoded %+v", q)
	}
	if _, code := DecodeCancelDeferredPollRequest(b[:7]); code != InvalidCommand {
		t.Errorf("7 bytes: %v", code)
	}
}

func FuzzDeferredPollDecoders(f *testing.F) {
	f.Add(ownVector(f, "deferred-poll-request-body.hex"))
	f.Add(ownVector(f, "cancel-deferred-poll-request-body.hex"))
	f.Add(ownVector(f, "poll-reply-positions-empty.hex"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if q, given, code := DecodePollRequest(b); code == OK {
			w := &Writer{}
			q.Encode(w)
			if !given {
				w.Buf = w.Buf[:len(w.Buf)-PollOptionsBytes]
			}
			if again, _, code := DecodePollRequest(w.Buf); code != OK || again != q {
				t.Fatalf("re-encoded poll %+v decodes to %+v, %v", q, again, code)
			}
		}
		if polled, pos, code := DecodePolledWithPositions(b); code == OK {
			head := append(polled.Prefix.Bytes(), pos.Bytes()...)
			if !bytes.Equal(head, b[:len(head)]) {
				t.Fatalf("prefix and positions re-encode to %x", head)
			}
		}
		if q, code := DecodeDeferredPollRequest(b); code == OK {
			w := &Writer{}
			q.Encode(w)
			if _, again := DecodeDeferredPollRequest(w.Buf); again != OK {
				t.Fatalf("re-encoded deferred poll refused: %v", again)
			}
		}
		if q, code := DecodeCancelDeferredPollRequest(b); code == OK {
			w := &Writer{}
			q.Encode(w)
			if !bytes.Equal(w.Buf, b) {
				t.Fatalf("cancel re-encodes to %x", w.Buf)
			}
		}
	})
}

// The same bytes are a PollMessages (100) body with PollOptions; without
// the block the body is the spec's, and anything else after it is refused
// instead of ignored.
// covers DEFP-1, MSG-7, MSG-8
func TestPollOptionsBlock(t *testing.T) {
	b := ownVector(t, "deferred-poll-request-body.hex")
	q, given, code := DecodePollRequest(b)
	if code != OK || !given || q != goldenDeferredPoll {
		t.Fatalf("100 with options: %+v %v %v", q, given, code)
	}
	plain := b[:len(b)-PollOptionsBytes]
	if q, given, code := DecodePollRequest(plain); code != OK || given || q.Poll != goldenDeferredPoll.Poll {
		t.Fatalf("100 without options: %+v %v %v", q, given, code)
	}
	if _, code := DecodeDeferredPollRequest(plain); code != InvalidCommand {
		t.Errorf("106 without options: %v", code)
	}
	if _, code := DecodePollMessagesRequest(b); code != InvalidCommand {
		t.Errorf("strict 100 decoder took options: %v", code)
	}
	for _, extra := range []int{1, 8, PollOptionsBytes - 1, PollOptionsBytes + 1} {
		body := append(bytes.Clone(plain), make([]byte, extra)...)
		if _, _, code := DecodePollRequest(body); code != InvalidCommand {
			t.Errorf("%d bytes after a poll body: %v, want 3", extra, code)
		}
	}
	// The commit byte is a CommitPolicy once options are given: 0 or 1.
	policy := len(plain) - 1
	for v, want := range map[byte]Code{0: OK, 1: OK, 2: InvalidCommand, 0xff: InvalidCommand} {
		body := bytes.Clone(b)
		body[policy] = v
		if q, _, code := DecodePollRequest(body); code != want || code == OK && q.Poll.AutoCommit != (v == 1) {
			t.Errorf("commit policy %d: %v, want %v", v, code, want)
		}
	}
}

// covers MSG-3, MSG-4, MSG-5
func TestPollPositionsVector(t *testing.T) {
	b := ownVector(t, "poll-reply-positions-empty.hex")
	polled, pos, code := DecodePolledWithPositions(b)
	if code != OK || polled.Prefix != (PollPrefix{PartitionID: 7, CurrentOffset: 9}) || len(polled.Records) != 0 {
		t.Fatalf("decoded %+v %v", polled, code)
	}
	if pos != (PollPositions{Incarnation: 0x11, Continuation: 10, Checkpoint: NoCheckpoint}) {
		t.Fatalf("positions %+v", pos)
	}
	if !bytes.Equal(append(polled.Prefix.Bytes(), pos.Bytes()...), b) {
		t.Fatalf("re-encode differs")
	}
	if _, _, code := DecodePolledWithPositions(b[:len(b)-1]); code != InvalidCommand {
		t.Errorf("short positions: %v", code)
	}
}

// covers MSG-6
func TestStoreCheckpointVector(t *testing.T) {
	b := ownVector(t, "store-consumer-offset-checkpoint-body.hex")
	q := dataExact(t, DecodeStoreConsumerOffsetRequest, StoreConsumerOffsetRequest.Encode, b)
	if q.Offset != 9 || q.Incarnation != 0x11 || q.Partition != (OptionalPartition{Given: true, ID: 7}) {
		t.Fatalf("decoded %+v", q)
	}
	plain := b[:len(b)-8]
	if q, code := DecodeStoreConsumerOffsetRequest(plain); code != OK || q.Incarnation != 0 {
		t.Fatalf("the spec's body: %+v %v", q, code)
	}
	for _, extra := range []int{1, 7, 9} {
		if _, code := DecodeStoreConsumerOffsetRequest(append(bytes.Clone(plain), make([]byte, extra)...)); code != InvalidCommand {
			t.Errorf("%d trailing bytes: %v", extra, code)
		}
	}
}
