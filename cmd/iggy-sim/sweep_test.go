package main

import (
	"testing"
	"time"

	"github.com/iggygo/iggy/sim"
)

// The progress line of a long sweep says what is done, what failed, the
// pace and when it ends; the failure line names the command to rerun.
func TestProgressLine(t *testing.T) {
	if got, want := progressLine(0, 100, 0, 0), "0/100 seeds, 0 failed"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got, want := progressLine(25, 100, 1, 10*time.Second), "25/100 seeds, 1 failed, 2.5 seeds/s, ETA 30s   "; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got, want := reproduceCommand(904612408, sim.ProfileLite), "go run ./cmd/iggy-sim -seed 904612408 -profile lite"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
