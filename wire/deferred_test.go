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
	Partition: OptionalPartition{Given: true, ID: 7}, Strategy: PollingStrategy{Kind: PollOffset, Value: 5}, Count: 100},
	WaitMicros: 1_500_000, MinCount: 10, MaxBytes: 65536}

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
	f.Fuzz(func(t *testing.T, b []byte) {
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
