package crypto

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"

	"lukechampine.com/blake3"
)

// TokenRandomBytes is the entropy of one personal access token.
const TokenRandomBytes = 50

// TokenLen is the length of a token string: 50 bytes in padded standard base64.
const TokenLen = (TokenRandomBytes + 2) / 3 * 4

// TokenHashLen is the length of a token hash: 32 bytes of BLAKE3 as lowercase hex.
const TokenHashLen = 64

// Random fills b from crypto/rand.
func Random(b []byte) {
	// crypto/rand.Read never fails on supported platforms (it aborts the process instead).
	_, _ = rand.Read(b)
}

// NewToken returns a fresh personal access token. The server shows it once to
// its creator and keeps only HashToken of it.
func NewToken() string {
	var raw [TokenRandomBytes]byte
	Random(raw[:])
	return base64.StdEncoding.EncodeToString(raw[:])
}

// HashToken is what the server stores for a token and looks a presented token
// up by: lowercase hex of the 32-byte BLAKE3 hash of the token's bytes.
func HashToken(token string) string {
	sum := blake3.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
