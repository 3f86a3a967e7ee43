package group

import (
	"testing"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/storage"
)

// booter records what boot handed it.
type booter struct {
	fresh int
	read  *Read
}

func (b *booter) Fresh()                            { b.fresh++ }
func (b *booter) Image(vsr.Superblock, []byte) bool { return true }
func (b *booter) Read(r *Read)                      { b.read = r }
func (b *booter) FirstDurable()                     {}

func bootHost(journalDir string, createSlots bool) (*Host, *disk) {
	d := &disk{}
	h := New(Config{
		Name: "test", JournalDir: journalDir, Journal: d, Images: d, Superblocks: d, Misc: d,
		Files:       Files{Slots: [2]string{"g/superblock.a", "g/superblock.b"}, CreateSlots: createSlots, Image: func(uint64) string { return "g/image" }},
		ServeImages: true, Logf: func(string, ...any) {}, Fatalf: func(string, ...any) {},
	}, &machine{})
	return h, d
}

// answer completes every request with OK, handing reads the bytes files
// holds and listings their entries.
func answer(h *Host, reqs []storage.Request, files map[string][]byte, entries map[string][]storage.Entry) {
	for _, r := range reqs {
		c := storage.Completion{ID: r.ID, Result: storage.ResultOK}
		switch r.Op {
		case storage.OpRead:
			c.Data = files[r.File]
		case storage.OpList:
			c.Entries = entries[r.File]
		}
		h.CompleteBoot(c)
	}
}

func ops(reqs []storage.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Op.String()+" "+r.File)
	}
	return out
}

// A group whose journal shares the slots' directory reads slots and
// segments together (syncing the slots), and hands both over.
func TestBootSameDirectory(t *testing.T) {
	h, d := bootHost("g", true)
	b := &booter{}
	h.Boot(b, d)
	sb := vsr.Superblock{Sequence: 1, View: 1, LogView: 1}
	files := map[string][]byte{"g/superblock.a": sb.Encode(), "g/00000000000000000001.wal": []byte("ops")}
	entries := map[string][]storage.Entry{"g": {
		{Name: "00000000000000000001.wal", Size: 3}, {Name: "superblock.a", Size: vsr.SuperblockSize}}}
	answer(h, d.take(), files, entries)
	reqs := d.take()
	want := []string{"read g/superblock.a", "read g/00000000000000000001.wal", "sync g/superblock.a"}
	if got := ops(reqs); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("boot requests %v, want %v", got, want)
	}
	answer(h, reqs, files, entries)
	r := b.read
	if r == nil || !r.Found || r.Superblock.View != 1 || len(r.Segments) != 1 || string(r.Data[0]) != "ops" {
		t.Fatalf("read %+v", r)
	}
}

// A group whose journal has a directory of its own lists it after the
// slots, creates a slot a crash left without its name, and starts fresh
// when there is nothing at all.
func TestBootSeparateJournal(t *testing.T) {
	h, d := bootHost("g/journal", false)
	b := &booter{}
	h.Boot(b, d)
	entries := map[string][]storage.Entry{
		"g":         {{Name: "journal", IsDir: true}, {Name: "superblock.a"}},
		"g/journal": {{Name: "00000000000000000001.wal", Size: 2}, {Name: "stray"}},
	}
	files := map[string][]byte{"g/journal/00000000000000000001.wal": []byte("op")}
	answer(h, d.take(), files, entries)
	reqs := d.take()
	if got := ops(reqs); len(got) != 3 || got[0] != "create g/superblock.b" || got[1] != "read g/superblock.a" {
		t.Fatalf("boot requests %v", got)
	}
	answer(h, reqs, files, entries)
	reqs = d.take()
	if got := ops(reqs); len(got) != 1 || got[0] != "list g/journal" {
		t.Fatalf("no valid slot: boot goes on to the journal, asked %v", got)
	}
	answer(h, reqs, files, entries)
	answer(h, d.take(), files, entries)
	if r := b.read; r == nil || r.Found || len(r.Segments) != 1 || r.Segments[0].FirstOp != 1 || string(r.Data[0]) != "op" {
		t.Fatalf("read %+v", b.read)
	}

	h, d = bootHost("g/journal", false)
	b = &booter{}
	h.Boot(b, d)
	answer(h, d.take(), nil, nil)
	if b.fresh != 1 || b.read != nil || len(d.reqs) != 0 {
		t.Fatalf("empty storage: fresh %d, read %v, requests %v", b.fresh, b.read, ops(d.reqs))
	}
}
