package client

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iggygo/iggy/internal/testenv"
)

// vectorsDir is the golden vector directory, from this package dir up to
// the repo root and over to the shared/ sibling.
var vectorsDir = filepath.Join("..", "..", "shared", "spec", "vectors")

func readVector(t testing.TB, name string) []byte {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(vectorsDir, name))
	if errors.Is(err, os.ErrNotExist) {
		if _, dirErr := os.Stat(vectorsDir); dirErr != nil {
			testenv.VectorsMissing(t, vectorsDir, dirErr)
		}
	}
	if err != nil {
		t.Fatalf("read vector %s: %v", name, err)
	}
	b, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
	if err != nil {
		t.Fatalf("decode vector %s: %v", name, err)
	}
	return b
}

// The golden poll reply (protocol-data.md 5.9) decodes to its two messages.
// covers MSG-13, MSG-14
func TestDecodeGoldenPoll(t *testing.T) {
	current, msgs, err := decodePoll(readVector(t, "67-poll-reply-body-golden.hex"))
	if err != nil || current != 101 || len(msgs) != 2 {
		t.Fatalf("current %d, %d messages, err %v", current, len(msgs), err)
	}
	m0, m1 := msgs[0], msgs[1]
	if m0.Partition != 3 || m0.Offset != 100 || m0.ID[0] != 7 || string(m0.Payload) != "first-payload" ||
		m0.Timestamp != 5000 || m0.OriginTimestamp != 1000 || len(m0.Headers) != 0 {
		t.Fatalf("message 0: %+v", m0)
	}
	if m1.Offset != 101 || m1.ID[0] != 8 || string(m1.Payload) != "second-payload" ||
		m1.OriginTimestamp != 1050 || string(m1.Headers) != "user-header-bytes" {
		t.Fatalf("message 1: %+v", m1)
	}
}

// Vector 68 is a head-sliced record with zero checksums: the client refuses
// it because its batch checksum does not verify.
func TestDecodeSlicedUncheckedPollRefused(t *testing.T) {
	if _, _, err := decodePoll(readVector(t, "68-poll-reply-body-sliced-unchecked.hex")); !errors.Is(err, ErrProtocol) {
		t.Fatalf("err %v", err)
	}
}

// The empty re-sync reply has no messages.
func TestDecodeEmptyPoll(t *testing.T) {
	_, msgs, err := decodePoll(readVector(t, "69-poll-reply-empty-resync.hex"))
	if err != nil || len(msgs) != 0 {
		t.Fatalf("%d messages, err %v", len(msgs), err)
	}
}

// Poll replies come from the network: decoding must never panic.
func FuzzDecodePoll(f *testing.F) {
	if _, err := os.Stat(vectorsDir); err == nil {
		for _, name := range []string{"67-poll-reply-body-golden.hex", "68-poll-reply-body-sliced-unchecked.hex",
			"69-poll-reply-empty-resync.hex"} {
			f.Add(readVector(f, name))
		}
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		_, msgs, err := decodePoll(body)
		if err == nil && len(body) < 16 {
			t.Fatalf("accepted a %d-byte poll body", len(body))
		}
		_ = msgs
	})
}
