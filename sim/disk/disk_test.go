package disk

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/iggygo/iggy/io/storage"
)

func TestCreateWriteReadSync(t *testing.T) {
	d := New(Options{Seed: 1})
	f := "streams/1/topics/2/partitions/0/00000000000000000000.log"
	ok(t, d, create(f), write(f, 0, []byte("hello "), []byte("vectored "), nil, []byte("world")), syncReq(f))
	if c := ok(t, d, read(f, 6, 100)); string(c[0].Data) != "vectored world" {
		t.Fatalf("read %q", c[0].Data)
	}
	// Create of an existing file keeps its content.
	ok(t, d, create(f))
	if c := ok(t, d, read(f, 0, 5)); string(c[0].Data) != "hello" {
		t.Fatalf("read after re-create %q", c[0].Data)
	}
	// A write past the end leaves a hole of zeros, as pwrite does.
	ok(t, d, write("streams/1/topics/2/partitions/0/00000000000000000000.log", 25, []byte("!")))
	c := ok(t, d, read(f, 18, 100))
	if !bytes.Equal(c[0].Data, []byte("ld\x00\x00\x00\x00\x00!")) {
		t.Fatalf("read across the hole %q", c[0].Data)
	}
}

func TestReadShortAtEOF(t *testing.T) {
	d := New(Options{})
	ok(t, d, create("f"), write("f", 0, []byte("abcdef")))
	cs := ok(t, d, read("f", 4, 10), read("f", 6, 10), read("f", 100, 10), read("f", 0, 0))
	for i, want := range []string{"ef", "", "", ""} {
		if string(cs[i].Data) != want {
			t.Errorf("read %d: %q, want %q", i, cs[i].Data, want)
		}
	}
}

func TestMissingFiles(t *testing.T) {
	d := New(Options{})
	cs := run(t, d, read("nope", 0, 4), write("nope", 0, []byte("x")), syncReq("nope"),
		truncate("nope", 0), list("nodir"), rename("nope", "other"), del("nodir/x"), delTree("nodir/x"))
	for i, c := range cs {
		if c.Result != storage.ResultNotFound || c.Err == "" {
			t.Errorf("completion %d: result %d, err %q", i, c.Result, c.Err)
		}
	}
	// Deleting what is not there succeeds when its directory exists.
	ok(t, d, del("nope"), delTree("nodir"))
}

func TestFileUsedAsDirectoryIsIOError(t *testing.T) {
	d := New(Options{})
	ok(t, d, create("file"), create("dir/x"))
	cs := run(t, d, create("file/child"), read("file/child", 0, 1), list("file"),
		read("dir", 0, 1), write("dir", 0, []byte("x")), create("dir"), del("dir"), rename("file", "dir"))
	for i, c := range cs {
		if c.Result != storage.ResultIOError {
			t.Errorf("completion %d: result %d, err %q", i, c.Result, c.Err)
		}
	}
}

func TestTruncateAndList(t *testing.T) {
	d := New(Options{})
	ok(t, d, create("seg"), write("seg", 0, bytes.Repeat([]byte("x"), 100)))
	ok(t, d, truncate("seg", 10))
	cs := ok(t, d, read("seg", 0, 100), list(storage.RootName))
	if len(cs[0].Data) != 10 {
		t.Fatalf("read %d bytes after truncate", len(cs[0].Data))
	}
	if e := cs[1].Entries; len(e) != 1 || e[0].Size != 10 {
		t.Fatalf("listing %+v", e)
	}
	ok(t, d, truncate("seg", 12))
	if c := ok(t, d, read("seg", 8, 100)); !bytes.Equal(c[0].Data, []byte("xx\x00\x00")) {
		t.Fatalf("read after growing truncate %q", c[0].Data)
	}
}

func TestListSortedWithSizes(t *testing.T) {
	d := New(Options{})
	names := []string{"p/00000000000000000100.log", "p/00000000000000000000.log", "p/00000000000000000000.index", "p/sub/x"}
	for i, n := range names {
		ok(t, d, create(n), write(n, 0, bytes.Repeat([]byte("z"), i+1)))
	}
	cs := ok(t, d, list("p"))
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

func TestRename(t *testing.T) {
	d := New(Options{})
	ok(t, d, create("d/tmp"), write("d/tmp", 0, []byte("snapshot")), create("e/keep"))
	ok(t, d, rename("d/tmp", "e/final"))
	cs := run(t, d, read("d/tmp", 0, 8), read("e/final", 0, 8))
	if cs[0].Result != storage.ResultNotFound || string(cs[1].Data) != "snapshot" {
		t.Fatalf("after rename: %+v", cs)
	}
	// Renaming onto an existing file replaces it.
	ok(t, d, create("e/other"), write("e/other", 0, []byte("new")), rename("e/other", "e/final"))
	if cs := ok(t, d, read("e/final", 0, 8)); string(cs[0].Data) != "new" {
		t.Fatalf("read %q", cs[0].Data)
	}
	// A directory moves with everything below it.
	ok(t, d, create("t/1/a"), create("t/1/sub/b"), write("t/1/sub/b", 0, []byte("b")))
	ok(t, d, rename("t/1", "t/2"))
	cs = run(t, d, list("t"), read("t/2/sub/b", 0, 1), list("t/1"))
	if fmt.Sprint(cs[0].Entries) != fmt.Sprint([]storage.Entry{{Name: "2", IsDir: true}}) ||
		string(cs[1].Data) != "b" || cs[2].Result != storage.ResultNotFound {
		t.Fatalf("after directory rename: %+v", cs)
	}
}

func TestDeleteAndDeleteTree(t *testing.T) {
	d := New(Options{})
	ok(t, d, create("s/1/a.log"), create("s/1/b.log"), create("s/2/c.log"), write("s/1/a.log", 0, []byte("a")))
	ok(t, d, del("s/1/b.log"))
	if cs := ok(t, d, list("s/1")); len(cs[0].Entries) != 1 || cs[0].Entries[0].Name != "a.log" {
		t.Fatalf("after delete: %+v", cs[0].Entries)
	}
	if cs := run(t, d, del("s/1")); cs[0].Result != storage.ResultIOError {
		t.Fatalf("delete of a non-empty directory: %+v", cs[0])
	}
	ok(t, d, delTree("s/1"))
	if cs := run(t, d, list("s/1"), read("s/2/c.log", 0, 1)); cs[0].Result != storage.ResultNotFound || cs[1].Result != storage.ResultOK {
		t.Fatalf("after delete-tree: %+v", cs)
	}
	// An empty directory can be deleted with OpDelete.
	ok(t, d, del("s/2/c.log"), del("s/2"))
	if cs := ok(t, d, list("s")); len(cs[0].Entries) != 0 {
		t.Fatalf("listing %+v", cs[0].Entries)
	}
}

func TestBadRequestsAreBugs(t *testing.T) {
	bad := []storage.Request{
		create("/etc/passwd"), create("../escape"), create("a/../../b"), create("a//b"), create("a/"),
		create(""), create("."), create("./a"), delTree("."),
		rename("a", "a/b"), rename("a", "../b"),
		{Op: storage.OpRead, File: "a", Len: storage.ReadBytesMax + 1}, {Op: 0, File: "a"},
		{Op: storage.OpSync, File: "a", Target: "b"}, {Op: storage.OpSync, File: "a", Data: [][]byte{{1}}},
	}
	for _, req := range bad {
		mustPanic(t, fmt.Sprintf("request %+v", req), func() { New(Options{}).Submit(req) })
	}
}

// The core must leave a write's bytes alone until it completes (the real
// disk writes them later, from the same buffer).
func TestWriteDataChangedBeforeCompletionIsCaught(t *testing.T) {
	d := New(Options{})
	ok(t, d, create("f"))
	buf := []byte("abc")
	d.Submit(write("f", 0, buf))
	buf[0] = 'X'
	mustPanic(t, "a write whose data changed", func() { d.Next() })
}
