package wire

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// covers IDEM-1
func TestProducerIDGolden(t *testing.T) {
	w := Writer{}
	ProducerID{ID: 0x0102030405060708, Epoch: 9}.Encode(&w)
	const want = "0807060504030201" + "09000000"
	if got := hex.EncodeToString(w.Buf); got != want {
		t.Fatalf("reply %s, want %s", got, want)
	}
	p, code := DecodeProducerID(w.Buf)
	if code != OK || p.ID != 0x0102030405060708 || p.Epoch != 9 {
		t.Fatalf("decoded %+v %d", p, code)
	}
	if _, code := DecodeProducerID(w.Buf[:11]); code != InvalidCommand {
		t.Fatalf("short reply: %d", code)
	}
}

// covers IDEM-3
func TestSendProducerMessagesGolden(t *testing.T) {
	batch := []byte{0xAA, 0xBB}
	q := SendProducerMessagesRequest{ProducerID: 7, Epoch: 2, FirstSequence: 40, Send: SendMessagesRequest{
		StreamID: NumericID(1), TopicID: NumericID(2),
		Partitioning: Partitioning{Kind: PartitioningPartitionID, PartitionID: 3}, MessagesCount: 5, Batch: batch,
	}}
	w := Writer{}
	q.Encode(&w)
	const want = "0700000000000000" + "02000000" + "2800000000000000" + // producer id, epoch, first sequence
		"16000000" + "01040100000001040200000002040300000005000000" + "aabb" // SendMessages body
	if got := hex.EncodeToString(w.Buf); got != want {
		t.Fatalf("body %s, want %s", got, want)
	}
	back, code := DecodeSendProducerMessagesRequest(w.Buf)
	if code != OK || back.ProducerID != 7 || back.Epoch != 2 || back.FirstSequence != 40 ||
		back.Send.MessagesCount != 5 || !bytes.Equal(back.Send.Batch, batch) {
		t.Fatalf("decoded %+v %d", back, code)
	}
	if _, code := DecodeSendProducerMessagesRequest(w.Buf[:19]); code != InvalidCommand {
		t.Fatalf("short prefix: %d", code)
	}
	q.FirstSequence = ^uint64(0) - 3 // 5 messages pass 2^64-1
	w = Writer{}
	q.Encode(&w)
	if _, code := DecodeSendProducerMessagesRequest(w.Buf); code != InvalidCommand {
		t.Fatalf("sequence overflow: %d", code)
	}
}

func FuzzDecodeSendProducerMessages(f *testing.F) {
	w := Writer{}
	SendProducerMessagesRequest{ProducerID: 1, Send: SendMessagesRequest{StreamID: NumericID(1),
		TopicID: NamedID("t"), Partitioning: Partitioning{Kind: PartitioningBalanced}, MessagesCount: 1}}.Encode(&w)
	f.Add(w.Buf)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		q, code := DecodeSendProducerMessagesRequest(b)
		if code != OK {
			return
		}
		again := Writer{}
		q.Encode(&again)
		if _, code := DecodeSendProducerMessagesRequest(again.Buf); code != OK {
			t.Fatalf("re-encoded body refused: %d", code)
		}
		_, _ = DecodeProducerID(b)
	})
}
