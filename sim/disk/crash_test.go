package disk

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/iggygo/iggy/io/storage"
)

func image(t *testing.T, d *Disk, path string) Image {
	t.Helper()
	img, found := d.File(path)
	if !found {
		t.Fatalf("%s missing", path)
	}
	return img
}

// Synced writes survive a crash, unsynced ones do not; names created,
// deleted and renamed before the crash stay so; requests in flight never run.
func TestCrashKeepsOnlyDurableImages(t *testing.T) {
	d := New(Options{Seed: 3})
	ok(t, d, create("j/wal"), write("j/wal", 0, []byte("op1|")), syncReq("j/wal"), write("j/wal", 4, []byte("op2|")))
	ok(t, d, create("p/seg"), write("p/seg", 0, []byte("lost")), create("gone"), del("gone"), create("r/tmp"))
	ok(t, d, write("r/tmp", 0, []byte("renamed")), rename("r/tmp", "r/final"))
	if img := image(t, d, "j/wal"); string(img.Volatile) != "op1|op2|" || string(img.Durable) != "op1|" {
		t.Fatalf("images before the crash: %q / %q", img.Volatile, img.Durable)
	}
	d.Submit(create("late"), write("j/wal", 8, []byte("op3|")))
	rep := d.Crash(rand.New(rand.NewPCG(1, 2)))
	if rep.Dropped != 2 || d.Pending() != 0 || len(rep.Files) != 2 {
		t.Fatalf("report %v", rep)
	}
	cs := run(t, d, read("j/wal", 0, 64), read("p/seg", 0, 64), read("gone", 0, 1), read("late", 0, 1), read("r/final", 0, 64))
	if string(cs[0].Data) != "op1|" || len(cs[1].Data) != 0 || cs[1].Result != storage.ResultOK ||
		cs[2].Result != storage.ResultNotFound || cs[3].Result != storage.ResultNotFound || string(cs[4].Data) != "renamed" {
		t.Fatalf("after crash: %+v", cs)
	}
	if rep.String() != "dropped 2 requests; j/wal kept 0 of 4 unsynced bytes, size 4; p/seg kept 0 of 4 unsynced bytes, size 0" {
		t.Fatalf("report %q", rep)
	}
}

// A torn crash keeps a prefix of the unsynced writes in completion order,
// the last one cut; truncate and create of an existing file sync it.
func TestCrashKeepingTearsInCompletionOrder(t *testing.T) {
	d := New(Options{})
	ok(t, d, create("f"), write("f", 0, []byte("aaaa")), write("f", 2, []byte("bbbb")), write("f", 10, []byte("cc")))
	d.CrashKeeping(func(path string, unsynced uint64) uint64 {
		if path != "f" || unsynced != 10 {
			t.Fatalf("keep asked for %s with %d bytes", path, unsynced)
		}
		return 6 // "aaaa" and "bb" of the second write
	})
	if img := image(t, d, "f"); string(img.Volatile) != "aabb" || !bytes.Equal(img.Volatile, img.Durable) {
		t.Fatalf("torn image %q", img.Volatile)
	}
	ok(t, d, write("f", 4, []byte("xx")), truncate("f", 5))
	d.CrashKeeping(func(string, uint64) uint64 { return 0 })
	if img := image(t, d, "f"); string(img.Durable) != "aabbx" {
		t.Fatalf("truncate did not sync: %q", img.Durable)
	}
	ok(t, d, write("f", 5, []byte("yy")), create("f"))
	d.Crash(rand.New(rand.NewPCG(1, 1)))
	if img := image(t, d, "f"); string(img.Durable) != "aabbxyy" {
		t.Fatalf("create of an existing file did not sync it: %q", img.Durable)
	}
}

// With TornWrites a random crash keeps some prefix of the unsynced bytes,
// different ones over seeds, never more than was written.
func TestRandomTornCrash(t *testing.T) {
	kept := map[int]bool{}
	for seed := range uint64(30) {
		d := New(Options{Seed: seed, TornWrites: true})
		ok(t, d, create("f"), write("f", 0, []byte("0123")), syncReq("f"), write("f", 4, []byte("4567")), write("f", 8, []byte("89")))
		d.Crash(d.Rand())
		img := image(t, d, "f")
		if !bytes.HasPrefix([]byte("0123456789"), img.Durable) || len(img.Durable) < 4 {
			t.Fatalf("seed %d: image %q", seed, img.Durable)
		}
		kept[len(img.Durable)] = true
	}
	if len(kept) < 4 {
		t.Fatalf("torn crashes kept only sizes %v", kept)
	}
}

// Past unsyncedWritesMax writes the oldest is written back on its own.
func TestUnsyncedWritesBounded(t *testing.T) {
	d := New(Options{})
	ok(t, d, create("f"))
	for i := range unsyncedWritesMax + 2 {
		ok(t, d, write("f", uint64(i), []byte{byte(i)}))
	}
	d.CrashKeeping(func(string, uint64) uint64 { return 0 })
	if img := image(t, d, "f"); len(img.Durable) != 2 || img.Durable[1] != 1 {
		t.Fatalf("after %d writes, durable %d bytes", unsyncedWritesMax+2, len(img.Durable))
	}
}

// Kill drops requests in flight and keeps the page cache.
func TestKillKeepsVolatile(t *testing.T) {
	d := New(Options{})
	ok(t, d, create("f"), write("f", 0, []byte("cached")))
	d.Submit(write("f", 6, []byte("never")))
	if n := d.Kill(); n != 1 {
		t.Fatalf("dropped %d", n)
	}
	if c := ok(t, d, read("f", 0, 64)); string(c[0].Data) != "cached" {
		t.Fatalf("read %q", c[0].Data)
	}
}

// A clone goes on exactly as the original would, and they share nothing.
func TestCloneIsIndependentAndAlike(t *testing.T) {
	d := New(Options{Seed: 9})
	ok(t, d, create("a/f"), create("b/f"), write("a/f", 0, []byte("synced")), syncReq("a/f"), write("a/f", 6, []byte("+dirty")))
	d.Submit(write("b/f", 0, []byte("b1")), write("a/f", 0, []byte("A")), read("a/f", 0, 64), read("b/f", 0, 64))
	c := d.Clone()
	one, two := d.Drain(), c.Drain()
	if len(one) != 4 || len(two) != 4 {
		t.Fatal("drained counts differ")
	}
	for i := range one {
		if one[i].ID != two[i].ID || !bytes.Equal(one[i].Data, two[i].Data) {
			t.Fatalf("completion %d differs: %+v / %+v", i, one[i], two[i])
		}
	}
	c.CrashKeeping(func(string, uint64) uint64 { return 0 })
	if img := image(t, d, "a/f"); string(img.Volatile) != "Aynced+dirty" {
		t.Fatalf("the crash of the clone reached the original: %q", img.Volatile)
	}
	if img := image(t, c, "a/f"); string(img.Volatile) != "synced" {
		t.Fatalf("clone after crash: %q", img.Volatile)
	}
}

func TestPutFileIsDurable(t *testing.T) {
	d := New(Options{})
	d.PutFile("metadata/journal.wal", []byte("garbage"))
	d.CrashKeeping(func(string, uint64) uint64 { return 0 })
	cs := ok(t, d, list("metadata"), read("metadata/journal.wal", 0, 64))
	if len(cs[0].Entries) != 1 || cs[0].Entries[0].Size != 7 || string(cs[1].Data) != "garbage" {
		t.Fatalf("after PutFile: %+v", cs)
	}
	if got := d.Files(); len(got) != 1 || got[0] != "metadata/journal.wal" {
		t.Fatalf("files %v", got)
	}
}

func TestFaults(t *testing.T) {
	failWrites := func(req *storage.Request, _ *rand.Rand) Fault {
		switch req.Op {
		case storage.OpWrite:
			return FaultIOError
		case storage.OpRead:
			return FaultCorruptRead
		}
		return FaultNone
	}
	d := New(Options{Seed: 5, Faults: failWrites})
	d.PutFile("f", []byte("clean"))
	cs := run(t, d, write("f", 0, []byte("XXXXX")), read("f", 0, 64))
	if cs[0].Result != storage.ResultIOError || cs[0].Err == "" {
		t.Fatalf("write: %+v", cs[0])
	}
	if img := image(t, d, "f"); string(img.Volatile) != "clean" {
		t.Fatalf("a failed write changed the file: %q", img.Volatile)
	}
	flipped := 0
	for i := range cs[1].Data {
		for b := cs[1].Data[i] ^ "clean"[i]; b != 0; b &= b - 1 {
			flipped++
		}
	}
	if flipped != 1 {
		t.Fatalf("corrupt read flipped %d bits: %q", flipped, cs[1].Data)
	}
}

// A misdirected write reports success, leaves the bytes it was asked to
// write where they were, and lands whole one to eight sectors further.
func TestMisdirectedWrite(t *testing.T) {
	misdirect := func(req *storage.Request, _ *rand.Rand) Fault {
		if req.Op == storage.OpWrite {
			return FaultMisdirectedWrite
		}
		return FaultNone
	}
	d := New(Options{Seed: 9, Faults: misdirect})
	d.PutFile("f", []byte("clean"))
	cs := run(t, d, write("f", 0, []byte("XXXXX")))
	img := image(t, d, "f")
	if cs[0].Result != storage.ResultOK || string(img.Volatile[:5]) != "clean" {
		t.Fatalf("write %+v left %q", cs[0], img.Volatile[:5])
	}
	at := len(img.Volatile) - 5
	if at%misdirectSectorBytes != 0 || at < misdirectSectorBytes || at > 8*misdirectSectorBytes || string(img.Volatile[at:]) != "XXXXX" {
		t.Fatalf("the write landed at %d: %q", at, img.Volatile[at:])
	}
}
