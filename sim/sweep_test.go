package sim

import (
	"testing"
	"time"

	"github.com/iggygo/iggy/oracles"
)

// The CI sweep: 200 seeds over the four profiles (the single-replica
// ones together, cluster on its own, each with its vacuity marks). A seed fails the test
// unless its failure is a known open core bug (seeds/open-bugs.txt); the
// sweep as a whole fails when it was vacuous (never restarted, never
// recovered from lost unsynced writes, never had porcupine check a read).
// A failing seed belongs in seeds/corpus.txt. (covers STOR-1, STOR-7,
// STOR-45, RES-37, RES-38, MSG-10, MSG-12, MSG-13, SESS-18, VSR-28)
func TestSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("sweep skipped in -short")
	}
	bugs := loadOpenBugs(t)
	total, cluster := &SweepStats{}, &SweepStats{}
	for _, r := range []struct {
		p    Profile
		a, b uint64
	}{{ProfileLite, 1, 80}, {ProfileLiveness, 1, 40}, {ProfileSwarm, 1, 40}, {ProfileCluster, 1, 40}} {
		s := Sweep(r.a, r.b, r.p, nil)
		t.Logf("%s %d-%d: %.1f seeds/s, %.0f simulated s per wall s, porcupine %.1f ms/seed, %d classified",
			r.p, r.a, r.b, s.SeedsPerSecond(), s.SimPerWall(), s.PorcupineMillisPerSeed(), len(s.Classified))
		for _, f := range s.Failed {
			if b := known(bugs, f.Failure); b != nil {
				t.Logf("seed %d %s: open bug: %s (%s)", f.Seed, r.p, f.Failure, b.what)
				continue
			}
			t.Errorf("seed %d %s: %s\n%s", f.Seed, r.p, f.Line(), f.Details)
		}
		if r.p == ProfileCluster {
			if err := s.Vacuity(r.p); err != nil {
				t.Errorf("cluster sweep: %v", err)
			}
			cluster.merge(s)
			continue
		}
		total.merge(s)
	}
	if err := oracles.CheckVacuity(total.Marks, Required(ProfileLite)...); err != nil {
		t.Fatal(err)
	}
	total.merge(cluster)
	t.Logf("%d seeds in %v", total.Seeds, total.Wall.Round(time.Millisecond))
}
