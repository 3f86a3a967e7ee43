package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
)

// canaryWindows are the seed windows a canary's sweep runs in turn, until
// one catches it: a mutant may survive 50 seeds at most, and the first
// small window usually catches it (each mutant failed by seed 5 when these
// were chosen), so the costly cluster seeds past it seldom run.
var canaryWindows = []string{"1-5", "6-15", "16-50"}

// Each canary mutant (a build tag flipping one decision in the core) must
// be caught by the simulator within 50 seeds, by the oracle that guards
// what it breaks, or the simulator is not checking what it claims.
// It checks the simulator's oracles, not the server: the guarded rules are
// RES-38 (persisted means synced before the reply), reads re-hashing what
// they serve (system.partition.validate_checksum), and VSR-1 and VSR-28
// (an op commits on a quorum only).
func TestCanaries(t *testing.T) {
	if testing.Short() {
		t.Skip("canary builds skipped in -short")
	}
	for _, c := range []struct {
		tag, profile string
		caught       *regexp.Regexp
	}{
		{"canary_reply_before_fsync", "swarm", regexp.MustCompile(`(?m)^seed \d+: FAIL: (linearizability|offsets): `)},
		{"canary_skip_checksum", "swarm", regexp.MustCompile(`(?m)^seed \d+: FAIL: wrong-data: `)},
		// An op committed on the primary alone is lost when another
		// replica leads: replicas apply different prepares at one op, or
		// an acknowledged create is gone after heal, or the log is cut
		// below a commit point (a core assertion), or a partition's
		// acknowledged append is gone.
		{"canary_commit_without_quorum", "cluster", regexp.MustCompile(`(?m)^seed \d+: FAIL: (convergence|metadata|linearizability|offsets|panic: assertion failed): `)},
	} {
		t.Run(c.tag, func(t *testing.T) {
			t.Parallel()
			bin := filepath.Join(t.TempDir(), "iggy-sim")
			build := exec.Command(goTool(), "build", "-tags", c.tag, "-o", bin, ".")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("build -tags %s: %v\n%s", c.tag, err, out)
			}
			for _, w := range canaryWindows {
				if canaryCaught(t, bin, w, c.profile, c.caught) {
					return
				}
			}
			t.Fatalf("seeds %v never failed %s", canaryWindows, c.caught)
		})
	}
}

// canaryCaught sweeps window under the mutant bin and says whether the
// sweep failed the way caught describes.
func canaryCaught(t *testing.T, bin, window, profile string, caught *regexp.Regexp) bool {
	out, err := exec.Command(bin, "-sweep", window, "-profile", profile, "-require-marks").Output()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("the sweep %s: %v", window, err)
	}
	if !caught.Match(out) {
		t.Logf("seeds %s did not catch it:\n%s", window, out)
		return false
	}
	return true
}

// goTool is the go command that runs this test.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
