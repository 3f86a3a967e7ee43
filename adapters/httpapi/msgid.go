package httpapi

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

// Message ids are u128 values stored little-endian in 16 bytes (http.md
// 5.1): a JSON number (u64), or a string holding a decimal u128 or 32 hex
// digits with optional dashes (a UUID, read big-endian as its u128).

// uuidHexDigits is the hex length of a u128.
const uuidHexDigits = 32

// parseMessageID reads an id member; absent, null and 0 ask for a random id.
func parseMessageID(raw json.RawMessage) ([16]byte, bool) {
	var id [16]byte
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		return randomMessageID(), true
	}
	if raw[0] != '"' {
		v, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			return id, false
		}
		binary.LittleEndian.PutUint64(id[:8], v)
		return orRandom(id), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || s == "" {
		return id, false
	}
	if strings.Trim(s, "0123456789") == "" {
		n, ok := new(big.Int).SetString(s, 10)
		if !ok || n.BitLen() > 128 {
			return id, false
		}
		return orRandom(u128LE(n)), true
	}
	h := strings.ReplaceAll(s, "-", "")
	b, err := hex.DecodeString(h)
	if err != nil || len(h) != uuidHexDigits {
		return id, false
	}
	return orRandom(u128LE(new(big.Int).SetBytes(b))), true
}

// u128LE stores n (at most 128 bits) little-endian.
func u128LE(n *big.Int) [16]byte {
	var be [16]byte
	n.FillBytes(be[:])
	var le [16]byte
	for i := range be {
		le[i] = be[15-i]
	}
	return le
}

// messageIDText is the decimal u128 of a stored id, for a JSON number.
func messageIDText(id [16]byte) string {
	var be [16]byte
	for i := range id {
		be[i] = id[15-i]
	}
	return new(big.Int).SetBytes(be[:]).String()
}

func orRandom(id [16]byte) [16]byte {
	if id == ([16]byte{}) {
		return randomMessageID()
	}
	return id
}

// randomMessageID is a random UUID v4, the id the server mints for 0.
func randomMessageID() [16]byte {
	var id [16]byte
	_, _ = rand.Read(id[:]) // crypto/rand.Read does not fail on supported platforms
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return id
}
