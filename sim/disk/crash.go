package disk

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// FileLoss is what a crash did to one file with unsynced writes.
type FileLoss struct {
	Path      string
	Unsynced  uint64 // bytes of unsynced writes before the crash
	Kept      uint64 // of those, the bytes that survived (a torn prefix)
	SizeAfter uint64
}

// CrashReport says what a crash threw away.
type CrashReport struct {
	Dropped int        // requests in flight, never executed
	Files   []FileLoss // files that had unsynced writes, by path
}

func (r CrashReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dropped %d requests", r.Dropped)
	for _, f := range r.Files {
		fmt.Fprintf(&b, "; %s kept %d of %d unsynced bytes, size %d", f.Path, f.Kept, f.Unsynced, f.SizeAfter)
	}
	return b.String()
}

// Crash is a power loss: every request in flight is dropped and every file
// goes back to its durable image. With Options.TornWrites, each file keeps
// a random prefix (drawn from rng) of its unsynced writes, in the order they
// completed, the last kept write cut at a random byte.
func (d *Disk) Crash(rng *rand.Rand) CrashReport {
	return d.CrashKeeping(func(_ string, unsynced uint64) uint64 {
		if !d.opts.TornWrites {
			return 0
		}
		return rng.Uint64N(unsynced + 1)
	})
}

// CrashKeeping is Crash with the torn prefix chosen by keep: for each file
// with unsynced writes, how many of those bytes (counted over the writes in
// completion order) survive. Tests use it to tear a chosen file exactly.
func (d *Disk) CrashKeeping(keep func(path string, unsyncedBytes uint64) uint64) CrashReport {
	r := CrashReport{Dropped: d.Kill()}
	for _, p := range d.Files() {
		f := d.fs.files[p]
		if len(f.unsynced) == 0 {
			continue
		}
		total := uint64(0)
		for _, w := range f.unsynced {
			total += uint64(len(w.data))
		}
		budget := min(keep(p, total), total)
		kept := budget
		for _, w := range f.unsynced {
			n := min(budget, uint64(len(w.data)))
			if n == 0 {
				break // a write that did not reach the disk does not extend the file either
			}
			f.durable = writeAt(f.durable, w.offset, w.data[:n])
			budget -= n
		}
		f.volatile = slices.Clone(f.durable)
		f.unsynced = nil
		r.Files = append(r.Files, FileLoss{Path: p, Unsynced: total, Kept: kept, SizeAfter: uint64(len(f.durable))})
	}
	return r
}

// Kill is the death of the process alone: requests in flight are dropped
// (none of them ran), the page cache survives. It returns how many were dropped.
func (d *Disk) Kill() int {
	n := len(d.pending)
	d.pending = nil
	return n
}

// Clone is an independent copy of the disk: files with both images,
// requests in flight, and the PRNG's state, so both copies go on alike.
func (d *Disk) Clone() *Disk {
	src := *d.src
	c := &Disk{opts: d.opts, src: &src, rng: rand.New(&src), fs: d.fs.clone(), executed: d.executed}
	for _, p := range d.pending {
		q := *p
		q.names = slices.Clone(p.names)
		q.req.Data = make([][]byte, len(p.req.Data))
		for i, b := range p.req.Data {
			q.req.Data[i] = slices.Clone(b)
		}
		c.pending = append(c.pending, &q)
	}
	return c
}

// Files lists every file path, sorted.
func (d *Disk) Files() []string {
	out := make([]string, 0, len(d.fs.files))
	for p := range d.fs.files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Image is a copy of one file's two images.
type Image struct {
	Volatile []byte
	Durable  []byte
}

// File returns a copy of the images of the file at path.
func (d *Disk) File(path string) (Image, bool) {
	f, ok := d.fs.files[path]
	if !ok {
		return Image{}, false
	}
	return Image{Volatile: slices.Clone(f.volatile), Durable: slices.Clone(f.durable)}, true
}

// Synced reports a file that is non-empty and whose volatile image is its
// durable one, without the copies File makes (the fault injector asks it
// of every file).
func (d *Disk) Synced(path string) bool {
	f, ok := d.fs.files[path]
	return ok && len(f.durable) > 0 && bytes.Equal(f.durable, f.volatile)
}

// PutFile sets a file's content, durable, creating it and its parents: test
// setup, such as a journal written by another build or corrupted on purpose.
func (d *Disk) PutFile(path string, data []byte) {
	if !storage.ValidName(path) {
		assert.Failf("sim disk: PutFile: bad path %q", path)
	}
	res := d.fs.create(path)
	if res != storage.ResultOK {
		assert.Failf("sim disk: PutFile %s: result %d", path, res)
	}
	f := d.fs.files[path]
	f.put(slices.Clone(data))
}
