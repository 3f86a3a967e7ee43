package replicalink

import (
	"crypto/subtle"
	"fmt"

	"lukechampine.com/blake3"

	"github.com/iggygo/iggy/wire/replica"
)

// The placement preamble: the first 8 bytes of every replica link (VSR-6),
// read before anything else so that an acceptor can place the link (its
// shard) from the sender and link index alone, and refuse what is not a
// replica link (a client frame starts with 16 zero bytes of checksum).
const (
	preambleSize    = 8
	preambleVersion = 1
)

var preambleMagic = [4]byte{'I', 'G', 'R', 'L'}

// preamble is [magic 4]["version" u8][from replica u8][link index u8][zero u8].
func preamble(from, link uint8) [preambleSize]byte {
	var b [preambleSize]byte
	copy(b[:], preambleMagic[:])
	b[4], b[5], b[6] = preambleVersion, from, link
	return b
}

func parsePreamble(b [preambleSize]byte) (from, link uint8, err error) {
	if [4]byte(b[:4]) != preambleMagic || b[4] != preambleVersion || b[7] != 0 {
		return 0, 0, fmt.Errorf("no placement preamble (first bytes %x)", b)
	}
	return b[5], b[6], nil
}

// Labels separate the two MACs of a handshake, and the TLS exporter.
const (
	macKeyContext     = "iggy-replica 2026 cluster.auth link key"
	macLabelChallenge = "iggy-replica challenge"
	macLabelFinish    = "iggy-replica finish"
	tlsExporterLabel  = "EXPORTER-iggy-replica"
	macKeySize        = 32
)

// keys holds the derived MAC keys: the first signs and verifies, the
// second (rotation) only verifies. None: no auth.
type keys [][macKeySize]byte

func deriveKeys(secret, previous []byte) keys {
	if secret == nil {
		return nil
	}
	var ks keys
	for _, s := range [][]byte{secret, previous} {
		if len(s) == 0 {
			continue
		}
		var k [macKeySize]byte
		blake3.DeriveKey(k[:], macKeyContext, s)
		ks = append(ks, k)
	}
	return ks
}

// mac is BLAKE3 keyed by k over a label and the handshake transcript: the
// frames before the MAC (the challenge with its MAC cleared) and the TLS
// channel binding (empty on plaintext), so a MAC cannot be replayed on
// another connection or another handshake.
func mac(k [macKeySize]byte, label string, binding []byte, frames ...[]byte) [replica.MACSize]byte {
	h := blake3.New(replica.MACSize, k[:])
	h.Write([]byte(label))
	h.Write(binding)
	for _, f := range frames {
		h.Write(f)
	}
	var out [replica.MACSize]byte
	h.Sum(out[:0])
	return out
}

func (ks keys) sign(label string, binding []byte, frames ...[]byte) [replica.MACSize]byte {
	if len(ks) == 0 {
		return [replica.MACSize]byte{}
	}
	return mac(ks[0], label, binding, frames...)
}

// verify accepts a MAC under the current or the previous secret.
func (ks keys) verify(got [replica.MACSize]byte, label string, binding []byte, frames ...[]byte) bool {
	if len(ks) == 0 {
		return true
	}
	ok := 0
	for _, k := range ks {
		want := mac(k, label, binding, frames...)
		ok |= subtle.ConstantTimeCompare(got[:], want[:])
	}
	return ok == 1
}
