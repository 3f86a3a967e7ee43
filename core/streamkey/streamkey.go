// Package streamkey holds the key hierarchy of encryption at rest (ENC-1..5):
// a server key derives a key-encryption key (HKDF-SHA256); each encrypted
// stream has its own 32-byte data key, stored only wrapped under key-
// encryption keys (AES-256-GCM); the data key seals payloads and user
// headers with AES-256-GCM-SIV. Pure: the caller supplies every nonce.
package streamkey

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/internal/gcmsiv"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

const (
	// KeyBytes is the size of a server key and of a stream key (ENC-1, ENC-7).
	KeyBytes = 32
	// NonceBytes is the size of every nonce: wraps and sealed values.
	NonceBytes = 12
	// WrapsMax is how many wraps one stream holds at most (ENC-27).
	WrapsMax = 3
	// SealOverheadBytes is what sealing adds to a value: nonce and tag (ENC-5).
	SealOverheadBytes = NonceBytes + gcmsiv.TagSize
	// fingerprintBytes is how much of a key's SHA-256 a fingerprint shows.
	fingerprintBytes = 8
	// kekInfo separates the key-encryption key from any other use of the
	// server key (HKDF's info).
	kekInfo = "iggygo stream key-encryption key v1"
	// wrapAAD binds a wrap to its purpose.
	wrapAAD = "iggygo stream key wrap v1"
	// sealedWrapBytes is one wrap's sealed form: nonce, key, GCM tag.
	sealedWrapBytes = NonceBytes + KeyBytes + 16
)

// Fingerprint names a key without revealing it: the lowercase hex of the
// first 8 bytes of its SHA-256 (ENC-14, ENC-15). It is what a client's
// helper computes over a key it holds.
func Fingerprint(key []byte) string {
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:fingerprintBytes])
}

// KEK is the key-encryption key of one server key (ENC-2).
type KEK struct {
	aead cipher.AEAD
	// Fingerprint is the server key's fingerprint, which wraps under it carry.
	Fingerprint string
}

// DeriveKEK derives the key-encryption key of a 32-byte server key.
func DeriveKEK(serverKey []byte) (KEK, error) {
	if len(serverKey) != KeyBytes {
		return KEK{}, fmt.Errorf("server key of %d bytes, want %d", len(serverKey), KeyBytes)
	}
	k, err := hkdf.Key(sha256.New, serverKey, nil, kekInfo, KeyBytes)
	assert.That(err == nil, "HKDF-SHA256 of 32 bytes cannot fail")
	b, err := aes.NewCipher(k)
	assert.That(err == nil, "AES-256 takes a 32-byte key")
	g, err := cipher.NewGCM(b)
	assert.That(err == nil, "GCM takes AES")
	return KEK{aead: g, Fingerprint: Fingerprint(serverKey)}, nil
}

// Wrap is a stream key sealed under one key-encryption key (ENC-3).
type Wrap struct {
	KEKFingerprint string
	Sealed         []byte // nonce, ciphertext, tag
}

// Wrap seals streamKey under k with nonce.
func (k KEK) Wrap(streamKey []byte, nonce [NonceBytes]byte) Wrap {
	assert.That(len(streamKey) == KeyBytes, "a stream key is 32 bytes")
	sealed := k.aead.Seal(nonce[:], nonce[:], streamKey, []byte(wrapAAD))
	return Wrap{KEKFingerprint: k.Fingerprint, Sealed: sealed}
}

// unwrap opens w if it was sealed under k.
func (k KEK) unwrap(w Wrap) ([]byte, bool) {
	if w.KEKFingerprint != k.Fingerprint || len(w.Sealed) != sealedWrapBytes {
		return nil, false
	}
	key, err := k.aead.Open(nil, w.Sealed[:NonceBytes], w.Sealed[NonceBytes:], []byte(wrapAAD))
	return key, err == nil
}

// Open returns the stream key of the first wrap any of keks opens.
func Open(keks []KEK, wraps []Wrap) ([]byte, bool) {
	for _, w := range wraps {
		for _, k := range keks {
			if key, ok := k.unwrap(w); ok {
				return key, true
			}
		}
	}
	return nil, false
}

// ErrWraps is the error of a malformed wraps encoding.
var ErrWraps = errors.New("malformed stream key wraps")

// EncodeWraps is the stored form of a stream's wraps: a count byte, then
// each wrap as a length-prefixed fingerprint and its sealed bytes.
func EncodeWraps(ws []Wrap) []byte {
	assert.That(len(ws) <= WrapsMax, "a stream holds at most three wraps")
	out := []byte{byte(len(ws))}
	for _, w := range ws {
		assert.That(len(w.KEKFingerprint) < 256 && len(w.Sealed) == sealedWrapBytes, "a wrap has its sizes")
		out = append(out, byte(len(w.KEKFingerprint)))
		out = append(out, w.KEKFingerprint...)
		out = append(out, w.Sealed...)
	}
	return out
}

// DecodeWraps reads what EncodeWraps wrote.
func DecodeWraps(b []byte) ([]Wrap, error) {
	if len(b) < 1 || int(b[0]) > WrapsMax {
		return nil, ErrWraps
	}
	n, b := int(b[0]), b[1:]
	ws := make([]Wrap, 0, n)
	for range n {
		if len(b) < 1 || len(b) < 1+int(b[0])+sealedWrapBytes {
			return nil, ErrWraps
		}
		fl := int(b[0])
		ws = append(ws, Wrap{KEKFingerprint: string(b[1 : 1+fl]), Sealed: append([]byte(nil), b[1+fl:1+fl+sealedWrapBytes]...)})
		b = b[1+fl+sealedWrapBytes:]
	}
	if len(b) != 0 {
		return nil, ErrWraps
	}
	return ws, nil
}

// Data is one stream's data cipher (ENC-4).
type Data struct{ aead *gcmsiv.AEAD }

// NewData makes the data cipher of a 32-byte stream key.
func NewData(streamKey []byte) (Data, error) {
	if len(streamKey) != KeyBytes {
		return Data{}, fmt.Errorf("stream key of %d bytes, want %d", len(streamKey), KeyBytes)
	}
	a, err := gcmsiv.New(streamKey)
	if err != nil {
		return Data{}, err
	}
	return Data{aead: a}, nil
}

// valueAAD binds a sealed value to its message id and part, so values
// cannot be moved between messages or between payload and headers.
func valueAAD(id [16]byte, part batch.Part) [17]byte {
	var aad [17]byte
	copy(aad[:], id[:])
	aad[16] = byte(part)
	return aad
}

// Seal appends the stored form of value (ENC-5): nonce, ciphertext, tag.
func (d Data) Seal(dst []byte, nonce [NonceBytes]byte, id [16]byte, part batch.Part, value []byte) []byte {
	aad := valueAAD(id, part)
	return d.aead.Seal(append(dst, nonce[:]...), nonce[:], value, aad[:])
}

// Open appends the value whose stored form is sealed, or fails with
// CannotDecryptData.
func (d Data) Open(dst []byte, id [16]byte, part batch.Part, sealed []byte) ([]byte, wire.Code) {
	if len(sealed) < SealOverheadBytes {
		return nil, wire.CannotDecryptData
	}
	aad := valueAAD(id, part)
	out, err := d.aead.Open(dst, sealed[:NonceBytes], sealed[NonceBytes:], aad[:])
	if err != nil {
		return nil, wire.CannotDecryptData
	}
	return out, wire.OK
}

// SealRecord seals every value of a checked record; nonce draws a fresh
// nonce per value.
func (d Data) SealRecord(rec []byte, nonce func() [NonceBytes]byte) ([]byte, wire.Code) {
	return batch.Transform(rec, func(dst []byte, id [16]byte, part batch.Part, v []byte) ([]byte, wire.Code) {
		return d.Seal(dst, nonce(), id, part, v), wire.OK
	})
}

// OpenRecord opens every value of a stored record.
func (d Data) OpenRecord(rec []byte) ([]byte, wire.Code) {
	return batch.Transform(rec, d.Open)
}
