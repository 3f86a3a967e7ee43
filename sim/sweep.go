package sim

import (
	"compress/gzip"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/io/clock"
	"github.com/iggygo/iggy/oracles"
)

// SweepStats aggregates the runs of a sweep.
type SweepStats struct {
	Seeds      int
	Failed     []Result
	Classified []Result
	Marks      mark.Counts
	Ticks      uint64
	Ops        int
	Porcupine  time.Duration
	Wall       time.Duration
}

// SeedsPerSecond is the sweep's throughput in wall time.
func (s *SweepStats) SeedsPerSecond() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return float64(s.Seeds) / s.Wall.Seconds()
}

// SimPerWall is simulated seconds per wall second.
func (s *SweepStats) SimPerWall() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return s.SimSeconds() / s.Wall.Seconds()
}

// SimSeconds is the simulated time of every run.
func (s *SweepStats) SimSeconds() float64 { return float64(s.Ticks) * clock.TickMillis / 1000 }

// PorcupineMillisPerSeed is the average linearizability check time.
func (s *SweepStats) PorcupineMillisPerSeed() float64 {
	if s.Seeds == 0 {
		return 0
	}
	return float64(s.Porcupine.Microseconds()) / 1000 / float64(s.Seeds)
}

// MarkLines lists every mark with its number of hits, sorted by name.
func (s *SweepStats) MarkLines() []string {
	var out []string
	for _, n := range s.Marks.Names() {
		out = append(out, fmt.Sprintf("%s=%d", n, s.Marks[n]))
	}
	return out
}

// Vacuity fails a sweep that never crashed and restarted, never recovered
// from lost unsynced writes, or never had porcupine check a read; a sweep
// of standalone nodes also needs a hand-off stepped into a host shard and
// a reply from one (a swarm sweep also the held opens and parked views of
// its recreates); a sweep of replica sets needs a view change, a repair,
// a state transfer and a passing convergence check (and runs one shard);
// a lite one and a cluster one also need a session retired by its lease.
func (s *SweepStats) Vacuity(p Profile) error { return oracles.CheckVacuity(s.Marks, Required(p)...) }

// markLeaseExpired: the primary retired a session whose lease ran out (the
// lite and cluster profiles abandon sessions; sim/client.go lost).
const markLeaseExpired = "node.session.lease_expired"

// Required are the marks a sweep of profile p (with the current, heavy
// workload) must hit: every move of the workload among them.
func Required(p Profile) []string {
	if p == ProfileCluster {
		// A cluster sweep must also see a primary moved by rebalancing and
		// the placement oracle pass over partitions of two or more members.
		return slices.Concat(oracles.ClusterRequired, heavyMarks(p), deferredClusterRequired, []string{markLeaseExpired},
			[]string{oracles.MarkMoveCompleted, oracles.MarkBalanced}, followClusterRequired)
	}
	marks := slices.Concat(oracles.SweepRequired, []string{markShardHandOff, markShardHostReply}, heavyMarks(p), deferredRequired,
		followRequired) // follow.go
	if p == ProfileLite || p == ProfileSwarm {
		marks = append(marks, producerRequired...) // producers.go
	}
	if p == ProfileLite { // swarm and liveness seeds abandon no session
		marks = append(marks, markLeaseExpired)
	}
	if p == ProfileSwarm {
		// About one swarm seed in eight holds an open, one in sixteen parks a
		// view: a sweep of 200 hits both (TestSweep's 40 need not).
		marks = append(marks, markOpenHeld, markViewParked)
		// One swarm seed in four truncates sealed segments at rest; a
		// sweep of 200 truncates some and boots past one.
		marks = append(marks, markSealedTruncated, markDamagedKept)
		// One in four injects write errors: partitions break and reopen.
		marks = append(marks, "sim.disk.write_error", "node.partition.reopened")
		// A quarter of swarm seeds churn, and so make the admin moves.
		marks = append(marks, adminRequired...)
	}
	return marks
}

// Sweep runs seeds a..b on every CPU (each run is single-threaded and
// independent), calling progress after each run, in seed order for the
// aggregates so the summary does not depend on scheduling.
func Sweep(a, b uint64, p Profile, progress func(done, total int, s *SweepStats)) *SweepStats {
	return SweepRanges([]SweepRange{{Profile: p, First: a, Last: b}}, progress)[0]
}

// SweepRange is the seeds First..Last of one profile.
type SweepRange struct {
	Profile     Profile
	First, Last uint64
}

func (r SweepRange) seeds() int { return int(r.Last - r.First + 1) }

// SweepRanges runs every seed of every range on GOMAXPROCS workers that
// take the next seed from one queue (the ranges in order: put the costly
// profiles first, so no worker is left alone with them at the end), and
// returns one SweepStats per range, aggregated in seed order. progress
// sees the running totals of all ranges.
func SweepRanges(ranges []SweepRange, progress func(done, total int, s *SweepStats)) []*SweepStats {
	type job struct{ rng, i int }
	var jobs []job
	results := make([][]Result, len(ranges))
	for ri, r := range ranges {
		results[ri] = make([]Result, r.seeds())
		for i := range r.seeds() {
			jobs = append(jobs, job{ri, i})
		}
	}
	running := &SweepStats{Marks: mark.Counts{}}
	start := time.Now()
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				n := next
				next++
				mu.Unlock()
				if n >= len(jobs) {
					return
				}
				j := jobs[n]
				res := Run(ranges[j.rng].First+uint64(j.i), ranges[j.rng].Profile, nil)
				mu.Lock()
				results[j.rng][j.i] = res
				if !res.OK() {
					running.Failed = append(running.Failed, res)
				}
				running.Seeds++
				running.Wall = time.Since(start)
				if progress != nil {
					progress(running.Seeds, len(jobs), running)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	out := make([]*SweepStats, len(ranges))
	for ri := range ranges {
		out[ri] = aggregate(results[ri])
		out[ri].Wall = time.Since(start)
	}
	return out
}

// aggregate sums the results of one range, in seed order.
func aggregate(results []Result) *SweepStats {
	st := &SweepStats{Marks: mark.Counts{}, Seeds: len(results)}
	for _, r := range results {
		if !r.OK() {
			st.Failed = append(st.Failed, r)
		}
		if r.Classified != "" {
			st.Classified = append(st.Classified, r)
		}
		for n, c := range r.Marks {
			st.Marks[n] += c
		}
		st.Ticks += r.Ticks
		st.Ops += r.Ops
		st.Porcupine += r.Porcupine.Elapsed
	}
	return st
}

// RunRecorded runs one seed and writes its gzip trace to path.
func RunRecorded(seed uint64, k Knobs, path string) (Result, error) {
	f, err := os.Create(path)
	if err != nil {
		return Result{}, fmt.Errorf("record: %w", err)
	}
	zw := gzip.NewWriter(f)
	res := RunKnobs(seed, k, zw)
	if err := zw.Close(); err != nil {
		f.Close()
		return res, fmt.Errorf("record: %w", err)
	}
	if err := f.Close(); err != nil {
		return res, fmt.Errorf("record: %w", err)
	}
	return res, nil
}

// merge adds o's runs to s.
func (s *SweepStats) merge(o *SweepStats) {
	if s.Marks == nil {
		s.Marks = mark.Counts{}
	}
	s.Seeds += o.Seeds
	s.Failed = append(s.Failed, o.Failed...)
	s.Classified = append(s.Classified, o.Classified...)
	for n, c := range o.Marks {
		s.Marks[n] += c
	}
	s.Ticks += o.Ticks
	s.Ops += o.Ops
	s.Porcupine += o.Porcupine
	s.Wall += o.Wall
}
