package flight

import (
	"bytes"
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// A ring keeps the newest records whole and counts what it evicted.
func TestRingEvictsOldestWholeRecords(t *testing.T) {
	r := newRing(64)
	for i := range 10 {
		r.put(bytes.Repeat([]byte{byte(i)}, 10)) // 14 bytes with the prefix
	}
	if r.records != 4 || r.evicted != 6 {
		t.Fatalf("records %d evicted %d, want 4 and 6", r.records, r.evicted)
	}
	got := r.contents()
	if len(got) != 4*14 || got[4] != 6 || got[len(got)-1] != 9 {
		t.Fatalf("contents %v", got)
	}
	r.put(make([]byte, 100))
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
	rec := NewRecorder(RingBytesMin, node.Config{}, 1)
	s := rec.Shard(0)
	for _, f := range frames {
		orig := append([]byte{}, f...)
		s.scratch = append(s.scratch[:0], 0, 0)
		node.ClientFrame{Conn: 1, Frame: f}.Visit((*encoder)(s))
		if !bytes.Equal(f, orig) {
			t.Fatalf("redaction changed the node's frame")
		}
		if bytes.Contains(s.scratch, []byte(secret)) {
			t.Fatalf("a recorded frame holds the password: %q", s.scratch)
		}
		if len(s.scratch) != 2+1+len(f) {
			t.Fatalf("the recorded frame changed length")
		}
	}
}

// Recording a send frame allocates nothing once the scratch has grown.
func BenchmarkRecordFrame(b *testing.B) {
	rec := NewRecorder(64<<20, node.Config{}, 1)
	s := rec.Shard(0)
	frame := requestFrame(wire.OpSendMessages, make([]byte, 100_000))
	in := node.ClientFrame{Conn: bus.ConnID(3), Frame: frame}
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		s.scratch = append(s.scratch[:0], 0, 0)
		in.Visit((*encoder)(s))
		rec.put(s.scratch)
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
