package gcmsiv

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/iggygo/iggy/internal/assert"
)

const (
	blockSize = 16
	// NonceSize is the only nonce length RFC 8452 defines.
	NonceSize = 12
	// TagSize is the length of the tag after the ciphertext.
	TagSize = 16
	// plaintextBytesMax is RFC 8452's bound on a plaintext and on the
	// associated data: 2^36 bytes.
	plaintextBytesMax = 1 << 36
)

// ErrOpen is returned for any ciphertext that does not authenticate.
var ErrOpen = errors.New("gcmsiv: message authentication failed")

// AEAD is AES-GCM-SIV under one key-generating key. It implements
// cipher.AEAD and is safe for concurrent use.
type AEAD struct {
	kgk cipher.Block
	// kgkSchedule is kgk's expanded key for the AES-NI path (fast).
	kgkSchedule schedule
	fast        bool
	// encKeyBytes is the length of each message's encryption key: the
	// key-generating key's own length.
	encKeyBytes int
}

var _ cipher.AEAD = (*AEAD)(nil)

// New makes an AEAD for a 16- or 32-byte key.
func New(key []byte) (*AEAD, error) {
	if len(key) != 16 && len(key) != 32 {
		return nil, fmt.Errorf("gcmsiv: key of %d bytes, want 16 or 32", len(key))
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("gcmsiv: %w", err)
	}
	a := &AEAD{kgk: b, encKeyBytes: len(key), fast: hasAESNI && hasCLMUL}
	a.kgkSchedule.expand(key)
	return a, nil
}

// messageCipher is one message's encryption key: crypto/aes, or an
// expanded schedule for the AES-NI path.
type messageCipher struct {
	block    cipher.Block
	schedule schedule
}

// encrypt is one AES block.
func (m *messageCipher) encrypt(dst, src *[16]byte) {
	if m.block != nil {
		m.block.Encrypt(dst[:], src[:])
		return
	}
	ctr, zero := *src, [16]byte{}
	m.schedule.xorKeyStream(&ctr, dst[:], zero[:])
}

// NonceSize is 12.
func (a *AEAD) NonceSize() int { return NonceSize }

// Overhead is the tag's 16 bytes.
func (a *AEAD) Overhead() int { return TagSize }

// messageKeys derives the per-nonce authentication key and encryption
// key (RFC 8452 section 4): the first eight bytes of AES(kgk, i || nonce)
// for i = 0, 1, ... (with AES-NI, a CTR run over zeros from 0 || nonce:
// the counter word is i).
func (a *AEAD) messageKeys(nonce []byte, m *messageCipher) (auth [16]byte) {
	var in [blockSize]byte
	var out [6 * blockSize]byte
	copy(in[4:], nonce)
	halves := 2 + a.encKeyBytes/8
	if a.fast {
		var zero [6 * blockSize]byte
		a.kgkSchedule.xorKeyStream(&in, out[:halves*blockSize], zero[:halves*blockSize])
	} else {
		for i := range halves {
			binary.LittleEndian.PutUint32(in[:4], uint32(i))
			a.kgk.Encrypt(out[i*blockSize:], in[:])
		}
	}
	var encKey [32]byte
	for i := range halves {
		if i < 2 {
			copy(auth[i*8:], out[i*blockSize:i*blockSize+8])
		} else {
			copy(encKey[(i-2)*8:], out[i*blockSize:i*blockSize+8])
		}
	}
	if a.fast {
		m.schedule.expand(encKey[:a.encKeyBytes])
		return auth
	}
	enc, err := aes.NewCipher(encKey[:a.encKeyBytes])
	assert.That(err == nil, "gcmsiv: a derived key has a length New accepted")
	m.block = enc
	return auth
}

// tag computes the tag of plaintext and additional data (RFC 8452 section 4).
func tag(auth *[16]byte, enc *messageCipher, nonce, plaintext, aad []byte) [TagSize]byte {
	var s [16]byte
	polyvalPadded(&s, auth, aad)
	polyvalPadded(&s, auth, plaintext)
	var lengths [16]byte
	binary.LittleEndian.PutUint64(lengths[:8], uint64(len(aad))*8)
	binary.LittleEndian.PutUint64(lengths[8:], uint64(len(plaintext))*8)
	polyvalBlocks(&s, auth, lengths[:])
	for i := range NonceSize {
		s[i] ^= nonce[i]
	}
	s[15] &= 0x7f
	var t [TagSize]byte
	enc.encrypt(&t, &s)
	return t
}

// polyvalPadded folds b, padded with zeros to whole blocks, into s.
func polyvalPadded(s *[16]byte, h *[16]byte, b []byte) {
	whole := len(b) &^ (blockSize - 1)
	polyvalBlocks(s, h, b[:whole])
	if whole < len(b) {
		var last [blockSize]byte
		copy(last[:], b[whole:])
		polyvalBlocks(s, h, last[:])
	}
}

// ctr XORs in with the key stream that starts at the tag with its top bit
// set, its first word counting up little-endian (RFC 8452 section 4).
func ctr(enc *messageCipher, t [TagSize]byte, out, in []byte) {
	counter := t
	counter[15] |= 0x80
	if enc.block == nil {
		whole := len(in) &^ (blockSize - 1)
		enc.schedule.xorKeyStream(&counter, out, in[:whole])
		if whole < len(in) {
			var ks, zero [blockSize]byte
			enc.schedule.xorKeyStream(&counter, ks[:], zero[:])
			subtle.XORBytes(out[whole:], in[whole:], ks[:])
		}
		return
	}
	n := binary.LittleEndian.Uint32(counter[:4])
	var ks [blockSize]byte
	for len(in) > 0 {
		binary.LittleEndian.PutUint32(counter[:4], n)
		enc.block.Encrypt(ks[:], counter[:])
		k := subtle.XORBytes(out, in, ks[:])
		out, in = out[k:], in[k:]
		n++
	}
}

// Seal appends the encryption of plaintext and its tag to dst.
func (a *AEAD) Seal(dst, nonce, plaintext, aad []byte) []byte {
	if len(nonce) != NonceSize {
		panic("gcmsiv: nonce of the wrong length")
	}
	if uint64(len(plaintext)) > plaintextBytesMax || uint64(len(aad)) > plaintextBytesMax {
		panic("gcmsiv: plaintext too long")
	}
	var enc messageCipher
	auth := a.messageKeys(nonce, &enc)
	t := tag(&auth, &enc, nonce, plaintext, aad)
	ret, out := grow(dst, len(plaintext)+TagSize)
	ctr(&enc, t, out, plaintext)
	copy(out[len(plaintext):], t[:])
	return ret
}

// Open appends the decryption of ciphertext to dst if its tag is right.
func (a *AEAD) Open(dst, nonce, ciphertext, aad []byte) ([]byte, error) {
	if len(nonce) != NonceSize || len(ciphertext) < TagSize ||
		uint64(len(ciphertext)) > plaintextBytesMax+TagSize || len(aad) > math.MaxInt/2 {
		return nil, ErrOpen
	}
	body := ciphertext[:len(ciphertext)-TagSize]
	var t [TagSize]byte
	copy(t[:], ciphertext[len(body):])
	var enc messageCipher
	auth := a.messageKeys(nonce, &enc)
	ret, out := grow(dst, len(body))
	ctr(&enc, t, out, body)
	want := tag(&auth, &enc, nonce, out, aad)
	if subtle.ConstantTimeCompare(want[:], t[:]) != 1 {
		clear(out)
		return nil, ErrOpen
	}
	return ret, nil
}

// grow extends dst by n bytes and returns the whole and the new part.
func grow(dst []byte, n int) (whole, tail []byte) {
	total := len(dst) + n
	if cap(dst) >= total {
		whole = dst[:total]
	} else {
		whole = make([]byte, total)
		copy(whole, dst)
	}
	return whole, whole[len(dst):]
}
