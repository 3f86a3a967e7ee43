// Package testenv holds what tests share about their environment: where
// the golden vectors are and whether their absence may skip a test, and
// the seed of a randomized test (printed, and taken from the environment
// to replay one).
package testenv

import (
	"os"
	"strconv"
	"testing"
)

// SeedVar names the environment variable that replays a randomized test.
const SeedVar = "IGGY_TEST_SEED"

// VectorsMissing ends a test whose golden vectors at dir could not be read
// (err): a skip on a developer's machine without the shared checkout, a
// failure under CI=true, where a skip would count an unchecked codec as
// tested.
func VectorsMissing(tb testing.TB, dir string, err error) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("golden vectors missing at %s (CI=true): %v", dir, err)
	}
	tb.Skipf("golden vectors not found at %s: %v", dir, err)
}

// Seed returns the seed of a randomized test: IGGY_TEST_SEED when set, else
// draw(). It logs the seed and how to replay it, so a failure names both.
func Seed(tb testing.TB, draw func() uint64) uint64 {
	tb.Helper()
	seed, ok := Replay(tb)
	if !ok {
		seed = draw()
	}
	tb.Logf("seed %d (replay: %s=%d go test -run '^%s$')", seed, SeedVar, seed, tb.Name())
	return seed
}

// Replay returns the seed IGGY_TEST_SEED names, if it is set: a test that
// runs a range of seeds then runs that one alone.
func Replay(tb testing.TB) (uint64, bool) {
	tb.Helper()
	s := os.Getenv(SeedVar)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		tb.Fatalf("%s=%q: %v", SeedVar, s, err)
	}
	return v, true
}
