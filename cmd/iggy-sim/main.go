// Command iggy-sim runs the deterministic simulator.
//
//	iggy-sim -seed N [-profile P] [-workload W] [-record FILE]   one seed; the last line is
//	    seed=N ticks=T ops=O trace=<16 hex> ok, or FAIL: <oracle>: <reason> (exit 1)
//	iggy-sim -sweep A-B [-profile lite|swarm|liveness|cluster|all] [-require-marks]   seeds A..B with
//	    progress on a terminal (seeds done, failures, seeds/s, ETA), a summary and, for each failed
//	    seed, the command that reproduces it; a missed vacuity mark is a warning unless -require-marks
//	iggy-sim -replay FILE   drives fresh nodes with a recorded trace and checks its hash
//	                        (or a server's flight dump: -until N, -print, -check, -force, -data DIR)
//
// -cover (with -seed or -sweep, inside the repository) reports the
// statement coverage of core/ the run reached and lists the core functions
// it never entered; -cpuprofile FILE writes a CPU profile of what ran.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/iggygo/iggy/sim"
)

func main() { os.Exit(run()) }

func run() int {
	seed := flag.String("seed", "", "run one seed")
	sweep := flag.String("sweep", "", "run seeds A-B")
	profile := flag.String("profile", "swarm", "lite, swarm, liveness or cluster (a sweep also takes all)")
	record := flag.String("record", "", "with -seed: write the trace (gzip) to FILE")
	replay := flag.String("replay", "", "replay a trace written by -record and check its hash")
	long := flag.Bool("long", false, "with -seed: a long run, ten simulated minutes or 100,000 ops with faults coming and going")
	workload := flag.Int("workload", sim.WorkloadCurrent, "with -seed: the workload version (1: the corpus's older seeds)")
	cover := flag.Bool("cover", false, "report the statement coverage of core/ the run reached (needs the source and go)")
	coverFuncs := flag.String("coverfuncs", "", "with -cover: write every core function's coverage to FILE")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to FILE (go tool pprof)")
	requireMarks := flag.Bool("require-marks", false, "with -sweep: fail when a vacuity mark was never hit (else a warning; CI requires them)")
	flag.Parse()
	if *cover {
		return runCovered(withoutCoverFlags(os.Args[1:]), *coverFuncs)
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fatal(err)
		}
		defer stop()
	}
	switch {
	case *replay != "":
		return runReplay(*replay)
	case *seed != "":
		p := parseProfile(*profile)
		n, err := strconv.ParseUint(*seed, 10, 64)
		if err != nil {
			fatal(fmt.Errorf("-seed %q: %w", *seed, err))
		}
		k := sim.DrawWorkload(n, p, *workload)
		if *long {
			k = sim.Lengthen(k)
		}
		return runSeed(n, k, *record)
	case *sweep != "":
		a, b, err := parseRange(*sweep)
		if err != nil {
			fatal(err)
		}
		return runSweeps(a, b, parseProfiles(*profile), sweepOpts{requireMarks: *requireMarks})
	}
	flag.Usage()
	return 2
}

func parseProfile(s string) sim.Profile {
	p, err := sim.ParseProfile(s)
	if err != nil {
		fatal(err)
	}
	return p
}

// parseProfiles reads one profile, or all of them.
func parseProfiles(s string) []sim.Profile {
	if s == "all" {
		return sim.Profiles()
	}
	return []sim.Profile{parseProfile(s)}
}

func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "iggy-sim:", err)
	os.Exit(2)
}

func parseRange(s string) (uint64, uint64, error) {
	lo, hi, ok := strings.Cut(s, "-")
	a, err1 := strconv.ParseUint(lo, 10, 64)
	b, err2 := strconv.ParseUint(hi, 10, 64)
	if !ok || err1 != nil || err2 != nil || b < a {
		return 0, 0, fmt.Errorf("-sweep %q: want A-B with A <= B", s)
	}
	return a, b, nil
}

func runSeed(seed uint64, k sim.Knobs, record string) int {
	fmt.Printf("seed=%d %s\n", seed, k)
	var res sim.Result
	if record != "" {
		var err error
		res, err = sim.RunRecorded(seed, k, record)
		if err != nil {
			fatal(err)
		}
	} else {
		res = sim.RunKnobs(seed, k, nil)
	}
	if res.Classified != "" {
		fmt.Printf("classified unrecoverable: %s\n", res.Classified)
	}
	fmt.Printf("porcupine: %d partitions, %d ops, %d reads with messages, %v\n",
		res.Porcupine.Partitions, res.Porcupine.Ops, res.Porcupine.Reads, res.Porcupine.Elapsed.Round(1e6))
	for _, k := range res.Porcupine.Unknown {
		fmt.Printf("porcupine: partition %s/%s/%d unchecked: its check timed out\n", k.Stream, k.Topic, k.Partition)
	}
	fmt.Printf("marks: %s\n", strings.Join(res.Marks.Names(), " "))
	fmt.Print(res.Details)
	fmt.Println(res.Line())
	if !res.OK() {
		return 1
	}
	return 0
}

func runReplay(path string) int {
	if isFlightDump(path) {
		return runFlightReplay(path)
	}
	f, err := os.Open(path)
	if err != nil {
		fatal(err)
	}
	defer f.Close()
	res, err := sim.Replay(f)
	if err != nil {
		fmt.Printf("FAIL: replay: %v\n", err)
		return 1
	}
	fmt.Printf("seed=%d inputs=%d trace=%016x replayed ok\n", res.Seed, res.Inputs, res.Replayed)
	return 0
}
