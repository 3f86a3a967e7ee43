package storagegate

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// snapshot lists every entry below root with its mode, size, mtime and a hash
// of its content, so any change to a refused directory shows up.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v %d %d", path, info.Mode(), info.Size(), info.ModTime().UnixNano())
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func assertMarker(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	if err != nil || string(b) != FormatIdentity+"\n" {
		t.Fatalf("marker in %s: %q, %v", dir, b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, markerTemp)); !os.IsNotExist(err) {
		t.Fatalf("temporary marker left behind: %v", err)
	}
}

// covers STOR-1, STOR-2
func TestEmptyDirectoryIsInitialized(t *testing.T) {
	dir := t.TempDir()
	state, err := Check(dir)
	if err != nil || state != StateInitialized {
		t.Fatalf("got %v, %v", state, err)
	}
	assertMarker(t, dir)
}

// covers STOR-1
func TestMissingDirectoryIsInitialized(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "local_data")
	state, err := Check(dir)
	if err != nil || state != StateInitialized {
		t.Fatalf("got %v, %v", state, err)
	}
	assertMarker(t, dir)
}

// An initialization that crashed before publishing its marker is redone.
// covers STOR-1
func TestInterruptedInitializationIsRedone(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, markerTemp), "IGGY-MET")
	state, err := Check(dir)
	if err != nil || state != StateInitialized {
		t.Fatalf("got %v, %v", state, err)
	}
	assertMarker(t, dir)
}

// covers STOR-2, STOR-7
func TestOurDirectoryIsAdmittedUnchanged(t *testing.T) {
	dir := t.TempDir()
	if _, err := Check(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "metadata", "journal"), "ops")
	before := snapshot(t, dir)
	state, err := Check(dir)
	if err != nil || state != StateExisting {
		t.Fatalf("got %v, %v", state, err)
	}
	if after := snapshot(t, dir); after != before {
		t.Fatalf("admitting changed the directory:\n%s\n---\n%s", before, after)
	}
}

// covers STOR-2, STOR-3, STOR-4, STOR-5
func TestForeignDirectoriesAreRefusedUnmodified(t *testing.T) {
	cases := map[string]func(dir string){
		"legacy marker": func(dir string) {
			writeFile(t, filepath.Join(dir, MarkerFile), "IGGY-BOUND-GRANTS-5\n")
			writeFile(t, filepath.Join(dir, "metadata", "journal"), "old ops")
		},
		"resource options marker": func(dir string) {
			writeFile(t, filepath.Join(dir, MarkerFile), "IGGY-RESOURCE-OPTIONS-1\n")
		},
		"unknown marker": func(dir string) {
			writeFile(t, filepath.Join(dir, MarkerFile), "something else\n")
		},
		"marker is a directory": func(dir string) {
			writeFile(t, filepath.Join(dir, MarkerFile, "x"), "")
		},
		"oversized marker": func(dir string) {
			writeFile(t, filepath.Join(dir, MarkerFile), FormatIdentity+"\n"+strings.Repeat(" ", markerBytesMax))
		},
		"0.9.x layout without marker": func(dir string) {
			writeFile(t, filepath.Join(dir, "streams", "1", "topics", "1", "partitions", "1", "00000000000000000000.log"), "msgs")
			writeFile(t, filepath.Join(dir, "state", "log"), "entries")
		},
		"temporary marker beside data": func(dir string) {
			writeFile(t, filepath.Join(dir, markerTemp), FormatIdentity+"\n")
			writeFile(t, filepath.Join(dir, "metadata", "journal"), "ops")
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			build(dir)
			before := snapshot(t, dir)
			state, err := Check(dir)
			if err == nil {
				t.Fatalf("admitted as %v", state)
			}
			if !strings.Contains(err.Error(), dir) {
				t.Errorf("error %q does not name the path", err)
			}
			if after := snapshot(t, dir); after != before {
				t.Fatalf("refusal changed the directory:\n%s\n---\n%s", before, after)
			}
		})
	}
}

// covers STOR-3
func TestLegacyRefusalNamesTheFormat(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, MarkerFile), "IGGY-BOUND-GRANTS-4\n")
	_, err := Check(dir)
	if err == nil || !strings.Contains(err.Error(), "IGGY-BOUND-GRANTS-4") || !strings.Contains(err.Error(), FormatIdentity) {
		t.Fatalf("error %v does not name both formats", err)
	}
}

func TestSystemPathThatIsAFileIsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "data")
	writeFile(t, file, "x")
	if _, err := Check(file); err == nil {
		t.Fatal("a file admitted as storage")
	}
	if _, err := Check(""); err == nil {
		t.Fatal("an empty path admitted")
	}
}

// A directory the gate creates, and its marker, are the server's own: 0700
// and 0600 (issue 11 item 8).
func TestCreatedStorageIsPrivate(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "a")
	dir := filepath.Join(parent, "local_data")
	if _, err := Check(dir); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{
		parent: os.ModeDir | 0o700, dir: os.ModeDir | 0o700, filepath.Join(dir, MarkerFile): 0o600,
	} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, st.Mode(), want)
		}
	}
}
