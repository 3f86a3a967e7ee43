package wire

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
)

func encSend(q SendMessagesRequest, w *Writer)         { q.Encode(w) }
func encSendMetadata(q SendMessagesRequest, w *Writer) { q.EncodeMetadata(w) }
func encPoll(q PollMessagesRequest, w *Writer)         { q.Encode(w) }
func encConfirmations(c []SendConfirmation, w *Writer) { EncodeSendConfirmations(w, c) }
func encPolled(p PolledMessages, w *Writer) {
	w.Bytes(p.Prefix.Bytes())
	for _, rec := range p.Records {
		w.Bytes(rec)
	}
}

// The golden produce body: the prefix decodes, and the batch is vector 59
// untouched and aliasing the body.
func TestSendMessagesVectors(t *testing.T) {
	body := dataVector(t, 58)
	q := dataExact(t, DecodeSendMessagesRequest, encSend, body)
	if q.StreamID != NumericID(1) || q.TopicID != NumericID(2) || q.MessagesCount != 2 ||
		q.Partitioning.Kind != PartitioningBalanced || q.Partitioning.Key != nil {
		t.Fatalf("58: %+v", q)
	}
	if !bytes.Equal(q.Batch, dataVector(t, 59)) {
		t.Fatal("58: batch differs from vector 59")
	}
	if &q.Batch[0] != &body[22] {
		t.Fatal("58: batch must alias the body, not a copy")
	}
	q2 := dataExact(t, DecodeSendMessagesRequest, encSend, frameBody(dataVector(t, 60)))
	if !reflect.DeepEqual(q2, q) {
		t.Fatalf("60: %+v", q2)
	}
	prefix := dataVector(t, 61)
	q = dataExact(t, DecodeSendMessagesRequest, encSendMetadata, prefix)
	if q.StreamID != NamedID("test_stream_id") || q.TopicID != NamedID("test_topic_id") ||
		!reflect.DeepEqual(q.Partitioning, Partitioning{Kind: PartitioningPartitionID, PartitionID: 1}) ||
		q.MessagesCount != 1 || len(q.Batch) != 0 {
		t.Fatalf("61: %+v", q)
	}
}

func sendPrefix(metadataLength uint32, meta []byte) []byte {
	return concat(binary.LittleEndian.AppendUint32(nil, metadataLength), meta)
}

// covers MSG-16
func TestSendMessagesMetadataErrors(t *testing.T) {
	ids := []byte{1, 4, 1, 0, 0, 0, 1, 4, 2, 0, 0, 0}
	count := []byte{1, 0, 0, 0}
	meta := func(p ...byte) []byte { return concat(ids, p, count) }
	bad := map[string][]byte{
		"empty":                nil,
		"short length":         {18, 0, 0},
		"length past body":     sendPrefix(100, meta(1, 0)),
		"length too short":     sendPrefix(17, meta(1, 0)),
		"length too long":      sendPrefix(19, concat(meta(1, 0), []byte{0})),
		"balanced with len":    sendPrefix(19, meta(1, 1, 9)),
		"partition id len 2":   sendPrefix(20, meta(2, 2, 1, 0)),
		"empty messages key":   sendPrefix(18, meta(3, 0)),
		"partitioning kind 4":  sendPrefix(18, meta(4, 0)),
		"partitioning kind 0":  sendPrefix(18, meta(0, 0)),
		"zero messages":        sendPrefix(18, concat(ids, []byte{1, 0}, []byte{0, 0, 0, 0})),
		"bad stream id":        sendPrefix(18, concat([]byte{3, 4, 1, 0, 0, 0}, ids[6:], []byte{1, 0}, count)),
		"truncated identifier": sendPrefix(3, []byte{2, 5, 'a'}),
	}
	for name, b := range bad {
		if _, code := DecodeSendMessagesRequest(b); code != InvalidCommand {
			t.Errorf("%s: %v", name, code)
		}
	}
	key := bytes.Repeat([]byte{'k'}, MessagesKeyBytesMax)
	q := SendMessagesRequest{StreamID: NumericID(0), TopicID: NamedID("t"), MessagesCount: 3,
		Partitioning: Partitioning{Kind: PartitioningMessagesKey, Key: key}, Batch: []byte("batch")}
	w := &Writer{}
	q.Encode(w)
	got, code := DecodeSendMessagesRequest(w.Buf)
	if code != OK || !reflect.DeepEqual(got, q) {
		t.Fatalf("messages key round trip: %v %+v", code, got)
	}
}

// covers MSG-1, MSG-10, MSG-11
func TestPollMessagesVectors(t *testing.T) {
	q := dataExact(t, DecodePollMessagesRequest, encPoll, dataVector(t, 65))
	want := PollMessagesRequest{Consumer: Consumer{Kind: ConsumerKindConsumer, ID: NumericID(42)},
		StreamID: NamedID("test_stream_id"), TopicID: NamedID("test_topic_id"),
		Partition: OptionalPartition{Given: true, ID: 123}, Strategy: PollingStrategy{Kind: PollFirst},
		Count: 100, AutoCommit: true}
	if q != want {
		t.Fatalf("65: %+v", q)
	}
	q = dataExact(t, DecodePollMessagesRequest, encPoll, frameBody(dataVector(t, 66)))
	want.StreamID, want.TopicID, want.Partition.ID = NumericID(1), NumericID(2), 7
	if q != want {
		t.Fatalf("66: %+v", q)
	}
	for kind := PollOffset; kind <= PollNext; kind++ {
		w := &Writer{}
		p := want
		p.Strategy = PollingStrategy{Kind: kind, Value: 77}
		p.Partition = OptionalPartition{}
		p.Consumer.Kind = ConsumerKindGroup
		p.Encode(w)
		if got, code := DecodePollMessagesRequest(w.Buf); code != OK || got != p {
			t.Errorf("strategy %d: %v %+v", kind, code, got)
		}
	}
}

func TestPollMessagesErrors(t *testing.T) {
	good := frameBody(dataVector(t, 66))
	strategyAt := 7 + 6 + 6 + 5 // consumer, stream, topic, optional partition
	for _, kind := range []byte{0, 6, 255} {
		b := bytes.Clone(good)
		b[strategyAt] = kind
		if _, code := DecodePollMessagesRequest(b); code != InvalidCommand {
			t.Errorf("strategy kind %d: %v", kind, code)
		}
	}
	for _, kind := range []byte{0, 4} {
		b := bytes.Clone(good)
		b[0] = kind
		if _, code := DecodePollMessagesRequest(b); code != InvalidCommand {
			t.Errorf("consumer kind %d: %v", kind, code)
		}
	}
	// A flag other than 1 means "no partition", whatever the id bytes say.
	b := bytes.Clone(good)
	b[strategyAt-5] = 2
	if q, code := DecodePollMessagesRequest(b); code != OK || q.Partition != (OptionalPartition{}) {
		t.Errorf("flag 2: %v %+v", code, q.Partition)
	}
	if _, code := DecodePollMessagesRequest(good[:len(good)-1]); code != InvalidCommand {
		t.Error("truncated poll accepted")
	}
}

func TestSendConfirmationVectors(t *testing.T) {
	c := dataExact(t, DecodeSendConfirmations, encConfirmations, dataVector(t, 62))
	if len(c) != 1 || c[0] != (SendConfirmation{StreamID: 1, TopicID: 2, PartitionID: 3, BaseOffset: 4}) {
		t.Fatalf("62: %+v", c)
	}
	c = dataExact(t, DecodeSendConfirmations, encConfirmations, frameBody(dataVector(t, 63)))
	if len(c) != 1 || c[0].BaseOffset != 4 {
		t.Fatalf("63: %+v", c)
	}
	c = dataExact(t, DecodeSendConfirmations, encConfirmations, dataVector(t, 64))
	if len(c) != 0 {
		t.Fatalf("64: %+v", c)
	}
	for name, b := range map[string][]byte{
		"empty body":    nil,
		"trailing byte": append(dataVector(t, 62), 0),
		"short entry":   dataVector(t, 62)[:23],
		"count 2 of 1":  concat([]byte{2, 0, 0, 0}, dataVector(t, 62)[4:]),
	} {
		if _, code := DecodeSendConfirmations(b); code != InvalidCommand {
			t.Errorf("%s: %v", name, code)
		}
	}
}

func TestPolledMessagesVectors(t *testing.T) {
	p := dataExact(t, DecodePolledMessages, encPolled, dataVector(t, 69))
	if p.Prefix != (PollPrefix{PartitionID: PollResyncPartition}) || len(p.Records) != 0 {
		t.Fatalf("69: %+v", p)
	}
	body := dataVector(t, 67)
	p = dataExact(t, DecodePolledMessages, encPolled, body)
	if p.Prefix != (PollPrefix{PartitionID: 3, CurrentOffset: 101, MessagesCount: 2}) || len(p.Records) != 1 ||
		len(p.Records[0]) != 396 || &p.Records[0][0] != &body[16] {
		t.Fatalf("67: %+v", p.Prefix)
	}
	if !bytes.Equal(body[:16], []byte{3, 0, 0, 0, 0x65, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0}) {
		t.Fatal("67: prefix bytes")
	}
	p = dataExact(t, DecodePolledMessages, encPolled, dataVector(t, 68))
	if p.Prefix != (PollPrefix{PartitionID: 1, CurrentOffset: 53, MessagesCount: 1}) || len(p.Records) != 1 {
		t.Fatalf("68: %+v", p)
	}
	// Two records walk by batch_length; the records may sit back to back.
	two := concat(body, body[16:])
	if p, code := DecodePolledMessages(two); code != OK || len(p.Records) != 2 {
		t.Fatalf("two records: %v %d", code, len(p.Records))
	}
}

func TestPolledMessagesTiling(t *testing.T) {
	body := dataVector(t, 67)
	setLength := func(n uint64) []byte {
		b := bytes.Clone(body)
		binary.LittleEndian.PutUint64(b[16+batchLengthOffset:], n)
		return b
	}
	bad := map[string][]byte{
		"under 16 bytes":       body[:15],
		"partial header":       body[:16+255],
		"record past the end":  body[:len(body)-1],
		"trailing bytes":       append(bytes.Clone(body), 1, 2, 3),
		"batch_length 255":     setLength(255),
		"batch_length huge":    setLength(1 << 63),
		"batch_length too big": setLength(397),
	}
	for name, b := range bad {
		if _, code := DecodePolledMessages(b); code != InvalidCommand {
			t.Errorf("%s: %v", name, code)
		}
	}
}

func FuzzSendMessagesRequest(f *testing.F) {
	f.Add(dataVectorSeed(f, 58))
	f.Add(dataVectorSeed(f, 61))
	f.Fuzz(func(t *testing.T, b []byte) {
		dataRequestRoundTrip(t, DecodeSendMessagesRequest, encSend, b)
		if q, code := DecodeSendMessagesRequest(b); code == OK {
			w := &Writer{}
			q.Encode(w)
			if !bytes.Equal(w.Buf, b) {
				t.Fatal("a valid send body must re-encode to itself")
			}
		}
	})
}

func FuzzPollMessagesRequest(f *testing.F) {
	f.Add(dataVectorSeed(f, 65))
	if b := dataVectorSeed(f, 66); b != nil {
		f.Add(frameBody(b))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dataRequestRoundTrip(t, DecodePollMessagesRequest, encPoll, b)
	})
}
