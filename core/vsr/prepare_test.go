package vsr

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func samplePrepare(op uint64, view uint32) Prepare {
	return Prepare{
		Op: op, View: view, Timestamp: 1700000000000000 + op,
		ClientLo: 11, ClientHi: 12, Request: 13, UserID: 14,
		Kind: KindCommand, Operation: 150, Body: []byte{byte(op), 2, 3},
	}
}

func TestPrepareRoundTrip(t *testing.T) {
	p := samplePrepare(7, 3)
	raw := Seal(&p)
	if len(raw) != PrepareHeaderSize+3 {
		t.Fatalf("size %d", len(raw))
	}
	q, n, ok := DecodePrepare(raw)
	if !ok || n != len(raw) {
		t.Fatalf("decode: ok=%v n=%d", ok, n)
	}
	if q.Checksum != p.Checksum || q.Op != 7 || q.View != 3 || q.UserID != 14 ||
		q.Kind != KindCommand || q.Operation != 150 || !bytes.Equal(q.Body, p.Body) {
		t.Fatalf("decoded %+v, sealed %+v", q, p)
	}
	if _, ok := Verify(&q); !ok {
		t.Fatal("verify of a decoded prepare failed")
	}
}

// The checksum covers the view: the same op proposed in two views is two
// prepares, which is what lets a checksum name a prepare.
func TestPrepareChecksumCoversView(t *testing.T) {
	a, b := samplePrepare(5, 1), samplePrepare(5, 2)
	Seal(&a)
	Seal(&b)
	if a.Checksum == b.Checksum {
		t.Fatal("view not covered by the checksum")
	}
	b.View = 1
	if _, ok := Verify(&b); ok {
		t.Fatal("a changed field kept its old checksum")
	}
}

func TestDecodePrepareRejectsDamage(t *testing.T) {
	p := samplePrepare(1, 0)
	raw := Seal(&p)
	for i := range raw {
		bad := bytes.Clone(raw)
		bad[i] ^= 0x10
		if _, _, ok := DecodePrepare(bad); ok {
			t.Fatalf("flipped byte %d accepted", i)
		}
	}
	if _, _, ok := DecodePrepare(raw[:len(raw)-1]); ok {
		t.Fatal("short prepare accepted")
	}
	ps, valid := Scan(append(bytes.Clone(raw), raw[:10]...))
	if len(ps) != 1 || valid != len(raw) {
		t.Fatalf("scan: %d prepares, %d valid bytes", len(ps), valid)
	}
}

func FuzzDecodePrepare(f *testing.F) {
	p := samplePrepare(1, 0)
	f.Add(Seal(&p))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		q, n, ok := DecodePrepare(b)
		if !ok {
			return
		}
		if n > len(b) || binary.LittleEndian.Uint64(b) != q.Checksum {
			t.Fatalf("n=%d of %d", n, len(b))
		}
		if _, ok := Verify(&q); !ok {
			t.Fatal("decoded prepare does not verify")
		}
	})
}
