package node_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	update  = flag.Bool("update", false, "fill in the expected output of the scenario blocks that have none")
	rewrite = flag.Bool("rewrite", false, "rewrite every block's expected output, logging each one changed (review them all)")
	bugs    = flag.Bool("bugs", false, "run the tests and scenarios skipped on known bugs (to check a fix)")
)

// A scenario file is a transcript: blocks of one command line, a "----"
// line and the expected output, separated by blank lines. Lines starting
// with '#' between blocks are comments; "# covers ..." names the
// requirements and "# seeds: 1 2" the seeds the scenario runs under (every
// seed must give the same output; the default is defaultSeeds).
type block struct {
	comments []string
	command  string
	want     []string
	line     int
}

var defaultSeeds = []uint64{1, 2, 3, 4}

const separator = "----"

func parseScript(t testing.TB, path string) []block {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []block
	var cur block
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			if line != "" || len(cur.comments) > 0 {
				cur.comments = append(cur.comments, line)
			}
			continue
		}
		cur.command, cur.line = line, i+1
		if i+1 < len(lines) && lines[i+1] == separator {
			i += 2
			for ; i < len(lines) && lines[i] != ""; i++ {
				cur.want = append(cur.want, lines[i])
			}
		}
		blocks = append(blocks, cur)
		cur = block{}
	}
	if len(cur.comments) > 0 {
		blocks = append(blocks, cur) // trailing comments
	}
	return blocks
}

func writeScript(t testing.TB, path string, blocks []block) {
	t.Helper()
	var b strings.Builder
	for i, blk := range blocks {
		for _, c := range blk.comments {
			b.WriteString(c + "\n")
		}
		if blk.command == "" {
			continue
		}
		b.WriteString(blk.command + "\n" + separator + "\n")
		for _, l := range blk.want {
			b.WriteString(l + "\n")
		}
		if i < len(blocks)-1 {
			b.WriteString("\n")
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

var coversLine = regexp.MustCompile(`^# covers ([A-Z]+-[0-9]+)(, [A-Z]+-[0-9]+)*$`)

// scriptSeeds reads "# seeds: ..." and checks the "# covers" line is there.
// A "# skip: reason" line skips the scenario: its expected output states
// the right behaviour of a known bug, written by hand, never updated.
func scriptSeeds(t testing.TB, blocks []block) []uint64 {
	t.Helper()
	covers := false
	seeds := defaultSeeds
	for _, blk := range blocks {
		for _, c := range blk.comments {
			covers = covers || coversLine.MatchString(c)
			if reason, ok := strings.CutPrefix(c, "# skip:"); ok && !*bugs {
				t.Skip(strings.TrimSpace(reason))
			} else if ok && (*update || *rewrite) {
				t.Fatal("a scenario marked skip has hand-written expectations: not updated")
			}
			if rest, ok := strings.CutPrefix(c, "# seeds:"); ok {
				seeds = nil
				for _, f := range strings.Fields(rest) {
					s, err := strconv.ParseUint(f, 10, 64)
					if err != nil {
						t.Fatalf("seeds line %q: %v", c, err)
					}
					seeds = append(seeds, s)
				}
			}
		}
	}
	if !covers {
		t.Fatal(`scenario has no "# covers AREA-N, ..." line`)
	}
	return seeds
}

// runScript runs every block under seed and returns the outputs, and the
// world for the trace.
func runScript(t testing.TB, blocks []block, seed uint64) ([][]string, *world) {
	t.Helper()
	w := newWorld(t, seed)
	outs := make([][]string, len(blocks))
	for i, blk := range blocks {
		if blk.command != "" {
			outs[i] = w.run(blk.command)
		}
	}
	return outs, w
}

// fillBlocks writes outs as the expected output of the blocks that have
// none, and under -rewrite of every block, logging each changed one; then
// writes the scenario back.
func fillBlocks(t *testing.T, path string, blocks []block, outs [][]string) {
	t.Helper()
	for i, blk := range blocks {
		got, want := strings.Join(outs[i], "\n"), strings.Join(blk.want, "\n")
		switch {
		case got == want:
		case len(blk.want) == 0:
			blocks[i].want = outs[i]
		case *rewrite:
			t.Logf("%s:%d: %s: rewritten\nwas:\n%s\nnow:\n%s", path, blk.line, blk.command, want, got)
			blocks[i].want = outs[i]
		}
	}
	writeScript(t, path, blocks)
}

// TestScenarios runs testdata/*.txt, each as the subtest of its name, which
// proves the requirements its "# covers" line names (scripts/coverage
// counts them per subtest, so a skipped scenario proves nothing).
//
// go test -run TestScenarios -update writes the output of the first seed
// into the blocks that have none (new commands) and nowhere else: a block
// whose output changed still fails, so a bug present while transcripts are
// regenerated cannot be absorbed into them. -rewrite rewrites every block,
// for a deliberate change of the output, and logs each block it changed.
func TestScenarios(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			blocks := parseScript(t, path)
			seeds := scriptSeeds(t, blocks)
			for n, seed := range seeds {
				outs, _ := runScript(t, blocks, seed)
				if (*update || *rewrite) && n == 0 {
					fillBlocks(t, path, blocks, outs)
				}
				for i, blk := range blocks {
					if got, want := strings.Join(outs[i], "\n"), strings.Join(blk.want, "\n"); got != want {
						t.Errorf("%s:%d (seed %d): %s\ngot:\n%s\nwant:\n%s", path, blk.line, seed, blk.command, got, want)
					}
				}
			}
		})
	}
}
