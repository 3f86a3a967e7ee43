package disk

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/iggygo/iggy/io/storage"
)

// newUringOrSkip skips only where the kernel (or a sandbox) refuses io_uring.
func newUringOrSkip(t testing.TB) *Uring {
	t.Helper()
	u, err := NewUring()
	if errors.Is(err, errUringUnsupported) {
		t.Skipf("io_uring is unavailable on this kernel: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// eachBackend runs f against Pwrite and against Uring, so both show the
// same behaviour.
func eachBackend(t *testing.T, f func(t *testing.T, b Backend)) {
	t.Run("pwrite", func(t *testing.T) { f(t, Pwrite{}) })
	t.Run("uring", func(t *testing.T) {
		u := newUringOrSkip(t)
		t.Cleanup(u.Shutdown) // registered first, so it runs after the Disk's Close
		f(t, u)
	})
}

func TestUringABISizes(t *testing.T) {
	if unsafe.Sizeof(sqe{}) != 64 || unsafe.Sizeof(cqe{}) != 16 || unsafe.Sizeof(uringParams{}) != 120 {
		t.Fatalf("sqe %d, cqe %d, params %d bytes", unsafe.Sizeof(sqe{}), unsafe.Sizeof(cqe{}), unsafe.Sizeof(uringParams{}))
	}
}

func TestBackendCallsDirectly(t *testing.T) {
	eachBackend(t, func(t *testing.T, b Backend) {
		path := filepath.Join(t.TempDir(), "f")
		fd, err := b.Open(path, true)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close(fd)
		if err := b.WriteAt(fd, [][]byte{[]byte("abc"), nil, {}, []byte("defgh")}, 2); err != nil {
			t.Fatal(err)
		}
		if err := b.Datasync(fd); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 20)
		n, err := b.ReadAt(fd, buf, 0)
		if err != nil || n != 10 || string(buf[:n]) != "\x00\x00abcdefgh" {
			t.Fatalf("read %d %q %v", n, buf[:n], err)
		}
		if err := b.Truncate(fd, 4); err != nil {
			t.Fatal(err)
		}
		if n, err := b.ReadAt(fd, buf, 0); err != nil || n != 4 {
			t.Fatalf("after truncate read %d %v", n, err)
		}
		if n, err := b.ReadAt(fd, buf, 100); err != nil || n != 0 {
			t.Fatalf("read past the end %d %v", n, err)
		}
		if err := b.WriteAt(fd, nil, 0); err != nil {
			t.Fatalf("empty write: %v", err)
		}
	})
}

func TestBackendErrorsAreErrnos(t *testing.T) {
	eachBackend(t, func(t *testing.T, b Backend) {
		fd, err := b.Open(filepath.Join(t.TempDir(), "f"), true)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Close(fd); err != nil {
			t.Fatal(err)
		}
		if err := b.WriteAt(fd, [][]byte{[]byte("x")}, 0); !errors.Is(err, unix.EBADF) {
			t.Errorf("write to a closed descriptor: %v", err)
		}
		if _, err := b.ReadAt(fd, make([]byte, 4), 0); !errors.Is(err, unix.EBADF) {
			t.Errorf("read of a closed descriptor: %v", err)
		}
		if err := b.Datasync(fd); !errors.Is(err, unix.EBADF) {
			t.Errorf("sync of a closed descriptor: %v", err)
		}
	})
}

func TestBackendThroughDisk(t *testing.T) {
	eachBackend(t, func(t *testing.T, b Backend) {
		root := t.TempDir()
		td := newTestDisk(t, root, Options{Backend: b})
		td.ok(create("streams/1/p/0.log"))
		td.ok(write("streams/1/p/0.log", 0, []byte("hello "), []byte("vectored "), nil, []byte("world")))
		td.ok(syncReq("streams/1/p/0.log"))
		if cs := td.ok(read("streams/1/p/0.log", 6, 100)); string(cs[0].Data) != "vectored world" {
			t.Fatalf("read %q", cs[0].Data)
		}
		td.ok(storage.Request{Op: storage.OpTruncate, File: "streams/1/p/0.log", Offset: 5})
		cs := td.ok(read("streams/1/p/0.log", 0, 100), read("streams/1/p/0.log", 5, 10))
		if string(cs[0].Data) != "hello" || len(cs[1].Data) != 0 {
			t.Fatalf("after truncate %q %q", cs[0].Data, cs[1].Data)
		}
		miss := td.run(read("nope", 0, 4), write("nope", 0, []byte("x")), syncReq("nope"))
		for i, c := range miss {
			if c.Result != storage.ResultNotFound || !strings.Contains(c.Err, "nope") {
				t.Errorf("missing file, request %d: result %d %q", i, c.Result, c.Err)
			}
		}
	})
}

// More buffers than one writev takes, large buffers, and a caller's slice
// that must stay intact.
func TestBackendLargeVectoredWrite(t *testing.T) {
	eachBackend(t, func(t *testing.T, b Backend) {
		root := t.TempDir()
		td := newTestDisk(t, root, Options{Backend: b})
		var bufs [][]byte
		var want bytes.Buffer
		for i := range 2*iovecsPerCallMax + 3 {
			c := bytes.Repeat([]byte{byte(i)}, 1+i%4096)
			bufs = append(bufs, c)
			want.Write(c)
		}
		before := fmt.Sprint(len(bufs), len(bufs[0]), len(bufs[len(bufs)-1]))
		td.ok(create("big"), write("big", 7, bufs...), syncReq("big"))
		got, err := os.ReadFile(filepath.Join(root, "big"))
		if err != nil || !bytes.Equal(got[7:], want.Bytes()) {
			t.Fatalf("content differs (%d bytes, %v)", len(got), err)
		}
		if after := fmt.Sprint(len(bufs), len(bufs[0]), len(bufs[len(bufs)-1])); after != before {
			t.Fatal("the caller's buffers were changed")
		}
		cs := td.ok(read("big", 7, uint64(want.Len())))
		if !bytes.Equal(cs[0].Data, want.Bytes()) {
			t.Fatal("read back differs")
		}
	})
}

// Many files written, synced and read at once from every worker: each read
// sees the write submitted before it.
func TestBackendConcurrentFiles(t *testing.T) {
	eachBackend(t, func(t *testing.T, b Backend) {
		const files, rounds = 12, 40
		td := newTestDisk(t, t.TempDir(), Options{Backend: b, Workers: 8})
		var reqs []storage.Request
		for f := range files {
			reqs = append(reqs, create(fmt.Sprintf("p/%d/seg", f)))
		}
		td.ok(reqs...)
		reqs = reqs[:0]
		for j := range uint64(rounds) {
			for f := range files {
				name := fmt.Sprintf("p/%d/seg", f)
				reqs = append(reqs, write(name, 8*j, seq(j)), syncReq(name), read(name, 8*j, 8))
			}
		}
		cs := td.ok(reqs...)
		for i, c := range cs {
			if reqs[i].Op == storage.OpRead && string(c.Data) != string(seq(uint64(i/(3*files)))) {
				t.Fatalf("%s read %x", reqs[i].File, c.Data)
			}
		}
	})
}

// More callers than ring entries wait for a slot instead of overrunning it.
func TestUringMoreCallersThanEntries(t *testing.T) {
	u := newUringOrSkip(t)
	defer u.Shutdown()
	fd, err := u.Open(filepath.Join(t.TempDir(), "f"), true)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close(fd)
	var wg sync.WaitGroup
	errs := make(chan error, 4*uringEntries)
	for i := range 4 * uringEntries {
		wg.Go(func() {
			if err := u.WriteAt(fd, [][]byte{seq(uint64(i))}, int64(8*i)); err != nil {
				errs <- err
			}
			if err := u.Datasync(fd); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	for i := range 4 * uringEntries {
		if _, err := u.ReadAt(fd, buf, int64(8*i)); err != nil || !bytes.Equal(buf, seq(uint64(i))) {
			t.Fatalf("slot %d: %x %v", i, buf, err)
		}
	}
}

func TestSelectBackend(t *testing.T) {
	b, line, release, err := SelectBackend(BackendPwrite)
	if err != nil || b != (Pwrite{}) || !strings.Contains(line, "pwrite") {
		t.Fatalf("pwrite: %v %q %v", b, line, err)
	}
	release()
	b, line, release, err = SelectBackend(BackendAuto)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	_, isUring := b.(*Uring)
	if isUring != strings.Contains(line, "io_uring") || !isUring && !strings.Contains(line, "fallback") {
		t.Fatalf("auto chose %T, logged %q", b, line)
	}
	t.Log(line)
	if _, _, _, err := SelectBackend("spdk"); err == nil {
		t.Fatal("unknown backend accepted")
	}
}

func BenchmarkBackendSequentialWrite(b *testing.B) {
	for _, name := range []string{"pwrite", "uring"} {
		b.Run(name, func(b *testing.B) {
			var backend Backend = Pwrite{}
			if name == "uring" {
				u := newUringOrSkip(b)
				defer u.Shutdown()
				backend = u
			}
			fd, err := backend.Open(filepath.Join(b.TempDir(), "f"), true)
			if err != nil {
				b.Fatal(err)
			}
			defer backend.Close(fd)
			bufs := [][]byte{make([]byte, benchWriteBytes)}
			b.SetBytes(benchWriteBytes)
			for i := 0; b.Loop(); i++ {
				if err := backend.WriteAt(fd, bufs, int64(i*benchWriteBytes%benchFileBytes)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Writes at or under the inline bound are pwritev on the caller, larger ones
// go through the ring; interleaved on one file, each lands where it was put.
func TestUringWritesOnBothSidesOfTheInlineBound(t *testing.T) {
	u := newUringOrSkip(t)
	defer u.Shutdown()
	fd, err := u.Open(filepath.Join(t.TempDir(), "f"), true)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close(fd)
	var want []byte
	for i, size := range []int{uringInlineWriteBytesMax + 1, 16, uringInlineWriteBytesMax, 3 * uringInlineWriteBytesMax, 1} {
		chunk := bytes.Repeat([]byte{byte('a' + i)}, size)
		half := size / 2 // two buffers, so the vectored path is used on both sides
		if err := u.WriteAt(fd, [][]byte{chunk[:half], chunk[half:]}, int64(len(want))); err != nil {
			t.Fatalf("write %d of %d bytes: %v", i, size, err)
		}
		want = append(want, chunk...)
	}
	got := make([]byte, len(want)+1)
	n, err := u.ReadAt(fd, got, 0)
	if err != nil || n != len(want) || !bytes.Equal(got[:n], want) {
		t.Fatalf("read %d of %d bytes (%v); content equal: %v", n, len(want), err, bytes.Equal(got[:n], want))
	}
}

// Files the server creates are its own: 0600, and directories 0700, on both
// backends, whatever the umask lets through (issue 11 item 8: the journal
// with argon2id hashes was world-readable).
func TestBackendCreatesPrivateFilesAndDirectories(t *testing.T) {
	eachBackend(t, func(t *testing.T, b Backend) {
		root := t.TempDir()
		td := newTestDisk(t, root, Options{Backend: b})
		td.ok(create("metadata/journal/00000000000000000001.wal"))
		td.ok(storage.Request{Op: storage.OpRename, File: "metadata/journal/00000000000000000001.wal",
			Target: "metadata/journal/00000000000000000002.wal"})
		for path, want := range map[string]os.FileMode{
			"metadata":         os.ModeDir | 0o700,
			"metadata/journal": os.ModeDir | 0o700,
			"metadata/journal/00000000000000000002.wal": 0o600,
		} {
			st, err := os.Stat(filepath.Join(root, path))
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode() != want {
				t.Errorf("%s: mode %v, want %v", path, st.Mode(), want)
			}
		}
	})
}
