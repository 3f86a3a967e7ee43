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

// runSweeps sweeps a..b under each profile in turn; it fails when one did.
func runSweeps(a, b uint64, ps []sim.Profile) int {
	rc := 0
	for _, p := range ps {
		if len(ps) > 1 {
			fmt.Printf("profile %s\n", p)
		}
		rc = max(rc, runSweep(a, b, p))
	}
	return rc
}

// runSweep runs seeds a..b, printing a progress line every few seconds and
// a summary; it fails when a seed fails or the sweep was vacuous.
func runSweep(a, b uint64, p sim.Profile) int {
	cpu0 := cpuTime()
	var shown time.Time
	s := sim.Sweep(a, b, p, func(done, total int, st *sim.SweepStats) {
		if time.Since(shown) < progressEvery && done < total {
			return
		}
		shown = time.Now()
		fmt.Fprintf(os.Stderr, "\r%d/%d seeds, %d failed, %.1f seeds/s", done, total, len(st.Failed), st.SeedsPerSecond())
	})
	fmt.Fprintln(os.Stderr)
	for _, f := range s.Failed {
		fmt.Printf("seed %d: %s\n", f.Seed, f.Line())
	}
	for _, c := range s.Classified {
		fmt.Printf("seed %d classified unrecoverable: %s\n", c.Seed, c.Classified)
	}
	cpu := (cpuTime() - cpu0).Seconds()
	fmt.Printf("seeds=%d failed=%d classified=%d seeds/s=%.2f sim_s/wall_s=%.1f porcupine_ms/seed=%.1f ops=%d ops/seed=%.0f cpu_s=%.1f seeds/cpu_s=%.2f sim_s/cpu_s=%.1f\n",
		s.Seeds, len(s.Failed), len(s.Classified), s.SeedsPerSecond(), s.SimPerWall(), s.PorcupineMillisPerSeed(), s.Ops,
		float64(s.Ops)/float64(s.Seeds), cpu, float64(s.Seeds)/cpu, s.SimSeconds()/cpu)
	fmt.Printf("marks: %s\n", strings.Join(s.MarkLines(), " "))
	if err := s.Vacuity(p); err != nil {
		fmt.Printf("FAIL: vacuity: %v\n", err)
		return 1
	}
	if len(s.Failed) > 0 {
		fmt.Printf("FAIL: %d of %d seeds failed\n", len(s.Failed), s.Seeds)
		return 1
	}
	fmt.Println("ok")
	return 0
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
