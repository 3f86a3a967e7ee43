package disk

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iggygo/iggy/io/storage"
)

func TestCreateWriteReadSync(t *testing.T) {
	root := t.TempDir()
	td := newTestDisk(t, root, Options{})
	td.ok(create("streams/1/topics/2/p/0.log"))
	td.ok(write("streams/1/topics/2/p/0.log", 0, []byte("hello "), []byte("vectored "), nil, []byte("world")))
	td.ok(syncReq("streams/1/topics/2/p/0.log"))
	cs := td.ok(read("streams/1/topics/2/p/0.log", 6, 100))
	if string(cs[0].Data) != "vectored world" {
		t.Fatalf("read %q", cs[0].Data)
	}
	got, err := os.ReadFile(filepath.Join(root, "streams/1/topics/2/p/0.log"))
	if err != nil || string(got) != "hello vectored world" {
		t.Fatalf("on disk %q, %v", got, err)
	}
	// Create of an existing file keeps its content.
	td.ok(create("streams/1/topics/2/p/0.log"))
	if cs := td.ok(read("streams/1/topics/2/p/0.log", 0, 5)); string(cs[0].Data) != "hello" {
		t.Fatalf("read after re-create %q", cs[0].Data)
	}
}

// More buffers than one pwritev takes, and a caller's slice that must stay intact.
func TestVectoredWriteBeyondIovMax(t *testing.T) {
	root := t.TempDir()
	td := newTestDisk(t, root, Options{})
	var bufs [][]byte
	var want bytes.Buffer
	for i := range 3*iovecsPerCallMax + 7 {
		b := []byte(fmt.Sprintf("<%d>", i))
		bufs = append(bufs, b)
		want.Write(b)
	}
	before := fmt.Sprint(bufs)
	td.ok(create("big"), write("big", 10, bufs...))
	got, _ := os.ReadFile(filepath.Join(root, "big"))
	if !bytes.Equal(got[10:], want.Bytes()) || !bytes.Equal(got[:10], make([]byte, 10)) {
		t.Fatal("vectored write content differs")
	}
	if fmt.Sprint(bufs) != before {
		t.Fatal("the caller's buffers were changed")
	}
}

func TestMissingFiles(t *testing.T) {
	td := newTestDisk(t, t.TempDir(), Options{})
	cs := td.run(read("nope", 0, 4), write("nope", 0, []byte("x")), syncReq("nope"),
		storage.Request{Op: storage.OpTruncate, File: "nope"},
		storage.Request{Op: storage.OpList, File: "nodir"},
		storage.Request{Op: storage.OpRename, File: "nope", Target: "other"})
	for i, c := range cs {
		if c.Result != storage.ResultNotFound || !strings.Contains(c.Err, "nope") && !strings.Contains(c.Err, "nodir") {
			t.Errorf("completion %d: result %d, err %q", i, c.Result, c.Err)
		}
	}
	// Deleting what is not there succeeds.
	td.ok(storage.Request{Op: storage.OpDelete, File: "nope"}, storage.Request{Op: storage.OpDeleteTree, File: "nodir"})
}

func TestIOErrorNamesPath(t *testing.T) {
	root := t.TempDir()
	td := newTestDisk(t, root, Options{})
	td.ok(create("file"))
	// A file used as a directory is an I/O error, not "not found".
	cs := td.run(create("file/child"))
	if cs[0].Result != storage.ResultIOError || !strings.Contains(cs[0].Err, filepath.Join(root, "file/child")) {
		t.Fatalf("result %d, err %q", cs[0].Result, cs[0].Err)
	}
}

func TestReadShortAtEOF(t *testing.T) {
	td := newTestDisk(t, t.TempDir(), Options{})
	td.ok(create("f"), write("f", 0, []byte("abcdef")))
	cs := td.ok(read("f", 4, 10), read("f", 6, 10), read("f", 100, 10), read("f", 0, 0))
	for i, want := range []string{"ef", "", "", ""} {
		if string(cs[i].Data) != want {
			t.Errorf("read %d: %q, want %q", i, cs[i].Data, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	td := newTestDisk(t, t.TempDir(), Options{})
	td.ok(create("seg"), write("seg", 0, bytes.Repeat([]byte("x"), 100)))
	td.ok(storage.Request{Op: storage.OpTruncate, File: "seg", Offset: 10})
	cs := td.ok(read("seg", 0, 100), storage.Request{Op: storage.OpList, File: storage.RootName})
	if len(cs[0].Data) != 10 {
		t.Fatalf("read %d bytes after truncate", len(cs[0].Data))
	}
	if e := cs[1].Entries; len(e) != 1 || e[0].Size != 10 {
		t.Fatalf("listing %+v", e)
	}
}

func TestRenameClosesOldDescriptor(t *testing.T) {
	root := t.TempDir()
	td := newTestDisk(t, root, Options{})
	td.ok(create("d/tmp"), write("d/tmp", 0, []byte("snapshot")), create("e/keep"))
	td.ok(storage.Request{Op: storage.OpRename, File: "d/tmp", Target: "e/final"})
	cs := td.run(read("d/tmp", 0, 8), read("e/final", 0, 8))
	if cs[0].Result != storage.ResultNotFound || string(cs[1].Data) != "snapshot" {
		t.Fatalf("after rename: %+v", cs)
	}
	// Renaming onto an existing file replaces it.
	td.ok(create("e/other"), write("e/other", 0, []byte("new")), storage.Request{Op: storage.OpRename, File: "e/other", Target: "e/final"})
	if cs := td.ok(read("e/final", 0, 8)); string(cs[0].Data) != "new" {
		t.Fatalf("read %q", cs[0].Data)
	}
}

func TestDeleteAndDeleteTree(t *testing.T) {
	root := t.TempDir()
	td := newTestDisk(t, root, Options{})
	td.ok(create("s/1/a.log"), create("s/1/b.log"), create("s/2/c.log"), write("s/1/a.log", 0, []byte("a")))
	td.ok(storage.Request{Op: storage.OpDelete, File: "s/1/b.log"})
	cs := td.ok(storage.Request{Op: storage.OpList, File: "s/1"})
	if len(cs[0].Entries) != 1 || cs[0].Entries[0].Name != "a.log" {
		t.Fatalf("after delete: %+v", cs[0].Entries)
	}
	td.ok(storage.Request{Op: storage.OpDeleteTree, File: "s/1"})
	if _, err := os.Stat(filepath.Join(root, "s/1")); !os.IsNotExist(err) {
		t.Fatalf("tree still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "s/2/c.log")); err != nil {
		t.Fatalf("sibling gone: %v", err)
	}
	// An empty directory can be deleted with OpDelete.
	td.ok(storage.Request{Op: storage.OpDelete, File: "s/2/c.log"}, storage.Request{Op: storage.OpDelete, File: "s/2"})
}

func TestListSortedWithSizes(t *testing.T) {
	td := newTestDisk(t, t.TempDir(), Options{})
	names := []string{"p/00000000000000000100.log", "p/00000000000000000000.log", "p/00000000000000000000.index", "p/sub/x"}
	for i, n := range names {
		td.ok(create(n), write(n, 0, bytes.Repeat([]byte("z"), i+1)))
	}
	cs := td.ok(storage.Request{Op: storage.OpList, File: "p"})
	want := []storage.Entry{
		{Name: "00000000000000000000.index", Size: 3},
		{Name: "00000000000000000000.log", Size: 2},
		{Name: "00000000000000000100.log", Size: 1},
		{Name: "sub", IsDir: true},
	}
	if fmt.Sprint(cs[0].Entries) != fmt.Sprint(want) {
		t.Fatalf("listing %+v", cs[0].Entries)
	}
}

func TestBadPathsAreBugs(t *testing.T) {
	td := newTestDisk(t, t.TempDir(), Options{})
	bad := []storage.Request{
		create("/etc/passwd"), create("../escape"), create("a/../../b"), create("a//b"), create("a/"),
		create(""), create("."), create("./a"), {Op: storage.OpDeleteTree, File: "."},
		{Op: storage.OpRename, File: "a", Target: "a/b"}, {Op: storage.OpRename, File: "a", Target: "../b"},
		{Op: storage.OpRead, File: "a", Len: storage.ReadBytesMax + 1}, {Op: 0, File: "a"},
		{Op: storage.OpSync, File: "a", Target: "b"},
	}
	for _, req := range bad {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("request %+v accepted", req)
				}
			}()
			_ = td.d.Submit(req)
		}()
	}
}

// A read with a lent buffer (Into) fills it: the data is a prefix of it,
// on either backend's ReadAt path.
func TestReadIntoLentBuffer(t *testing.T) {
	td := newTestDisk(t, t.TempDir(), Options{})
	td.ok(create("f"), write("f", 0, []byte("abcdef")))
	lent := make([]byte, 4, 16) // shorter than the read: its capacity counts
	req := read("f", 1, 8)
	req.Into = lent
	cs := td.ok(req)
	if string(cs[0].Data) != "bcdef" || &cs[0].Data[0] != &lent[:1][0] {
		t.Fatalf("read %q, not into the lent buffer", cs[0].Data)
	}
}
