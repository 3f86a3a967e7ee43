package batch

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iggygo/iggy/internal/testenv"
)

// vectorsDir is the golden vector directory, reached from this package dir
// up to the repo root and then to the sibling shared/ checkout.
var vectorsDir = filepath.Join("..", "..", "..", "shared", "spec", "vectors")

// vector returns the bytes of the golden vector whose file name starts with
// prefix ("59-"), skipping the test when the directory is absent
// (failing it under CI=true).
func vector(t testing.TB, prefix string) []byte {
	t.Helper()
	entries, err := os.ReadDir(vectorsDir)
	if err != nil {
		testenv.VectorsMissing(t, vectorsDir, err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			text, err := os.ReadFile(filepath.Join(vectorsDir, e.Name()))
			if err != nil {
				t.Fatalf("read vector %s: %v", e.Name(), err)
			}
			b, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
			if err != nil {
				t.Fatalf("decode vector %s: %v", e.Name(), err)
			}
			return b
		}
	}
	t.Fatalf("vector %s missing", prefix)
	return nil
}

// goldenMessages are the two messages of protocol-data.md §5.9.
func goldenMessages() []Message {
	return []Message{
		{ID: [16]byte{7}, OriginTimestamp: 1000, Payload: []byte("first-payload")},
		{ID: [16]byte{8}, OriginTimestamp: 1050, Payload: []byte("second-payload"), Headers: []byte("user-header-bytes")},
	}
}

// pollPrefixBytes is the PollMessages reply prefix before the records (§5.6).
const pollPrefixBytes = 16
