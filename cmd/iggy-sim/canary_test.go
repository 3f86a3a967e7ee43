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

// canarySeeds is how many seeds a canary mutant may survive.
const canarySeeds = "1-50"

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
			out, err := exec.Command(bin, "-sweep", canarySeeds, "-profile", c.profile, "-require-marks").Output()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the sweep of %s did not fail (err %v):\n%s", c.tag, err, out)
			}
			if !c.caught.Match(out) {
				t.Fatalf("seeds %s never failed %s:\n%s", canarySeeds, c.caught, out)
			}
		})
	}
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
