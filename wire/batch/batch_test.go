package batch

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/iggygo/iggy/wire"
	"github.com/zeebo/xxh3"
)

// covers MSG-14
func TestBuildMatchesGoldenBatch(t *testing.T) {
	want := vector(t, "59-")
	got, code := Build(goldenMessages())
	if code != wire.OK {
		t.Fatalf("Build: code %d", code)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Build differs from vector 59\n got %x\nwant %x", got, want)
	}
	body := vector(t, "58-")
	if !bytes.Equal(body[len(body)-len(want):], want) {
		t.Fatal("vector 58 does not end with the batch of vector 59")
	}
}

func TestValidateGolden(t *testing.T) {
	rec := vector(t, "59-")
	h, code := Validate(rec)
	if code != wire.OK {
		t.Fatalf("Validate(59): code %d", code)
	}
	want := Header{OriginTimestamp: 1000, Length: 396, Checksum: 0x7C260763C8381FA9, Count: 2}
	if h != want {
		t.Fatalf("header %+v, want %+v", h, want)
	}
	it := FramesOf(rec)
	f0, _ := it.Next()
	f1, _ := it.Next()
	if _, more := it.Next(); more || it.Err() != wire.OK {
		t.Fatal("expected exactly two frames")
	}
	if f0.Checksum != 0x7596755A20B9D2BF || f1.Checksum != 0xC0B78E751C7E6BD6 {
		t.Fatalf("frame checksums %#x %#x", f0.Checksum, f1.Checksum)
	}
	if string(f1.Payload) != "second-payload" || string(f1.Headers) != "user-header-bytes" ||
		f1.OffsetDelta != 1 || f1.TimestampDelta != 50 || f1.ID != [16]byte{8} {
		t.Fatalf("frame 1 decoded wrong: %+v", f1)
	}
}

// covers MSG-14
func TestStampMatchesGoldenPollRecord(t *testing.T) {
	rec := vector(t, "59-")
	Stamp(rec, 3, 100, 5000)
	h, code := Validate(rec)
	if code != wire.OK || h.Checksum != 0xD2EE8F8AB32668C9 {
		t.Fatalf("after stamp: code %d checksum %#x", code, h.Checksum)
	}
	poll := vector(t, "67-")
	if !bytes.Equal(poll[pollPrefixBytes:], rec) {
		t.Fatal("stamped record differs from the record in vector 67")
	}
	if !bytes.Equal(poll[:pollPrefixBytes], []byte{3, 0, 0, 0, 0x65, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0}) {
		t.Fatalf("vector 67 prefix %x", poll[:pollPrefixBytes])
	}
}

// Vector 68 is a sliced record with zero checksums: layout only.
func TestWalkSlicedVector(t *testing.T) {
	rec := vector(t, "68-")[pollPrefixBytes:]
	h := ParseHeader(rec)
	if h.BaseOffset != 50 || h.BaseTimestamp != 9000 || h.Length != 308 || h.Count != 1 || int(h.Length) != len(rec) {
		t.Fatalf("header %+v", h)
	}
	it := FramesOf(rec)
	f, ok := it.Next()
	if !ok || f.OffsetDelta != 3 || string(f.Payload) != "tail" || h.BaseOffset+uint64(f.OffsetDelta) != 53 {
		t.Fatalf("frame %+v ok %v", f, ok)
	}
	if _, code := Validate(rec); code == wire.OK {
		t.Fatal("a record with zero checksums and delta 3 must not validate")
	}
}

func stampedGolden(t *testing.T) []byte {
	rec := vector(t, "59-")
	Stamp(rec, 3, 100, 5000)
	return rec
}

// expectedSliceChecksum recomputes §5.2 independently of the package.
func expectedSliceChecksum(hdr []byte, frameChecksums ...uint64) uint64 {
	in := append([]byte(nil), hdr[:40]...)
	in = append(in, hdr[48:52]...)
	for _, c := range frameChecksums {
		in = binary.LittleEndian.AppendUint64(in, c)
	}
	return xxh3.Hash(in)
}

func TestSlice(t *testing.T) {
	rec := stampedGolden(t)
	cases := []struct {
		from      uint64
		max       uint32
		count     uint32
		checksums []uint64
	}{
		{100, 10, 2, []uint64{0x7596755A20B9D2BF, 0xC0B78E751C7E6BD6}},
		{0, 1, 1, []uint64{0x7596755A20B9D2BF}},
		{101, 10, 1, []uint64{0xC0B78E751C7E6BD6}},
		{102, 10, 0, nil},
		{100, 0, 0, nil},
	}
	for _, c := range cases {
		hdr, frames, count := Slice(rec, c.from, c.max)
		if count != c.count {
			t.Fatalf("Slice(%d,%d) count %d want %d", c.from, c.max, count, c.count)
		}
		if count == 0 {
			continue
		}
		h := ParseHeader(hdr[:])
		if h.BaseOffset != 100 || h.BaseTimestamp != 5000 || h.PartitionID != 3 || h.Count != count ||
			h.Length != uint64(HeaderBytes+len(frames)) || h.OriginTimestamp != 1000 {
			t.Fatalf("sliced header %+v", h)
		}
		if want := expectedSliceChecksum(hdr[:], c.checksums...); h.Checksum != want {
			t.Fatalf("sliced checksum %#x want %#x", h.Checksum, want)
		}
		// The frames alias the stored record: nothing was copied.
		rec[len(rec)-1] ^= 0xff
		aliased := frames[len(frames)-1] == rec[len(rec)-1] || c.checksums[len(c.checksums)-1] != 0xC0B78E751C7E6BD6
		rec[len(rec)-1] ^= 0xff
		if !aliased {
			t.Fatal("frames were copied instead of sliced")
		}
	}
	// The whole selection reproduces the stored header exactly.
	hdr, _, _ := Slice(rec, 0, 100)
	if !bytes.Equal(hdr[:], rec[:HeaderBytes]) {
		t.Fatal("whole-record slice changed the header")
	}
}

func TestValidateRejects(t *testing.T) {
	good := vector(t, "59-")
	cases := []struct {
		name   string
		mutate func([]byte) []byte
		want   wire.Code
	}{
		{"short", func(b []byte) []byte { return b[:200] }, wire.InvalidCommand},
		{"length field", func(b []byte) []byte { b[offLength]++; return b }, wire.InvalidCommand},
		{"suffix", func(b []byte) []byte { return append(b, 0) }, wire.InvalidCommand},
		{"zero count", func(b []byte) []byte { b[offCount] = 0; return b }, wire.InvalidCommand},
		{"count mismatch", func(b []byte) []byte { b[offCount] = 3; return b }, wire.InvalidCommand},
		{"reserved", func(b []byte) []byte { b[200] = 1; return b }, wire.InvalidCommand},
		{"frame reserved", func(b []byte) []byte { b[HeaderBytes+frameOffReserved] = 1; return b }, wire.InvalidCommand},
		{"frame overrun", func(b []byte) []byte { b[HeaderBytes+frameOffPayloadLength] = 200; return b }, wire.InvalidCommand},
		{"offset delta", func(b []byte) []byte { b[HeaderBytes+frameOffOffsetDelta] = 1; return b }, wire.InvalidCommand},
		{"payload bit", func(b []byte) []byte { b[HeaderBytes+FrameHeaderBytes] ^= 1; return b }, wire.InvalidMessageChecksum},
		{"message checksum", func(b []byte) []byte { b[HeaderBytes] ^= 1; return b }, wire.InvalidMessageChecksum},
		{"batch checksum", func(b []byte) []byte { b[offChecksum] ^= 1; return b }, wire.InvalidBatchChecksum},
		{"origin timestamp", func(b []byte) []byte { b[offOriginTimestamp] ^= 1; return b }, wire.InvalidBatchChecksum},
		{"base offset", func(b []byte) []byte { b[offBaseOffset] = 1; return b }, wire.InvalidBatchChecksum},
	}
	for _, c := range cases {
		rec := c.mutate(append([]byte(nil), good...))
		if _, code := Validate(rec); code != c.want {
			t.Errorf("%s: code %d, want %d", c.name, code, c.want)
		}
	}
}

// Batches over 122 messages stream the checksum input through the hasher.
func TestLargeBatchChecksum(t *testing.T) {
	msgs := make([]Message, 500)
	for i := range msgs {
		msgs[i] = Message{ID: [16]byte{byte(i)}, OriginTimestamp: uint64(1000 + i), Payload: []byte{byte(i), 1, 2}}
	}
	rec, code := Build(msgs)
	if code != wire.OK {
		t.Fatalf("Build: %d", code)
	}
	Stamp(rec, 1, 1<<40, 77)
	h, code := Validate(rec)
	if code != wire.OK || h.Count != 500 {
		t.Fatalf("Validate: %d %+v", code, h)
	}
	var sums []uint64
	for it := FramesOf(rec); ; {
		f, ok := it.Next()
		if !ok {
			break
		}
		sums = append(sums, f.Checksum)
	}
	if want := expectedSliceChecksum(rec, sums...); h.Checksum != want {
		t.Fatalf("checksum %#x want %#x", h.Checksum, want)
	}
	start, end, n := FrameRange(rec, 1<<40+200, 100)
	if n != 100 || end <= start {
		t.Fatalf("FrameRange: %d %d %d", start, end, n)
	}
}

func TestBuildRejects(t *testing.T) {
	if _, code := Build(nil); code != wire.InvalidMessagesCount {
		t.Fatalf("empty: %d", code)
	}
	span := []Message{{OriginTimestamp: 10}, {OriginTimestamp: 10 + TimestampDeltaMax + 1}}
	if _, code := Build(span); code != wire.InvalidMessageTimestampDelta {
		t.Fatalf("span: %d", code)
	}
	span[1].OriginTimestamp--
	if _, code := Build(span); code != wire.OK {
		t.Fatalf("max span: %d", code)
	}
}

func TestNewFramesWalksSlicedFrames(t *testing.T) {
	rec := stampedGolden(t)
	if h := ParseHeader(rec); h.LastOffset() != 101 {
		t.Fatalf("last offset %d", h.LastOffset())
	}
	_, frames, _ := Slice(rec, 101, 1)
	it := NewFrames(frames)
	f, ok := it.Next()
	if !ok || f.OffsetDelta != 1 || string(f.Payload) != "second-payload" {
		t.Fatalf("frame %+v", f)
	}
	if _, more := it.Next(); more || it.Err() != wire.OK {
		t.Fatal("more than one frame")
	}
}
