package batch

import (
	"testing"

	"github.com/iggygo/iggy/wire"
)

func benchRecord(b *testing.B, count, payloadBytes int) []byte {
	msgs := make([]Message, count)
	for i := range msgs {
		msgs[i] = Message{ID: [16]byte{byte(i)}, OriginTimestamp: 1, Payload: make([]byte, payloadBytes)}
	}
	rec, code := Build(msgs)
	if code != wire.OK {
		b.Fatalf("Build: %d", code)
	}
	return rec
}

func BenchmarkValidate(b *testing.B) {
	rec := benchRecord(b, 1000, 1000)
	b.SetBytes(int64(len(rec)))
	for b.Loop() {
		if _, code := Validate(rec); code != wire.OK {
			b.Fatal(code)
		}
	}
}

func BenchmarkStamp(b *testing.B) {
	rec := benchRecord(b, 1000, 1000)
	b.SetBytes(int64(len(rec)))
	var off uint64
	for b.Loop() {
		off++
		Stamp(rec, 1, off, off)
	}
}
