package wire

import (
	"bytes"
	"testing"
)

func encOffsetRef(q ConsumerOffsetRef, w *Writer)              { q.Encode(w) }
func encStoreOffset(q StoreConsumerOffsetRequest, w *Writer)   { q.Encode(w) }
func encDeleteOffset(q DeleteConsumerOffsetRequest, w *Writer) { q.Encode(w) }
func encOffsetInfo(o ConsumerOffsetInfo, w *Writer)            { o.Encode(w) }
func decOffsetInfoFound(b []byte) (ConsumerOffsetInfo, Code) {
	return foundOnly(DecodeConsumerOffsetInfo(b))
}
func storeOffsetBody(q StoreConsumerOffsetRequest) []byte { w := &Writer{}; q.Encode(w); return w.Buf }
func deleteOffsetBody(q DeleteConsumerOffsetRequest) []byte {
	w := &Writer{}
	q.Encode(w)
	return w.Buf
}
func offsetRef(kind ConsumerKind, partition bool) ConsumerOffsetRef {
	return ConsumerOffsetRef{Consumer: Consumer{Kind: kind, ID: NamedID("c")}, StreamID: NumericID(0),
		TopicID: NumericID(0), Partition: OptionalPartition{Given: partition}}
}

// covers CGRP-1
func TestConsumerOffsetVectors(t *testing.T) {
	s := dataExact(t, DecodeStoreConsumerOffsetRequest, encStoreOffset, dataVector(t, 71))
	ref := ConsumerOffsetRef{Consumer: Consumer{Kind: ConsumerKindConsumer, ID: NumericID(0)},
		StreamID: NumericID(0), TopicID: NumericID(0), Partition: OptionalPartition{Given: true, ID: 0}}
	if s != (StoreConsumerOffsetRequest{ConsumerOffsetRef: ref, Offset: 2, Ack: AckQuorum}) {
		t.Fatalf("71: %+v", s)
	}
	d := dataExact(t, DecodeDeleteConsumerOffsetRequest, encDeleteOffset, dataVector(t, 72))
	if d != (DeleteConsumerOffsetRequest{ConsumerOffsetRef: ref, Ack: AckQuorum}) {
		t.Fatalf("72: %+v", d)
	}
	// GetConsumerOffset is the same prefix without the tail.
	g := dataExact(t, DecodeGetConsumerOffsetRequest, encOffsetRef, dataVector(t, 72)[:24])
	if g != ref {
		t.Fatalf("get: %+v", g)
	}
	info := ConsumerOffsetInfo{PartitionID: 3, CurrentOffset: 10, StoredOffset: 7}
	w := &Writer{}
	info.Encode(w)
	if got := dataExact(t, decOffsetInfoFound, encOffsetInfo, w.Buf); got != info || len(w.Buf) != 20 {
		t.Fatalf("offset info: %+v", got)
	}
	if _, found, code := DecodeConsumerOffsetInfo(nil); found || code != OK {
		t.Fatal("empty body must be not found")
	}
	if _, _, code := DecodeConsumerOffsetInfo(w.Buf[:19]); code != InvalidCommand {
		t.Fatal("19-byte reply accepted")
	}
}

// covers CGRP-2
func TestConsumerKinds(t *testing.T) {
	for _, kind := range []ConsumerKind{ConsumerKindConsumer, ConsumerKindGroup, ConsumerKindExternalGroup} {
		q := StoreConsumerOffsetRequest{ConsumerOffsetRef: offsetRef(kind, true), Offset: 1 << 62, Ack: AckNone}
		if got, code := DecodeStoreConsumerOffsetRequest(storeOffsetBody(q)); code != OK || got != q {
			t.Errorf("kind %d: %v %+v", kind, code, got)
		}
	}
	for _, kind := range []ConsumerKind{0, 4, 255} {
		q := StoreConsumerOffsetRequest{ConsumerOffsetRef: offsetRef(kind, true), Ack: AckQuorum}
		if _, code := DecodeStoreConsumerOffsetRequest(storeOffsetBody(q)); code != InvalidCommand {
			t.Errorf("kind %d: %v", kind, code)
		}
	}
}

func TestConsumerOffsetWriteRules(t *testing.T) {
	store := StoreConsumerOffsetRequest{ConsumerOffsetRef: offsetRef(ConsumerKindGroup, false), Ack: AckQuorum}
	if _, code := DecodeStoreConsumerOffsetRequest(storeOffsetBody(store)); code != InvalidIdentifier {
		t.Errorf("store without partition: %v", code)
	}
	del := DeleteConsumerOffsetRequest{ConsumerOffsetRef: offsetRef(ConsumerKindConsumer, false), Ack: AckQuorum}
	if _, code := DecodeDeleteConsumerOffsetRequest(deleteOffsetBody(del)); code != InvalidIdentifier {
		t.Errorf("delete without partition: %v", code)
	}
	b := bytes.Clone(dataVector(t, 71))
	b[len(b)-1] = 2
	if _, code := DecodeStoreConsumerOffsetRequest(b); code != InvalidCommand {
		t.Errorf("ack 2: %v", code)
	}
	if _, code := DecodeDeleteConsumerOffsetRequest(dataVector(t, 72)[:24]); code != InvalidCommand {
		t.Errorf("delete without ack: %v", code)
	}
	// The partition may be absent on a read: it means partition 0.
	if g, code := DecodeGetConsumerOffsetRequest(deleteOffsetBody(del)); code != OK || g.Partition.Given {
		t.Errorf("get without partition: %v %+v", code, g)
	}
}

func FuzzConsumerOffsetRequests(f *testing.F) {
	f.Add(dataVectorSeed(f, 71))
	f.Add(dataVectorSeed(f, 72))
	f.Fuzz(func(t *testing.T, b []byte) {
		dataRequestRoundTrip(t, DecodeGetConsumerOffsetRequest, encOffsetRef, b)
		dataRequestRoundTrip(t, DecodeStoreConsumerOffsetRequest, encStoreOffset, b)
		dataRequestRoundTrip(t, DecodeDeleteConsumerOffsetRequest, encDeleteOffset, b)
	})
}
