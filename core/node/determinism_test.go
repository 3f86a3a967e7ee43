package node_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// The node is a deterministic function of its inputs: one scenario under
// one seed, run twice, gives byte-identical replies, disk requests and
// completions. Different seeds reorder the disk, so their traces differ
// while the scenario's output does not.
//
// covers STOR-7, SESS-18
func TestDeterminism(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			blocks := parseScript(t, path)
			outA, a := runScript(t, blocks, 11)
			outB, b := runScript(t, blocks, 11)
			if !bytes.Equal(a.trace.Bytes(), b.trace.Bytes()) {
				t.Fatalf("two runs of seed 11 differ: traces of %d and %d bytes, first difference at byte %d",
					a.trace.Len(), b.trace.Len(), firstDifference(a.trace.Bytes(), b.trace.Bytes()))
			}
			for i := range outA {
				if !slices.Equal(outA[i], outB[i]) {
					t.Fatalf("%s: outputs differ between two runs: %q / %q", blocks[i].command, outA[i], outB[i])
				}
			}
		})
	}
}

// Seeds matter: over a scenario with concurrent disk work, other seeds give
// other completion orders (otherwise the scenario tests one order only).
func TestSeedsReorderTheDisk(t *testing.T) {
	blocks := parseScript(t, "testdata/send_poll.txt")
	orders := map[string]bool{}
	for seed := uint64(1); seed <= 4; seed++ {
		_, w := runScript(t, blocks, seed)
		orders[fmt.Sprint(w.order)] = true
	}
	if len(orders) < 2 {
		t.Fatal("four seeds completed the disk requests in one order")
	}
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
