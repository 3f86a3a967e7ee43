package wire

import (
	"bytes"
	"encoding/binary"
	"testing"
)

var goldenGroupedFetch = GroupedFetchRequest{Consumer: Consumer{Kind: ConsumerKindConsumer, ID: NumericID(42)},
	StreamID: NumericID(1), TopicID: NumericID(2), Count: 100, Commit: CommitOnRead, WaitMicros: 1_000_000, MinCount: 1,
	Partitions: []FetchPartition{{PartitionID: 0, Incarnation: 0x11, Strategy: PollingStrategy{Kind: PollOffset, Value: 10}},
		{PartitionID: 3, Strategy: PollingStrategy{Kind: PollNext}}}}

// covers DEFP-16, DEFP-17
func TestGroupedFetchRequestVector(t *testing.T) {
	b := ownVector(t, "grouped-fetch-request-body.hex")
	q := dataExact(t, DecodeGroupedFetchRequest, GroupedFetchRequest.Encode, b)
	w := &Writer{}
	goldenGroupedFetch.Encode(w)
	if !bytes.Equal(w.Buf, b) {
		t.Fatalf("decoded %+v", q)
	}
	if _, code := DecodeGroupedFetchRequest(append(bytes.Clone(b), 0)); code != InvalidCommand {
		t.Errorf("a trailing byte: %v", code)
	}
	if _, code := DecodeGroupedFetchRequest(b[:len(b)-1]); code != InvalidCommand {
		t.Errorf("a short body: %v", code)
	}
}

// covers DEFP-16
func TestGroupedFetchRequestBounds(t *testing.T) {
	many := func(n int, dup bool) GroupedFetchRequest {
		q := goldenGroupedFetch
		q.Partitions = nil
		for i := range n {
			id := uint32(i)
			if dup && i == n-1 {
				id = 0
			}
			q.Partitions = append(q.Partitions, FetchPartition{PartitionID: id, Strategy: PollingStrategy{Kind: PollFirst}})
		}
		return q
	}
	for _, c := range []struct {
		name string
		q    GroupedFetchRequest
		want Code
	}{
		{"1000 partitions", many(GroupedFetchPartitionsMax, false), OK},
		{"1001 partitions", many(GroupedFetchPartitionsMax+1, false), InvalidCommand},
		{"no partition", many(0, false), InvalidCommand},
		{"a partition twice", many(3, true), InvalidCommand},
	} {
		w := &Writer{}
		c.q.Encode(w)
		if _, code := DecodeGroupedFetchRequest(w.Buf); code != c.want {
			t.Errorf("%s: %v, want %v", c.name, code, c.want)
		}
	}
	for _, bad := range []func(*GroupedFetchRequest){
		func(q *GroupedFetchRequest) { q.Commit = 2 },
		func(q *GroupedFetchRequest) { q.WaitMicros = DeferredPollWaitMicrosMax + 1 },
	} {
		q := goldenGroupedFetch
		bad(&q)
		w := &Writer{}
		q.Encode(w)
		if _, code := DecodeGroupedFetchRequest(w.Buf); code != InvalidCommand {
			t.Errorf("%+v: %v", q, code)
		}
	}
}

// covers DEFP-18
func TestGroupedFetchReplyVector(t *testing.T) {
	b := ownVector(t, "grouped-fetch-reply-body.hex")
	sections, code := DecodeGroupedFetchReply(b)
	if code != OK || len(sections) != 2 {
		t.Fatalf("decoded %+v %v", sections, code)
	}
	if s := sections[0]; s.PartitionID != 0 || s.Status != OK || s.Positions.Continuation != 10 || s.Positions.Incarnation != 0x11 {
		t.Errorf("section 0: %+v", s)
	}
	if s := sections[1]; s.PartitionID != 3 || s.Status != PartitionIncarnationMismatch {
		t.Errorf("section 1: %+v", s)
	}
	if _, code := DecodeGroupedFetchReply(append(bytes.Clone(b), 0)); code != InvalidCommand {
		t.Errorf("a trailing byte: %v", code)
	}
	bad := bytes.Clone(b)
	binary.LittleEndian.PutUint32(bad[len(bad)-4:], 1) // an error section with a body
	if _, code := DecodeGroupedFetchReply(bad); code != InvalidCommand {
		t.Errorf("error section with a length: %v", code)
	}
}

func FuzzGroupedFetchDecoders(f *testing.F) {
	f.Add(ownVector(f, "grouped-fetch-request-body.hex"))
	f.Add(ownVector(f, "grouped-fetch-reply-body.hex"))
	f.Add(ownVector(f, "store-consumer-offset-checkpoint-body.hex"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if q, code := DecodeGroupedFetchRequest(b); code == OK {
			w := &Writer{}
			q.Encode(w)
			if !bytes.Equal(w.Buf, b) {
				t.Fatalf("grouped fetch re-encodes to %x", w.Buf)
			}
		}
		if sections, code := DecodeGroupedFetchReply(b); code == OK && len(sections) > GroupedFetchPartitionsMax {
			t.Fatalf("%d sections", len(sections))
		}
		if q, code := DecodeStoreConsumerOffsetRequest(b); code == OK {
			w := &Writer{}
			q.Encode(w)
			if again, code := DecodeStoreConsumerOffsetRequest(w.Buf); code != OK || again != q {
				t.Fatalf("store offset %+v re-decodes to %+v, %v", q, again, code)
			}
		}
	})
}
