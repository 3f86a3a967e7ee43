package storagegate

import (
	"os"
	"path/filepath"
	"testing"
)

// covers STOR-6
func TestFreshDeletesOnlyTheSystemPath(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "local_data")
	sibling := filepath.Join(parent, "other")
	writeFile(t, filepath.Join(sibling, "keep"), "keep me")
	if _, err := Check(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "streams", "1", "seg.log"), "data")
	writeFile(t, filepath.Join(dir, "metadata", "journal"), "ops")
	siblingBefore := snapshot(t, sibling)

	if err := Fresh(dir); err != nil {
		t.Fatal(err)
	}
	if names, err := probeNames(dir); err != nil || len(names) != 0 {
		t.Fatalf("system path not emptied: %v %v", names, err)
	}
	if snapshot(t, sibling) != siblingBefore {
		t.Fatal("fresh touched a sibling directory")
	}
	if state, err := Check(dir); err != nil || state != StateInitialized {
		t.Fatalf("after fresh: %v, %v", state, err)
	}
}

// --fresh is the way out of a refused directory.
// covers STOR-6
func TestFreshClearsARefusedDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, MarkerFile), "IGGY-BOUND-GRANTS-5\n")
	writeFile(t, filepath.Join(dir, "state", "log"), "old")
	if _, err := Check(dir); err == nil {
		t.Fatal("legacy directory admitted")
	}
	if err := Fresh(dir); err != nil {
		t.Fatal(err)
	}
	if state, err := Check(dir); err != nil || state != StateInitialized {
		t.Fatalf("after fresh: %v, %v", state, err)
	}
}

// A symbolic link keeps pointing at its (now empty) target.
// covers STOR-6
func TestFreshThroughSymlinkEmptiesTheTarget(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "volume")
	link := filepath.Join(parent, "local_data")
	writeFile(t, filepath.Join(target, "metadata", "journal"), "ops")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Fresh(link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link gone: %v", err)
	}
	if names, _ := probeNames(target); len(names) != 0 {
		t.Fatalf("target not emptied: %v", names)
	}
}

// covers STOR-6
func TestFreshRefusals(t *testing.T) {
	file := filepath.Join(t.TempDir(), "data")
	writeFile(t, file, "x")
	for _, path := range []string{"", "/", file} {
		if err := Fresh(path); err == nil {
			t.Errorf("Fresh(%q) succeeded", path)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "x" {
		t.Fatal("refused Fresh changed the file")
	}
	if err := Fresh(filepath.Join(t.TempDir(), "missing")); err != nil {
		t.Fatalf("missing path: %v", err)
	}
}
