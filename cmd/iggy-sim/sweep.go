package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/iggygo/iggy/sim"
)

// progressEvery paces the progress line.
const progressEvery = time.Second

// sweepOpts are the sweep's switches from the command line.
type sweepOpts struct {
	// requireMarks fails a sweep that missed a vacuity mark; without it a
	// short local sweep only warns (CI's sweeps require them).
	requireMarks bool
}

// runSweeps sweeps a..b under each profile in turn; it fails when one did.
func runSweeps(a, b uint64, ps []sim.Profile, o sweepOpts) int {
	rc := 0
	for _, p := range ps {
		if len(ps) > 1 {
			fmt.Printf("profile %s\n", p)
		}
		rc = max(rc, runSweep(a, b, p, o))
	}
	return rc
}

// runSweep runs seeds a..b, with a progress line on a terminal and a
// summary; it fails when a seed fails, or when the sweep was vacuous and
// marks are required.
func runSweep(a, b uint64, p sim.Profile, o sweepOpts) int {
	cpu0 := cpuTime()
	start := time.Now()
	var shown time.Time
	tty := isTerminal(os.Stderr)
	s := sim.Sweep(a, b, p, func(done, total int, st *sim.SweepStats) {
		if !tty || (time.Since(shown) < progressEvery && done < total) {
			return
		}
		shown = time.Now()
		fmt.Fprintf(os.Stderr, "\r%s", progressLine(done, total, len(st.Failed), time.Since(start)))
	})
	if tty {
		fmt.Fprintln(os.Stderr)
	}
	for _, f := range s.Failed {
		fmt.Printf("seed %d: %s\n  reproduce: %s\n", f.Seed, f.Line(), reproduceCommand(f.Seed, p))
	}
	for _, c := range s.Classified {
		fmt.Printf("seed %d classified unrecoverable: %s\n", c.Seed, c.Classified)
	}
	cpu := (cpuTime() - cpu0).Seconds()
	fmt.Printf("seeds=%d failed=%d classified=%d seeds/s=%.2f sim_s/wall_s=%.1f porcupine_ms/seed=%.1f ops=%d ops/seed=%.0f cpu_s=%.1f seeds/cpu_s=%.2f sim_s/cpu_s=%.1f\n",
		s.Seeds, len(s.Failed), len(s.Classified), s.SeedsPerSecond(), s.SimPerWall(), s.PorcupineMillisPerSeed(), s.Ops,
		float64(s.Ops)/float64(s.Seeds), cpu, float64(s.Seeds)/cpu, s.SimSeconds()/cpu)
	fmt.Printf("marks: %s\n", strings.Join(s.MarkLines(), " "))
	rc := 0
	if err := s.Vacuity(p); err != nil {
		if o.requireMarks {
			fmt.Printf("FAIL: vacuity: %v\n", err)
			rc = 1
		} else {
			fmt.Printf("warning: %v (a sweep of %d seeds may be too short to reach them; -require-marks makes this a failure)\n", err, s.Seeds)
		}
	}
	if len(s.Failed) > 0 {
		fmt.Printf("FAIL: %d of %d seeds failed\n", len(s.Failed), s.Seeds)
		rc = 1
	}
	if rc == 0 {
		fmt.Println("ok")
	}
	return rc
}

// progressLine is "done/total seeds, F failed, R seeds/s, ETA d".
func progressLine(done, total, failed int, elapsed time.Duration) string {
	line := fmt.Sprintf("%d/%d seeds, %d failed", done, total, failed)
	if done == 0 || elapsed <= 0 {
		return line
	}
	rate := float64(done) / elapsed.Seconds()
	eta := time.Duration(float64(total-done) / rate * float64(time.Second))
	return line + fmt.Sprintf(", %.1f seeds/s, ETA %v   ", rate, eta.Round(time.Second))
}

// reproduceCommand is the one command that runs a failed seed of a sweep
// (the current workload) again on its own.
func reproduceCommand(seed uint64, p sim.Profile) string {
	return fmt.Sprintf("go run ./cmd/iggy-sim -seed %d -profile %s", seed, p)
}

// isTerminal says whether f is a terminal (a character device): progress
// lines rewritten with \r are for a person watching, not for a log.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// cpuTime is the CPU time this process used so far (user and system), the
// measure of a sweep's cost that other work on a shared machine does not
// skew as it does wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
