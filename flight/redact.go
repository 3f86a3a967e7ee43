package flight

import (
	"encoding/binary"

	"github.com/iggygo/iggy/wire"
)

// standIn replaces every byte of a secret: printable ASCII, so a replaced
// password or token keeps the length and decodes the same way.
const standIn = 'x'

// redactFrame overwrites in place the secrets of a request frame that
// carries one: the password or token of a Register (login), the password
// of a CreateUser, both passwords of a ChangePassword. Lengths stay, so the
// node decodes the frame the same way; its verdict comes from the recorded
// job result or token hash, never from the secret. A body stamp
// (request_checksum) is recomputed over the redacted body, or the replayed
// node would refuse the frame; the reply's echo of it then differs from the
// server's, which the replay reports (Go SDKs send no stamp).
func redactFrame(frame []byte) {
	if !carriesSecret(frame) {
		return
	}
	h, _ := wire.DecodeRequestHeader(frame)
	body := frame[wire.HeaderSize:]
	stamped := !h.RequestChecksum.IsZero() && wire.RequestChecksumValid(h, body)
	var hit bool
	switch h.Operation {
	case wire.OpRegister:
		hit = redactLogin(body)
	case wire.OpCreateUser:
		hit = redactSpans(body, skipName, str8)
	case wire.OpChangePassword:
		hit = redactSpans(body, skipIdentifier, str8, str8)
	case wire.OpCreateStream:
		hit = redactStreamKey(body)
	}
	if hit && stamped {
		sum := wire.RequestChecksum(body)
		binary.LittleEndian.PutUint64(frame[requestChecksumOffset:], sum.Lo)
		binary.LittleEndian.PutUint64(frame[requestChecksumOffset+8:], sum.Hi)
	}
}

// carriesSecret reports whether a request frame is of a kind that may
// carry a password, a token or a stream key: redactFrame's kinds (the
// others are recorded as they are, without a copy).
func carriesSecret(frame []byte) bool {
	h, verdict := wire.DecodeRequestHeader(frame)
	if verdict == wire.VerdictClose || len(frame) <= wire.HeaderSize {
		return false
	}
	switch h.Operation {
	case wire.OpRegister, wire.OpCreateUser, wire.OpChangePassword, wire.OpCreateStream:
		return true
	}
	return false
}

// redactStreamKey overwrites the value of a CreateStream's encryption_key
// option ([name] then option items [kind u8][len u32][bytes], key then
// value). The replayed node then keeps another key, so its wraps, and the
// replay, differ from that op on: a key never enters a dump.
func redactStreamKey(body []byte) bool {
	n, _, _, ok := skipName(body)
	if !ok {
		return false
	}
	opts := body[n:]
	for {
		key, rest, ok := optionItem(opts)
		if !ok {
			return false
		}
		value, after, ok := optionItem(rest)
		if !ok {
			return false
		}
		if string(key) == wire.OptEncryptionKey {
			for i := range value {
				value[i] = standIn
			}
			return true
		}
		opts = after
	}
}

// optionItem splits one [kind u8][len u32 LE][bytes] item off b.
func optionItem(b []byte) (item, rest []byte, ok bool) {
	if len(b) < 5 {
		return nil, nil, false
	}
	n := binary.LittleEndian.Uint32(b[1:5])
	if uint64(len(b)-5) < uint64(n) {
		return nil, nil, false
	}
	return b[5 : 5+n], b[5+n:], true
}

// requestChecksumOffset is request_checksum's place in a request header
// (protocol-framing.md 1.4).
const requestChecksumOffset = 144

// redactLogin redacts a Register body the way the node reads it: the
// password shape when it decodes, else the token shape.
func redactLogin(body []byte) bool {
	_, creds, code := wire.DecodeLoginPrefix(body)
	if code != wire.OK {
		return false
	}
	if _, code := wire.DecodeLoginPassword(creds); code == wire.OK {
		return redactSpans(creds, skipName, str8)
	}
	if _, code := wire.DecodeLoginToken(creds); code == wire.OK {
		// A stand-in could in theory make a token read as a password
		// shape (a token that was not UTF-8): that replay then differs,
		// but the secret stays out.
		return redactSpans(creds, str8)
	}
	return false
}

// field is one step through a body: it returns the bytes it consumed and,
// for a secret field, where the secret lies in them.
type field func(b []byte) (consumed int, secretFrom, secretTo int, ok bool)

func skipName(b []byte) (int, int, int, bool) {
	if len(b) < 1 || len(b) < 1+int(b[0]) {
		return 0, 0, 0, false
	}
	return 1 + int(b[0]), 0, 0, true
}

func skipIdentifier(b []byte) (int, int, int, bool) {
	if len(b) < 2 || len(b) < 2+int(b[1]) {
		return 0, 0, 0, false
	}
	return 2 + int(b[1]), 0, 0, true
}

func str8(b []byte) (int, int, int, bool) {
	if len(b) < 1 || len(b) < 1+int(b[0]) {
		return 0, 0, 0, false
	}
	return 1 + int(b[0]), 1, 1 + int(b[0]), true
}

// redactSpans walks b field by field and overwrites every secret span; it
// stops at the first field that does not fit.
func redactSpans(b []byte, fields ...field) bool {
	hit := false
	for _, f := range fields {
		n, from, to, ok := f(b)
		if !ok {
			return hit
		}
		for i := from; i < to; i++ {
			b[i] = standIn
		}
		hit = hit || to > from
		b = b[n:]
	}
	return hit
}
