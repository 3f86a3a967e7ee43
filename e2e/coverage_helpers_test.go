package e2e

import (
	"os"
	"testing"
)

// knownBug skips a test that states the right behaviour of a known bug.
// COV_BUGS=1 runs it anyway, to check a fix.
func knownBug(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("COV_BUGS") == "" {
		t.Skip("BUG: " + what)
	}
}
