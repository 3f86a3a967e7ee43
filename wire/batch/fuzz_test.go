package batch

import (
	"testing"

	"github.com/iggygo/iggy/wire"
)

func addRecordSeeds(f *testing.F) {
	f.Add(vector(f, "59-"))
	f.Add(vector(f, "67-")[pollPrefixBytes:])
	f.Add(vector(f, "68-")[pollPrefixBytes:])
	f.Add([]byte{})
}

// Validate never panics; whatever it accepts can be walked, stamped and
// sliced consistently.
func FuzzValidate(f *testing.F) {
	addRecordSeeds(f)
	f.Fuzz(func(t *testing.T, rec []byte) {
		h, code := Validate(rec)
		if code != wire.OK {
			return
		}
		it := FramesOf(rec)
		var n uint32
		for {
			if _, ok := it.Next(); !ok {
				break
			}
			n++
		}
		if it.Err() != wire.OK || n != h.Count {
			t.Fatalf("accepted record walks to %d frames, err %d", n, it.Err())
		}
		Stamp(rec, 9, 1000, 2000)
		if _, code := Validate(rec); code != wire.OK {
			t.Fatalf("restamped record fails: %d", code)
		}
		hdr, frames, count := Slice(rec, 1000+uint64(h.Count)/2, h.Count)
		if count != h.Count-h.Count/2 || len(frames)+HeaderBytes != int(ParseHeader(hdr[:]).Length) {
			t.Fatalf("slice: count %d of %d", count, h.Count)
		}
	})
}

// The walker never panics and never steps outside its input.
func FuzzFrames(f *testing.F) {
	addRecordSeeds(f)
	f.Fuzz(func(t *testing.T, rec []byte) {
		it := FramesOf(rec)
		total := 0
		for {
			fr, ok := it.Next()
			if !ok {
				break
			}
			total += len(fr.Bytes)
			if len(fr.Bytes) != FrameHeaderBytes+len(fr.Payload)+len(fr.Headers) {
				t.Fatal("frame parts do not add up")
			}
		}
		if total != it.Pos() || (it.Err() == wire.OK && HeaderBytes+total != len(rec)) {
			t.Fatalf("walked %d bytes, pos %d, len %d, err %d", total, it.Pos(), len(rec), it.Err())
		}
	})
}

// Build then Validate round-trips: payloads, headers and origin timestamps
// come back unchanged (MSG-14).
func FuzzBuildRoundTrip(f *testing.F) {
	f.Add([]byte("first-payload"), []byte("user-header-bytes"), uint64(1000), uint8(2))
	f.Fuzz(func(t *testing.T, payload, headers []byte, origin uint64, n uint8) {
		msgs := make([]Message, int(n%8)+1)
		for i := range msgs {
			cut := min(i, len(payload))
			msgs[i] = Message{ID: [16]byte{byte(i)}, OriginTimestamp: origin + uint64(i)*7, Payload: payload[cut:], Headers: headers}
		}
		rec, code := Build(msgs)
		if origin+uint64(len(msgs))*7 < origin {
			return // wrapped around: not a meaningful clock
		}
		if code != wire.OK {
			t.Fatalf("Build: %d", code)
		}
		h, code := Validate(rec)
		if code != wire.OK || h.OriginTimestamp != origin {
			t.Fatalf("Validate: %d %+v", code, h)
		}
		it := FramesOf(rec)
		for i := range msgs {
			fr, ok := it.Next()
			if !ok || string(fr.Payload) != string(msgs[i].Payload) || string(fr.Headers) != string(msgs[i].Headers) ||
				h.OriginTimestamp+uint64(fr.TimestampDelta) != msgs[i].OriginTimestamp {
				t.Fatalf("message %d came back different", i)
			}
		}
	})
}
