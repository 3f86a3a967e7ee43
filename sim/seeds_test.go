package sim

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// seedsDir is the repository's seeds/ directory, from this package.
var seedsDir = filepath.Join("..", "seeds")

// openBug is a known, unfixed core bug: the failures it causes.
type openBug struct {
	pattern *regexp.Regexp
	what    string
}

func loadOpenBugs(t *testing.T) []openBug {
	t.Helper()
	var out []openBug
	for _, line := range readLines(t, "open-bugs.txt") {
		pat, what, ok := strings.Cut(line, "\t")
		re, err := regexp.Compile(pat)
		if !ok || err != nil {
			t.Fatalf("open-bugs.txt: bad line %q: %v", line, err)
		}
		out = append(out, openBug{pattern: re, what: what})
	}
	return out
}

// known returns the open bug a failure is, or nil.
func known(bugs []openBug, failure string) *openBug {
	for i := range bugs {
		if bugs[i].pattern.MatchString(failure) {
			return &bugs[i]
		}
	}
	return nil
}

// readLines returns the non-comment, non-empty lines of a seeds/ file.
func readLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(seedsDir, name))
	if err != nil {
		t.Fatalf("seeds: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "#"); i >= 0 && !strings.Contains(name, "open-bugs") {
			line = line[:i]
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("seeds: %v", err)
	}
	return out
}

// Every seed that ever failed is replayed under the workload it was found
// with: it passes, or fails with a known open core bug (logged). (covers
// STOR-7, STOR-45, RES-38, VSR-28)
func TestCorpus(t *testing.T) {
	bugs := loadOpenBugs(t)
	slowToo := os.Getenv("IGGY_SIM_CORPUS_SLOW") == "1"
	for _, line := range readLines(t, "corpus.txt") {
		line, slow := strings.CutSuffix(strings.TrimSpace(line), " slow")
		seed, p, v, err := parseCorpusLine(line)
		if err != nil {
			t.Fatalf("corpus.txt: %v", err)
		}
		if slow && !slowToo {
			// Minutes of CPU each: replayed with IGGY_SIM_CORPUS_SLOW=1
			// (make test-slow), not in every CI run.
			t.Logf("seed %d %s: slow, skipped", seed, p)
			continue
		}
		res := RunKnobs(seed, DrawWorkload(seed, p, v), nil)
		switch b := known(bugs, res.Failure); {
		case res.OK():
		case b != nil:
			t.Logf("seed %d %s: still open: %s (%s)", seed, p, res.Failure, b.what)
		default:
			t.Errorf("seed %d %s: %s\n%s", seed, p, res.Line(), res.Details)
		}
	}
}

// parseCorpusLine reads "<seed> <profile> [w<workload>]" (TestCorpus has
// taken off a trailing "slow"): a line without
// a workload was found under WorkloadLegacy, before the heavy workload.
func parseCorpusLine(line string) (uint64, Profile, int, error) {
	f := strings.Fields(line)
	v := WorkloadLegacy
	if len(f) == 3 && strings.HasPrefix(f[2], "w") {
		n, err := strconv.Atoi(f[2][1:])
		if err != nil || n < WorkloadLegacy || n > WorkloadCurrent {
			return 0, 0, 0, fmt.Errorf("bad workload in %q", line)
		}
		v, f = n, f[:2]
	}
	if len(f) != 2 {
		return 0, 0, 0, fmt.Errorf("bad line %q", line)
	}
	seed, err := strconv.ParseUint(f[0], 10, 64)
	p, perr := ParseProfile(f[1])
	if err != nil || perr != nil {
		return 0, 0, 0, fmt.Errorf("bad line %q", line)
	}
	return seed, p, v, nil
}
