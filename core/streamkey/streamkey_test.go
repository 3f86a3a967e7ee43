package streamkey

import (
	"bytes"
	"testing"

	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, KeyBytes) }

// A stream key wrapped under one server key opens with that key's KEK
// only, and its stored wraps never hold the key in the clear.
// covers ENC-2 ENC-3
func TestWrapOpensUnderItsKEKOnly(t *testing.T) {
	oldK, _ := DeriveKEK(key(1))
	newK, _ := DeriveKEK(key(2))
	sk := key(9)
	w := oldK.Wrap(sk, [NonceBytes]byte{5})
	stored := EncodeWraps([]Wrap{w})
	if bytes.Contains(stored, sk) || bytes.Contains(stored, key(1)) {
		t.Fatal("stored wraps hold a key in the clear")
	}
	ws, err := DecodeWraps(stored)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := Open([]KEK{newK, oldK}, ws); !ok || !bytes.Equal(got, sk) {
		t.Fatal("the old KEK does not open its wrap")
	}
	if _, ok := Open([]KEK{newK}, ws); ok {
		t.Fatal("another KEK opened the wrap")
	}
	if w.KEKFingerprint != Fingerprint(key(1)) || len(w.KEKFingerprint) != 16 {
		t.Fatalf("wrap fingerprint %q", w.KEKFingerprint)
	}
}

// A server key other than 32 bytes is refused.
// covers ENC-7
func TestKeySizes(t *testing.T) {
	for _, n := range []int{0, 31, 33} {
		if _, err := DeriveKEK(make([]byte, n)); err == nil {
			t.Fatalf("a %d-byte server key was taken", n)
		}
		if _, err := NewData(make([]byte, n)); err == nil {
			t.Fatalf("a %d-byte stream key was taken", n)
		}
	}
}

// Sealed records hold no plaintext, open back to the original record, and
// a value moved to another message fails to open.
// covers ENC-4 ENC-5
func TestRecordSealOpen(t *testing.T) {
	d, _ := NewData(key(7))
	rec, _ := batch.Build([]batch.Message{
		{ID: [16]byte{1}, Payload: []byte("secret payload one"), Headers: []byte{1, 2, 3, 4}},
		{ID: [16]byte{2}, Payload: []byte("secret payload two")},
	})
	var n byte
	sealed, code := d.SealRecord(rec, func() (nonce [NonceBytes]byte) { n++; nonce[0] = n; return })
	if code != wire.OK || bytes.Contains(sealed, []byte("secret payload")) {
		t.Fatalf("seal: %v", code)
	}
	if len(sealed) != len(rec)+3*SealOverheadBytes {
		t.Fatalf("sealed %d bytes from %d", len(sealed), len(rec))
	}
	opened, code := d.OpenRecord(sealed)
	if code != wire.OK || !bytes.Equal(opened, rec) {
		t.Fatalf("open: %v", code)
	}
	fs := batch.FramesOf(sealed)
	fr, _ := fs.Next()
	if _, code := d.Open(nil, [16]byte{2}, batch.PartPayload, fr.Payload); code != wire.CannotDecryptData {
		t.Fatalf("a value opened under another message id: %v", code)
	}
}

func FuzzDecodeWraps(f *testing.F) {
	k, _ := DeriveKEK(key(1))
	f.Add(EncodeWraps([]Wrap{k.Wrap(key(3), [NonceBytes]byte{})}))
	f.Add([]byte{4})
	f.Fuzz(func(t *testing.T, b []byte) {
		ws, err := DecodeWraps(b)
		if err != nil {
			return
		}
		if !bytes.Equal(EncodeWraps(ws), b) {
			t.Fatal("decode then encode changed the bytes")
		}
	})
}

// One producer batch of the benchmark's shape (1000 messages of 1000 B):
// sealed at the owner shard, opened at each poll.
func benchRecord(b *testing.B) (Data, []byte) {
	d, _ := NewData(key(7))
	msgs := make([]batch.Message, 1000)
	for i := range msgs {
		msgs[i] = batch.Message{ID: [16]byte{byte(i), byte(i >> 8)}, Payload: bytes.Repeat([]byte{byte(i)}, 1000)}
	}
	rec, _ := batch.Build(msgs)
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	return d, rec
}

func BenchmarkSealRecord(b *testing.B) {
	d, rec := benchRecord(b)
	var n byte
	for b.Loop() {
		d.SealRecord(rec, func() (nonce [NonceBytes]byte) { n++; nonce[0] = n; return })
	}
}

func BenchmarkOpenRecord(b *testing.B) {
	d, rec := benchRecord(b)
	sealed, _ := d.SealRecord(rec, func() (nonce [NonceBytes]byte) { return })
	for b.Loop() {
		d.OpenRecord(sealed)
	}
}
