package wire

import (
	"bytes"
	"reflect"
	"testing"
)

func encTopicRef(q TopicRef, w *Writer)                  { q.Encode(w) }
func encCreateTopic(q CreateTopicRequest, w *Writer)     { q.Encode(w) }
func encUpdateTopic(q UpdateTopicRequest, w *Writer)     { q.Encode(w) }
func encTopicHeader(h TopicHeader, w *Writer)            { h.Encode(w) }
func encTopics(h []TopicHeader, w *Writer)               { EncodeTopics(w, h) }
func encTopicDetails(d TopicDetails, w *Writer)          { d.Encode(w) }
func decTopicHeader(b []byte) (TopicHeader, Code)        { return readWhole(b, (*Reader).TopicHeader) }
func decTopicDetailsFound(b []byte) (TopicDetails, Code) { return foundOnly(DecodeTopicDetails(b)) }

func TestTopicRequestVectors(t *testing.T) {
	c := dataExact(t, DecodeCreateTopicRequest, encCreateTopic, dataVector(t, 50))
	if c.StreamID != NamedID("stream") || c.PartitionsCount != 2 || c.Name != "topic" || len(c.Options) != 0 {
		t.Fatalf("50: %+v", c)
	}
	c = dataExact(t, DecodeCreateTopicRequest, encCreateTopic, dataVector(t, 51))
	want := Options{
		optStr(OptCompressionAlgorithm, "gzip"),
		opt(OptMessageExpiry, KindUint64, u64Bytes(100)),
		opt(OptMaxTopicSize, KindUint64, u64Bytes(1<<30)),
	}
	if c.StreamID != NumericID(1) || c.PartitionsCount != 4 || !optionsEqual(c.Options, want) {
		t.Fatalf("51: %+v", c)
	}
	c = dataExact(t, DecodeCreateTopicRequest, encCreateTopic, dataVector(t, 52))
	if c.PartitionsCount != 1 || len(c.Options) != 5 || c.Options[0].Key != OptSegmentSize {
		t.Fatalf("52: %+v", c)
	}
	u := dataExact(t, DecodeUpdateTopicRequest, encUpdateTopic, dataVector(t, 53))
	if u.StreamID != NamedID("stream") || u.TopicID != NumericID(1) || u.Name != "update_topic" ||
		!optionsEqual(u.Options, Options{opt(OptMessageExpiry, KindUint64, u64Bytes(100)),
			opt(OptMaxTopicSize, KindUint64, u64Bytes(100))}) {
		t.Fatalf("53: %+v", u)
	}
}

func TestCreateTopicPartitionsBound(t *testing.T) {
	for _, n := range []uint32{0, 1000} {
		w := &Writer{}
		CreateTopicRequest{StreamID: NumericID(0), PartitionsCount: n, Name: "t"}.Encode(w)
		if _, code := DecodeCreateTopicRequest(w.Buf); code != OK {
			t.Errorf("%d partitions: %v", n, code)
		}
	}
	w := &Writer{}
	CreateTopicRequest{StreamID: NumericID(0), PartitionsCount: 1001, Name: "t"}.Encode(w)
	if _, code := DecodeCreateTopicRequest(w.Buf); code != TooManyPartitions {
		t.Errorf("1001 partitions: %v", code)
	}
	// A structural fault wins over the count.
	if _, code := DecodeCreateTopicRequest(append(w.Buf, 2)); code != InvalidCommand {
		t.Errorf("malformed: %v", code)
	}
}

// covers RES-14
func TestTopicHeaderVectors(t *testing.T) {
	h := dataExact(t, decTopicHeader, encTopicHeader, dataVector(t, 54))
	if h.ID != 11 || h.CreatedAtMicros != 1700000000 || h.PartitionsCount != 3 || h.MessageExpiryMicros != 60000000 ||
		h.CompressionAlgorithm != CompressionGzip || h.MaxTopicSizeBytes != 1<<30 || h.SizeBytes != 4096 ||
		h.MessagesCount != 12 || h.Name != "orders" {
		t.Fatalf("54: %+v", h)
	}
	if !optionsEqual(h.Explicit, Options{opt("partitions_count", KindUint32, u32Bytes(3))}) ||
		!optionsEqual(h.Derived, Options{optStr(OptCompressionAlgorithm, "none")}) {
		t.Fatalf("54 blocks: %+v %+v", h.Explicit, h.Derived)
	}
	body := frameBody(dataVector(t, 55))
	if !bytes.Equal(body[:4], []byte{0, 0, 0, 0}) {
		t.Fatalf("55: result section %x", body[:4])
	}
	d := dataExact(t, decTopicDetailsFound, encTopicDetails, body[4:])
	if d.Topic.ID != 1 || d.Topic.PartitionsCount != 3 || d.Topic.Name != "orders" || len(d.Partitions) != 0 {
		t.Fatalf("55: %+v", d)
	}
	list := dataExact(t, DecodeTopics, encTopics, dataVector(t, 56))
	if len(list) != 2 || list[0].PartitionsCount != 3 || list[1].PartitionsCount != 5 {
		t.Fatalf("56: %+v", list)
	}
	if got, code := DecodeTopics([]byte{0, 0, 0, 0}); code != OK || len(got) != 0 {
		t.Fatalf("unknown stream: %v %v", code, got)
	}
	if _, code := DecodeTopics(append(dataVector(t, 56), 0)); code != InvalidCommand {
		t.Fatal("trailing byte accepted")
	}
}

func TestTopicDetailsPartitions(t *testing.T) {
	d := TopicDetails{
		Topic: TopicHeader{ID: 2, PartitionsCount: 2, Name: "t", CompressionAlgorithm: CompressionNone,
			MessageExpiryMicros: Unlimited, MaxTopicSizeBytes: Unlimited},
		Partitions: []PartitionResponse{
			{ID: 0, CreatedAtMicros: 5, SegmentsCount: 1, CurrentOffset: 9, SizeBytes: 100, MessagesCount: 10},
			{ID: 1, CreatedAtMicros: 5, SegmentsCount: 1},
		},
	}
	w := &Writer{}
	d.Encode(w)
	got, found, code := DecodeTopicDetails(w.Buf)
	if code != OK || !found || !reflect.DeepEqual(got, d) {
		t.Fatalf("round trip: %v %+v", code, got)
	}
	if _, _, code := DecodeTopicDetails(w.Buf[:len(w.Buf)-1]); code != InvalidCommand {
		t.Fatalf("partial partition record: %v", code)
	}
	if _, found, code := DecodeTopicDetails(nil); code != OK || found {
		t.Fatal("empty body must be not found")
	}
}

func FuzzTopicRequests(f *testing.F) {
	for _, n := range []int{50, 51, 52, 53} {
		f.Add(dataVectorSeed(f, n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dataRequestRoundTrip(t, DecodeTopicRef, encTopicRef, b)
		dataRequestRoundTrip(t, DecodeCreateTopicRequest, encCreateTopic, b)
		dataRequestRoundTrip(t, DecodeUpdateTopicRequest, encUpdateTopic, b)
	})
}
