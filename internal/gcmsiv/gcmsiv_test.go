package gcmsiv

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

type vector struct {
	id                         string
	valid                      bool
	key, iv, aad, msg, ct, tag []byte
}

func loadVectors(t *testing.T) []vector {
	t.Helper()
	f, err := os.Open("testdata/wycheproof.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []vector
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fs := strings.Fields(line)
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 8 {
			t.Fatalf("bad vector line %q", sc.Text())
		}
		h := func(s string) []byte {
			if s == "-" {
				return nil
			}
			b, err := hex.DecodeString(s)
			if err != nil {
				t.Fatalf("vector %s: %v", fs[0], err)
			}
			return b
		}
		vs = append(vs, vector{id: fs[0], valid: fs[1] == "valid", key: h(fs[2]), iv: h(fs[3]), aad: h(fs[4]), msg: h(fs[5]), ct: h(fs[6]), tag: h(fs[7])})
	}
	if len(vs) != 202 {
		t.Fatalf("%d vectors, want 202", len(vs))
	}
	return vs
}

// Every Wycheproof AES-GCM-SIV vector (RFC 8452 appendix C among them):
// valid ones seal to the expected bytes and open back, invalid ones (bad
// tags, wrong nonce lengths) fail to open.
// covers ENC-4
func TestWycheproofVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		a, err := New(v.key)
		if err != nil {
			t.Fatalf("vector %s: %v", v.id, err)
		}
		sealed := append(bytes.Clone(v.ct), v.tag...)
		if len(v.iv) != NonceSize {
			if v.valid {
				t.Fatalf("vector %s: valid with a %d-byte nonce", v.id, len(v.iv))
			}
			if _, err := a.Open(nil, v.iv, sealed, v.aad); err == nil {
				t.Fatalf("vector %s: opened with a %d-byte nonce", v.id, len(v.iv))
			}
			continue
		}
		got, err := a.Open(nil, v.iv, sealed, v.aad)
		if v.valid != (err == nil) {
			t.Fatalf("vector %s: open error %v, valid %v", v.id, err, v.valid)
		}
		if !v.valid {
			continue
		}
		if !bytes.Equal(got, v.msg) {
			t.Fatalf("vector %s: opened %x, want %x", v.id, got, v.msg)
		}
		if s := a.Seal(nil, v.iv, v.msg, v.aad); !bytes.Equal(s, sealed) {
			t.Fatalf("vector %s: sealed %x, want %x", v.id, s, sealed)
		}
	}
}

// The assembly POLYVAL and the pure Go one agree on any key and input.
func FuzzPolyvalAgrees(f *testing.F) {
	f.Add(bytes.Repeat([]byte{1}, 16), bytes.Repeat([]byte{0xff}, 64))
	f.Add(make([]byte, 16), []byte("0123456789abcdef"))
	f.Fuzz(func(t *testing.T, key, in []byte) {
		if len(key) < 16 {
			return
		}
		var h, s1, s2 [16]byte
		copy(h[:], key)
		in = in[:len(in)&^15]
		polyvalBlocks(&s1, &h, in)
		polyvalGeneric(&s2, &h, in)
		if s1 != s2 {
			t.Fatalf("polyval %x, generic %x", s1, s2)
		}
	})
}

// Seal then Open gives the plaintext back for any input, in place too, and
// any flipped bit of the sealed form fails to open.
func FuzzRoundTrip(f *testing.F) {
	f.Add(make([]byte, 32), make([]byte, 12), []byte("hello"), []byte("aad"), uint16(3))
	f.Fuzz(func(t *testing.T, key, nonce, msg, aad []byte, flip uint16) {
		if len(key) < 32 || len(nonce) < NonceSize {
			return
		}
		a, err := New(key[:32])
		if err != nil {
			t.Fatal(err)
		}
		n := nonce[:NonceSize]
		sealed := a.Seal(nil, n, msg, aad)
		got, err := a.Open(sealed[:0], n, bytes.Clone(sealed), aad)
		if err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("round trip: %v %x %x", err, got, msg)
		}
		sealed = a.Seal(nil, n, msg, aad)
		bit := int(flip) % (len(sealed) * 8)
		sealed[bit/8] ^= 1 << (bit % 8)
		if _, err := a.Open(nil, n, sealed, aad); err == nil {
			t.Fatal("a flipped bit opened")
		}
	})
}

func BenchmarkSeal1KiB(b *testing.B) {
	a, _ := New(make([]byte, 32))
	msg, nonce := make([]byte, 1024), make([]byte, NonceSize)
	dst := make([]byte, 0, 1024+TagSize)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		a.Seal(dst, nonce, msg, nil)
	}
}

func BenchmarkPolyval(b *testing.B) {
	var h, s [16]byte
	h[0] = 3
	in := make([]byte, 16*1024)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		polyvalBlocks(&s, &h, in)
	}
}

// The AES-NI path and the crypto/aes path seal the same bytes.
func FuzzFastMatchesGeneric(f *testing.F) {
	f.Add(make([]byte, 32), make([]byte, 12), []byte("a message of some length, over two blocks"), []byte("aad"))
	f.Fuzz(func(t *testing.T, key, nonce, msg, aad []byte) {
		if len(key) < 32 || len(nonce) < NonceSize {
			return
		}
		for _, k := range [][]byte{key[:16], key[:32]} {
			fast, _ := New(k)
			slow, _ := New(k)
			slow.fast = false
			if a, b := fast.Seal(nil, nonce[:NonceSize], msg, aad), slow.Seal(nil, nonce[:NonceSize], msg, aad); !bytes.Equal(a, b) {
				t.Fatalf("fast %x, generic %x", a, b)
			}
		}
	})
}
