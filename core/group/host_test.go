package group

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/io/storage"
	"github.com/zeebo/xxh3"
)

// disk records the requests a host submits, in order.
type disk struct {
	next storage.ReqID
	reqs []storage.Request
}

func (d *disk) Submit(r storage.Request) storage.ReqID {
	d.next++
	r.ID = d.next
	d.reqs = append(d.reqs, r)
	return r.ID
}

// take returns the requests submitted since the last call.
func (d *disk) take() []storage.Request {
	r := d.reqs
	d.reqs = nil
	return r
}

// machine is a state machine whose writes become durable when told.
type machine struct {
	durable      bool
	checkpointed []uint64
}

func (m *machine) Durable(uint64) bool         { return m.durable }
func (m *machine) Checkpointed(ck *Checkpoint) { m.checkpointed = append(m.checkpointed, ck.CP.Op) }
func (m *machine) Installed(*Checkpoint)       {}

func newHost(t *testing.T, op uint64) (*Host, *disk, *machine) {
	t.Helper()
	d, m := &disk{}, &machine{}
	h := New(Config{
		Name: "test", JournalDir: "g/journal", Journal: d, Images: d, Superblocks: d, Misc: d,
		Files: Files{Slots: [2]string{"g/superblock.a", "g/superblock.b"}, CreateSlots: true,
			Image: func(op uint64) string { return "g/image-" + string(rune('0'+op)) }},
		ServeImages: true, Logf: func(string, ...any) {}, Fatalf: func(f string, a ...any) { t.Fatalf(f, a...) },
	}, m)
	h.OpenStandalone(vsr.Superblock{Sequence: 1}, nil, 0, op)
	d.take()
	return h, d, m
}

// complete hands the host a successful completion of every request given.
func complete(h *Host, reqs []storage.Request) (durable bool) {
	for _, r := range reqs {
		durable = h.Complete(storage.Completion{ID: r.ID, Result: storage.ResultOK}) || durable
	}
	return durable
}

// A checkpoint's image is durable before a superblock names it, the state
// machine's writes through its op too, and only then does the older image
// go and the replica learn it.
func TestCheckpointWaitsForImageAndMachine(t *testing.T) {
	h, d, m := newHost(t, 5)
	img := []byte("image of op 5")
	h.Checkpoint(5, 0xfeed, img)
	reqs := d.take()
	if len(reqs) != 4 || reqs[0].Op != storage.OpCreate || reqs[3].Op != storage.OpSync || reqs[2].File != "g/image-5" {
		t.Fatalf("image requests: %+v", reqs)
	}
	if complete(h, reqs) || len(d.reqs) != 0 {
		t.Fatalf("a superblock was written before the machine's writes were durable: %+v", d.reqs)
	}
	if !h.Checkpointing() {
		t.Fatal("the checkpoint is no longer under way before its superblock")
	}
	m.durable = true
	h.WriteSuperblock()
	slot := d.take()
	if len(slot) != 3 || slot[0].Op != storage.OpCreate || slot[1].File != "g/superblock.b" || slot[1].Op != storage.OpWrite {
		t.Fatalf("superblock requests (sequence 2 goes to slot b, its first write under CreateSlots): %+v", slot)
	}
	sb, ok := vsr.Newest(nil, slot[1].Data[0])
	if !ok || sb.Sequence != 2 || sb.CheckpointOp != 5 || sb.CheckpointChecksum != 0xfeed || sb.SnapshotChecksum != xxh3.Hash(img) {
		t.Fatalf("superblock written: %+v", sb)
	}
	if !complete(h, slot) || h.DurableOp() != 5 || len(m.checkpointed) != 1 || h.Checkpointing() {
		t.Fatalf("checkpoint not durable: op %d, machine told %v", h.DurableOp(), m.checkpointed)
	}
	if cp, ok := h.Latest(); !ok || cp.Op != 5 {
		t.Fatalf("served checkpoint %+v %v", cp, ok)
	}
	if b, ok := h.Chunk(vsr.Checkpoint{Op: 5, Checksum: 0xfeed, Size: sb.SnapshotSize, ImageChecksum: sb.SnapshotChecksum}, 6, 100); !ok || string(b) != "of op 5" {
		t.Fatalf("chunk %q %v", b, ok)
	}
}

// The next checkpoint deletes the image the older superblock named, only
// once the superblock naming the new one is durable.
func TestCheckpointDeletesOlderImageWhenDurable(t *testing.T) {
	h, d, m := newHost(t, 9)
	m.durable = true
	h.Checkpoint(5, 1, []byte("five"))
	complete(h, d.take()) // the image: the superblock follows
	complete(h, d.take()) // the superblock
	d.take()              // the journal's releases
	h.Checkpoint(9, 2, []byte("nine"))
	complete(h, d.take())
	slot := d.take()
	if len(slot) != 2 || slot[0].Op != storage.OpWrite || slot[0].File != "g/superblock.a" {
		t.Fatalf("third superblock (slot a, written before): %+v", slot)
	}
	if !complete(h, slot) {
		t.Fatal("the superblock did not become durable")
	}
	var deleted []string
	for _, r := range d.take() {
		if r.Op == storage.OpDelete {
			deleted = append(deleted, r.File)
		}
	}
	if len(deleted) == 0 || deleted[0] != "g/image-5" || h.DurableOp() != 9 {
		t.Fatalf("deleted %v, durable %d", deleted, h.DurableOp())
	}
}

// A slot of an unknown version is refused, even when the other slot is
// readable.
// covers STOR-18
func TestNewestSlotRefusesUnknownVersion(t *testing.T) {
	good := vsr.Superblock{Sequence: 3, View: 1, LogView: 1}.Encode()
	bad := vsr.Superblock{Sequence: 4}.Encode()
	binary.LittleEndian.PutUint32(bad[16:], 0xffff)
	binary.LittleEndian.PutUint64(bad, xxh3.Hash(bad[8:]))
	_, _, err := NewestSlot([]string{"a", "b"}, [][]byte{good, bad})
	var verr vsr.SuperblockVersionError
	if !errors.As(err, &verr) || verr.Version != 0xffff {
		t.Fatalf("unknown version not refused: %v", err)
	}
	sb, ok, err := NewestSlot([]string{"a", "b"}, [][]byte{good, nil})
	if err != nil || !ok || sb.Sequence != 3 {
		t.Fatalf("newest valid slot: %+v %v %v", sb, ok, err)
	}
}
