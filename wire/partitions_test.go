package wire

import "testing"

func encPartitions(q PartitionsRequest, w *Writer)         { q.Encode(w) }
func encDeleteSegments(q DeleteSegmentsRequest, w *Writer) { q.Encode(w) }

// covers RES-44
func TestDeleteSegmentsVector(t *testing.T) {
	q := dataExact(t, DecodeDeleteSegmentsRequest, encDeleteSegments, dataVector(t, 57))
	want := DeleteSegmentsRequest{StreamID: NamedID("stream"), TopicID: NumericID(1), PartitionID: 2, SegmentsCount: 3}
	if q != want {
		t.Fatalf("57: %+v", q)
	}
	if _, code := DecodeDeleteSegmentsRequest(dataVector(t, 57)[:21]); code != InvalidCommand {
		t.Fatalf("truncated: %v", code)
	}
}

func TestPartitionsRequestBounds(t *testing.T) {
	for n, want := range map[uint32]Code{0: TooManyPartitions, 1: OK, 1000: OK, 1001: TooManyPartitions} {
		w := &Writer{}
		PartitionsRequest{StreamID: NumericID(0), TopicID: NamedID("t"), PartitionsCount: n}.Encode(w)
		q, code := DecodePartitionsRequest(w.Buf)
		if code != want || (code == OK && q.PartitionsCount != n) {
			t.Errorf("%d partitions: %v", n, code)
		}
	}
	if _, code := DecodePartitionsRequest([]byte{1, 4, 0, 0, 0, 0}); code != InvalidCommand {
		t.Errorf("missing topic: %v", code)
	}
}

func FuzzPartitionRequests(f *testing.F) {
	f.Add(dataVectorSeed(f, 57))
	f.Add([]byte{1, 4, 0, 0, 0, 0, 1, 4, 1, 0, 0, 0, 5, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		dataRequestRoundTrip(t, DecodePartitionsRequest, encPartitions, b)
		dataRequestRoundTrip(t, DecodeDeleteSegmentsRequest, encDeleteSegments, b)
	})
}
