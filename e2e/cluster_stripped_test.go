package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// covers VSR-5
// A node running the same release built stripped (-ldflags=-s -w: no
// symbol table, no DWARF) joins a set whose other nodes run the normal
// build: its peers admit it, so it learns a stream created on node 0
// (it has no root of its own, so it serves only what the set replicated).
func TestClusterAdmitsStrippedBuildOfSameRelease(t *testing.T) {
	stripped := filepath.Join(t.TempDir(), "iggy-server-stripped")
	build := exec.Command("go", "build", "-tags", "debug", "-ldflags=-s -w", "-o", stripped, "./cmd/iggy-server")
	build.Dir = ".."
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("build a stripped server: %v", err)
	}
	tc := startClusterOf(t, 3, map[int]string{2: stripped}, 2)
	s, err := tc.node(0).CreateStream("from-a-normal-build")
	if err != nil {
		t.Fatalf("create stream on node 0: %v", err)
	}
	c2 := tc.node(2)
	tc.eventually("stream listed on the stripped node", func() error {
		streams, err := c2.GetStreams()
		if err != nil {
			return err
		}
		if len(streams) != 1 || streams[0].ID != s.ID {
			return fmt.Errorf("streams %+v", streams)
		}
		return nil
	})
}
