package vsr

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var (
	update  = flag.Bool("update", false, "fill in the expected output of the scenario blocks that have none")
	rewrite = flag.Bool("rewrite", false, "rewrite every block's expected output, logging each one changed (review them all)")
)

// A scenario is a transcript: blocks of one command line, a "----" line and
// the expected output, separated by blank lines. Lines starting with '#'
// are comments; "# seed: N" sets the seed (default 1). Commands:
//
//	cluster [replicas=3] [window=256] [checkpoint=64] [loss=0] [dup=0] [delay=3] [disk=4] [image=3000] [chunk=1024]
//	propose n=K [at=R]        K ops in one step at the primary (or R)
//	run ticks=T [load=K]      T ticks, K ops proposed per tick at each primary
//	wait <cond> [max=T] [load=K]  tick until cond: committed=N, established, converged
//	crash r=R [torn]          power loss of R's disk (a torn prefix of unsynced writes kept)
//	kill r=R                  R's process dies, its page cache survives
//	restart r=R               R boots from its disk
//	stall r=R                 R's disk stops completing requests (they stay queued)
//	unstall r=R               R's disk makes progress again
//	journal r=R               R's journal: ops durable, written, appended; flushes in flight
//	corrupt r=R ops=K         R (down) loses its last K journaled prepares, synced or not
//	partition A.. | B..       cut every link between the two groups
//	heal                      restore every link
//	state                     every replica's state
//	marks                     the coverage marks hit so far
//	expect-marks M..          fail unless every mark M was hit
//	check                     every acknowledged op survived, logs and states agree
const separator = "----"

type block struct {
	command string
	want    []string
	line    int
}

type script struct {
	seed     uint64
	comments [][]string // comments[i] precede blocks[i]
	blocks   []block
	trailer  []string
}

func parseScript(t *testing.T, path string) script {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := script{seed: 1}
	var comments []string
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue // blocks are separated by one blank line when rendered
		}
		if strings.HasPrefix(line, "#") {
			if v, ok := strings.CutPrefix(line, "# seed: "); ok {
				s.seed, err = strconv.ParseUint(v, 10, 64)
				if err != nil {
					t.Fatalf("%s:%d: bad seed", path, i+1)
				}
			}
			comments = append(comments, line)
			continue
		}
		b := block{command: line, line: i + 1}
		if i+1 < len(lines) && lines[i+1] == separator {
			for i += 2; i < len(lines) && lines[i] != ""; i++ {
				b.want = append(b.want, lines[i])
			}
		}
		s.comments = append(s.comments, comments)
		s.blocks = append(s.blocks, b)
		comments = nil
	}
	s.trailer = comments
	return s
}

func (s *script) render(outputs [][]string) string {
	var b strings.Builder
	for i, blk := range s.blocks {
		if i == 0 && len(s.comments[0]) > 0 {
			for _, c := range s.comments[0] {
				b.WriteString(c + "\n")
			}
			b.WriteString("\n")
		} else {
			for _, c := range s.comments[i] {
				b.WriteString(c + "\n")
			}
		}
		b.WriteString(blk.command + "\n" + separator + "\n")
		for _, o := range outputs[i] {
			b.WriteString(o + "\n")
		}
		b.WriteString("\n")
	}
	for _, c := range s.trailer {
		b.WriteString(c + "\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// TestScenarios runs every transcript under testdata/, each as the subtest
// of its name, which proves what its "# covers" line names
// (scripts/coverage counts them per subtest). go test -update writes the
// output into the blocks that have none and nowhere else, so a bug present
// while transcripts are regenerated cannot be absorbed into them; -rewrite
// rewrites every block, for a deliberate change, logging each one changed.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			s := parseScript(t, path)
			r := &runner{t: t, seed: s.seed}
			outputs := make([][]string, len(s.blocks))
			for i, blk := range s.blocks {
				outputs[i] = r.exec(blk.command)
				got, want := strings.Join(outputs[i], "\n"), strings.Join(blk.want, "\n")
				switch {
				case got == want:
				case *update && len(blk.want) == 0:
				case *rewrite:
					t.Logf("%s:%d: %s: rewritten\nwas:\n%s\nnow:\n%s", path, blk.line, blk.command, want, got)
				default:
					t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", path, blk.line, blk.command, got, want)
					outputs[i] = blk.want // -update keeps what was written
				}
			}
			if *update || *rewrite {
				if err := os.WriteFile(path, []byte(s.render(outputs)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

type runner struct {
	t    *testing.T
	seed uint64
	c    *cluster
}

// args parses "key=value" and bare words of a command.
type args struct {
	words []string
	kv    map[string]string
}

func parseArgs(fields []string) args {
	a := args{kv: map[string]string{}}
	for _, f := range fields {
		if k, v, ok := strings.Cut(f, "="); ok {
			a.kv[k] = v
		} else {
			a.words = append(a.words, f)
		}
	}
	return a
}

func (a args) int(t *testing.T, key string, def int) int {
	v, ok := a.kv[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", key, v, err)
	}
	return n
}

func (a args) float(t *testing.T, key string, def float64) float64 {
	v, ok := a.kv[key]
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", key, v, err)
	}
	return f
}

func (a args) has(word string) bool {
	for _, w := range a.words {
		if w == word {
			return true
		}
	}
	return false
}

func (r *runner) exec(command string) []string {
	fields := strings.Fields(command)
	a := parseArgs(fields[1:])
	t := r.t
	if fields[0] != "cluster" && r.c == nil {
		t.Fatalf("%s before cluster", fields[0])
	}
	switch fields[0] {
	case "cluster":
		o := defaultOptions()
		o.seed = r.seed
		o.replicas = a.int(t, "replicas", o.replicas)
		o.window = a.int(t, "window", o.window)
		o.checkpoint = uint64(a.int(t, "checkpoint", int(o.checkpoint)))
		o.loss = a.float(t, "loss", o.loss)
		o.dup = a.float(t, "dup", o.dup)
		o.delayMax = a.int(t, "delay", o.delayMax)
		o.diskOps = a.int(t, "disk", o.diskOps)
		o.imageBytes = a.int(t, "image", o.imageBytes)
		o.chunkBytes = a.int(t, "chunk", o.chunkBytes)
		r.c = newCluster(t, o)
		return []string{fmt.Sprintf("%d replicas", o.replicas)}
	case "propose":
		return r.propose(a)
	case "run":
		r.c.run(a.int(t, "ticks", 1), a.int(t, "load", 0))
		return nil
	case "wait":
		return r.wait(a)
	case "crash":
		r.c.crash(r.replica(a), a.has("torn"))
		return nil
	case "kill":
		r.c.kill(r.replica(a))
		return nil
	case "restart":
		id := r.replica(a)
		r.c.restart(id)
		return []string{r.c.nodes[id].describe()}
	case "stall", "unstall":
		r.c.nodes[r.replica(a)].stalled = fields[0] == "stall"
		return nil
	case "journal":
		id := r.replica(a)
		j := r.c.nodes[id].journal
		if r.c.nodes[id].r == nil {
			return []string{fmt.Sprintf("r%d is down", id)}
		}
		return []string{fmt.Sprintf("r%d journal durable=%d written=%d appended=%d flushes=%d",
			id, j.DurableOp(), j.WrittenOp(), j.queuedOp, len(j.flushes))}
	case "corrupt":
		return r.corrupt(r.replica(a), a.int(t, "ops", 1))
	case "partition":
		left, right, ok := strings.Cut(strings.Join(fields[1:], " "), "|")
		if !ok {
			t.Fatalf("partition needs two groups: %s", command)
		}
		r.c.partition(r.group(left), r.group(right))
		return nil
	case "heal":
		r.c.heal()
		return nil
	case "state":
		return strings.Split(strings.TrimRight(r.c.describe(), "\n"), "\n")
	case "marks":
		var out []string
		for _, m := range r.c.marks.Names() {
			if strings.HasPrefix(m, "vsr.") {
				out = append(out, m)
			}
		}
		return out
	case "expect-marks":
		if missing := r.c.marks.Missing(fields[1:]...); len(missing) > 0 {
			return []string{"missing: " + strings.Join(missing, " ")}
		}
		return []string{"ok"}
	case "check":
		return []string{r.c.checkSurvived()}
	}
	t.Fatalf("unknown command %q", command)
	return nil
}

func (r *runner) replica(a args) uint8 {
	id := a.int(r.t, "r", -1)
	if id < 0 || id >= len(r.c.nodes) {
		r.t.Fatalf("bad replica r=%d", id)
	}
	return uint8(id)
}

func (r *runner) group(s string) []uint8 {
	var g []uint8
	for _, f := range strings.Fields(s) {
		id, err := strconv.Atoi(f)
		if err != nil || id < 0 || id >= len(r.c.nodes) {
			r.t.Fatalf("bad replica %q", f)
		}
		g = append(g, uint8(id))
	}
	return g
}

func (r *runner) propose(a args) []string {
	at := a.int(r.t, "at", -1)
	if at < 0 {
		p, ok := r.c.primary()
		if !ok {
			return []string{"no primary"}
		}
		at = int(p)
	}
	n := r.c.nodes[at]
	if n.r == nil {
		return []string{fmt.Sprintf("r%d is down", at)}
	}
	first, last, ok := n.propose(a.int(r.t, "n", 1))
	if !ok {
		return []string{fmt.Sprintf("r%d refused (%s, view %d)", at, n.r.Status(), n.r.View())}
	}
	return []string{fmt.Sprintf("r%d proposed ops %d..%d in view %d", at, first, last, n.r.View())}
}

func (r *runner) wait(a args) []string {
	limit, load := a.int(r.t, "max", 5000), a.int(r.t, "load", 0)
	var cond func() bool
	switch {
	case a.kv["committed"] != "":
		n := uint64(a.int(r.t, "committed", 0))
		cond = func() bool { return r.c.allApplied(n) }
	case a.has("established"):
		cond = func() bool { _, ok := r.c.established(); return ok }
	case a.has("converged"):
		cond = r.c.converged
	default:
		r.t.Fatalf("wait for what?")
	}
	for range limit {
		if cond() {
			return []string{"ok"}
		}
		r.c.run(1, load)
	}
	return append([]string{fmt.Sprintf("timeout after %d ticks", limit)}, strings.Split(strings.TrimRight(r.c.describe(), "\n"), "\n")...)
}

// corrupt drops the last ops prepares of a down replica's journal, synced
// or not: the journal falls short of what its superblock says it held.
func (r *runner) corrupt(id uint8, ops int) []string {
	n := r.c.nodes[id]
	if n.r != nil {
		r.t.Fatalf("corrupt r%d while up", id)
	}
	files := n.disk.Files()
	for i := len(files) - 1; i >= 0 && ops > 0; i-- {
		if !strings.HasPrefix(files[i], journalDir+"/") {
			continue
		}
		img, _ := n.disk.File(files[i])
		ps, valid := Scan(img.Volatile)
		keep := max(len(ps)-ops, 0)
		ops -= len(ps) - keep
		size := valid
		for _, p := range ps[keep:] {
			size -= PrepareHeaderSize + len(p.Body)
		}
		n.disk.PutFile(files[i], img.Volatile[:size])
	}
	return nil
}
