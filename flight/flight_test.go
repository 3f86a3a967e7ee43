package flight

import (
	"bytes"
	"testing"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

// A ring keeps the newest records whole and counts what it evicted.
func TestRingEvictsOldestWholeRecords(t *testing.T) {
	r := newRing(64)
	for i := range 10 {
		r.put(bytes.Repeat([]byte{byte(i)}, 10), nil) // 14 bytes with the prefix
	}
	if r.records != 4 || r.evicted != 6 {
		t.Fatalf("records %d evicted %d, want 4 and 6", r.records, r.evicted)
	}
	got := r.contents()
	if len(got) != 4*14 || got[4] != 6 || got[len(got)-1] != 9 {
		t.Fatalf("contents %v", got)
	}
	r.put(make([]byte, 90), make([]byte, 10))
	if r.records != 0 || r.evicted != 11 {
		t.Fatalf("after an oversized record: records %d evicted %d", r.records, r.evicted)
	}
}

// loginFrame is a Register request with a password.
func loginFrame(user, password string) []byte {
	w := wire.Writer{}
	wire.LoginPrefix{Version: wire.ProtocolVersionCurrent, SDKName: "go", SDKVersion: "1"}.Encode(&w)
	wire.LoginPassword{Username: user, Password: password}.Encode(&w)
	return requestFrame(wire.OpRegister, w.Buf)
}

func requestFrame(op wire.Operation, body []byte) []byte {
	h := wire.RequestHeader{Client: wire.U128{Lo: 7}, Operation: op, Request: 1}
	f := make([]byte, wire.HeaderSize, wire.HeaderSize+len(body))
	h.Put(f, len(body))
	return append(f, body...)
}

// The recorded copy of a login, a CreateUser and a ChangePassword holds
// no password, and that of a CreateStream no stream key; the frame the
// node gets is untouched.
func TestRedactionKeepsPasswordsOut(t *testing.T) {
	const secret = "correct-horse-battery"
	create := wire.Writer{}
	wire.CreateUserRequest{Username: "pilot", Password: secret, Status: wire.UserStatusActive}.Encode(&create)
	change := wire.Writer{}
	wire.ChangePasswordRequest{UserID: wire.NumericID(2), CurrentPassword: secret, NewPassword: secret + "2"}.Encode(&change)
	token := wire.Writer{}
	wire.LoginPrefix{Version: wire.ProtocolVersionCurrent, SDKName: "go", SDKVersion: "1"}.Encode(&token)
	wire.LoginToken{Token: secret}.Encode(&token)
	stream := wire.Writer{}
	wire.CreateStreamRequest{Name: "s", Options: wire.Options{
		{Key: "a_key", Kind: wire.KindString, Value: []byte("shown")},
		{Key: wire.OptEncryptionKey, Kind: wire.KindRaw, Value: []byte(secret + "-0123456789a")}}}.Encode(&stream)
	frames := [][]byte{loginFrame("pilot", secret), requestFrame(wire.OpCreateUser, create.Buf),
		requestFrame(wire.OpChangePassword, change.Buf), requestFrame(wire.OpRegister, token.Buf),
		requestFrame(wire.OpCreateStream, stream.Buf)}
	rec := NewRecorder(Config{RingBytes: RingBytesMin, Shards: 1})
	s := rec.Shard(0)
	for _, f := range frames {
		orig := append([]byte{}, f...)
		s.scratch = append(s.scratch[:0], 0, 0)
		node.ClientFrame{Conn: 1, Frame: f}.Visit((*encoder)(s))
		if !bytes.Equal(f, orig) {
			t.Fatalf("redaction changed the node's frame")
		}
		if bytes.Contains(s.scratch, []byte(secret)) || bytes.Contains(s.tail, []byte(secret)) {
			t.Fatalf("a recorded frame holds the password: %q", s.scratch)
		}
		if len(s.scratch) != 2+1+len(f) {
			t.Fatalf("the recorded frame changed length")
		}
	}
}

// Recording a send frame allocates nothing once the scratch has grown.
func BenchmarkRecordFrame(b *testing.B) {
	rec := NewRecorder(Config{RingBytes: 64 << 20, Shards: 1})
	s := rec.Shard(0)
	frame := requestFrame(wire.OpSendMessages, make([]byte, 100_000))
	in := node.ClientFrame{Conn: bus.ConnID(3), Frame: frame}
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		s.scratch = append(s.scratch[:0], 0, 0)
		in.Visit((*encoder)(s))
		rec.put(s.scratch, s.tail)
	}
}

// Digesting a Ready allocates nothing.
func BenchmarkDigestReady(b *testing.B) {
	o := newOutputHash()
	part := make([]byte, 100_000)
	r := node.Ready{Replies: []bus.Reply{{Conn: 1, Parts: [][]byte{part[:256], part}}}}
	b.ReportAllocs()
	for b.Loop() {
		o.take(&r)
	}
}

// A poll read's completion is recorded by digest and length, its bytes
// kept out; other reads, and a recorder told to keep read data, record
// the bytes (put in the ring as they are, without a scratch copy).
func TestPollReadsRecordedByDigest(t *testing.T) {
	data := bytes.Repeat([]byte("payload!"), 1000)
	for _, keep := range []bool{false, true} {
		s := NewRecorder(Config{RingBytes: RingBytesMin, Shards: 1, ReadData: keep}).Shard(0)
		s.noteReplyReads([]storage.Request{{ID: 5, Op: storage.OpRead, ReplyOnly: true}, {ID: 6, Op: storage.OpRead}})
		for _, id := range []storage.ReqID{5, 6} {
			s.scratch, s.tail = append(s.scratch[:0], 0, 0), nil
			node.Completion{ID: id, Data: data}.Visit((*encoder)(s))
			in, _, rb, err := decodeInput(append(s.scratch, s.tail...))
			if err != nil {
				t.Fatal(err)
			}
			byDigest := id == 5 && !keep
			if got := in.(node.Completion).Data; byDigest != (rb != nil) || byDigest == bytes.Equal(got, data) {
				t.Fatalf("read %d (keep %v): digest %+v, data of %d bytes", id, keep, rb, len(got))
			}
			if byDigest && (rb.n != len(data) || rb.digest != xxh3.Hash(data) || len(s.tail) != 0) {
				t.Fatalf("read %d recorded as %+v with a tail of %d", id, rb, len(s.tail))
			}
		}
	}
}

// decodeInput never panics on a corrupt record.
func FuzzDecodeInput(f *testing.F) {
	s := NewRecorder(Config{RingBytes: RingBytesMin, Shards: 1}).Shard(0)
	s.noteReplyReads([]storage.Request{{ID: 1, Op: storage.OpRead, ReplyOnly: true}})
	for _, in := range []node.Input{node.Completion{ID: 1, Data: []byte("abc")}, node.Completion{ID: 2, Data: []byte("abc"),
		Entries: []storage.Entry{{Name: "x", Size: 3}}}, node.Tick{Ticks: 3, NowMicros: 9},
		node.ClientFrame{Conn: 2, Frame: loginFrame("u", "p")}, node.JobResult{ID: 4, Data: []byte{1}}} {
		s.scratch, s.tail = append(s.scratch[:0], 0, 0), nil
		in.Visit((*encoder)(s))
		f.Add(append(s.scratch, s.tail...))
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		if len(rec) >= 2 {
			_, _, _, _ = decodeInput(rec)
		}
	})
}

// Recording a 1 MB poll read: by digest (the default) and with its bytes.
func BenchmarkRecordPollRead(b *testing.B) {
	data := make([]byte, 1<<20)
	for _, keep := range []bool{false, true} {
		name := "digest"
		if keep {
			name = "bytes"
		}
		b.Run(name, func(b *testing.B) {
			rec := NewRecorder(Config{RingBytes: 64 << 20, Shards: 1, ReadData: keep})
			s := rec.Shard(0)
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for id := storage.ReqID(1); b.Loop(); id++ {
				s.noteReplyReads([]storage.Request{{ID: id, Op: storage.OpRead, ReplyOnly: true}})
				s.scratch, s.tail = append(s.scratch[:0], 0, 0), nil
				node.Completion{ID: id, Data: data}.Visit((*encoder)(s))
				rec.put(s.scratch, s.tail)
			}
		})
	}
}

// A reply part within a poll read recorded by digest is hashed as that
// digest and its offset (the replay's read has the same digest, its bytes
// checked), not hashed again; until the next take only.
func TestReplyPartsOfADigestReadHashByDigest(t *testing.T) {
	server, replay := bytes.Repeat([]byte{1}, 4096), bytes.Repeat([]byte{2}, 4096)
	take := func(o *outputHash, read []byte) uint64 {
		r := node.Ready{Replies: []bus.Reply{{Conn: 1, Parts: [][]byte{read[100:300]}}}}
		return o.take(&r)[outReplies]
	}
	a, b := newOutputHash(), newOutputHash()
	a.read(server, 42)
	b.read(replay, 42)
	if take(&a, server) != take(&b, replay) {
		t.Fatalf("parts of reads of one digest hash apart")
	}
	if take(&a, server) == take(&b, replay) {
		t.Fatalf("a read was remembered past its take")
	}
}
