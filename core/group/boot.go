package group

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
	"github.com/zeebo/xxh3"
)

// NewestSlot picks the newest valid superblock among a group's slots as
// boot read them (data[i] from files[i]; an empty one never written). ok is
// false when no slot is valid. A slot of an unknown version is refused, not
// skipped (STOR-18): err names it.
func NewestSlot(files []string, data [][]byte) (sb vsr.Superblock, ok bool, err error) {
	if len(files) != len(data) || len(data) > 2 {
		return sb, false, fmt.Errorf("group: %d superblock slots read from %d files", len(data), len(files))
	}
	var slots [2][]byte
	for i, slot := range data {
		if err := vsr.CheckSuperblockVersion(slot); err != nil {
			return sb, false, fmt.Errorf("refusing %s: %w", files[i], err)
		}
		slots[i] = slot
	}
	sb, ok = vsr.Newest(slots[0], slots[1])
	return sb, ok, nil
}

// ImageMatches reports that img is the image the superblock's checkpoint
// names: its size and checksum.
func ImageMatches(sb vsr.Superblock, img []byte) bool {
	return uint64(len(img)) == sb.SnapshotSize && xxh3.Hash(img) == sb.SnapshotChecksum
}

// journalReadBytesMax bounds the journal bytes read at boot: checkpoints
// keep the journal after the last one short, so more means something is
// wrong.
const journalReadBytesMax = 1 << 30

// Booter is what a group's boot asks of its owner: the decisions boot
// makes on what it read, which differ between groups.
type Booter interface {
	// Fresh runs when the group has no file at all: no superblock slot and
	// no journal.
	Fresh()
	// Image restores the state from the image of the superblock's
	// checkpoint; false refuses it (the booter said why).
	Image(sb vsr.Superblock, img []byte) bool
	// Read hands over what boot read; the booter opens the replica
	// (Recover, OpenStandalone), starts the group (CreateFirst), or refuses.
	Read(r *Read)
	// FirstDurable runs once the superblock CreateFirst wrote is durable.
	FirstDurable()
}

// Read is what boot read of a group's durable state.
type Read struct {
	// Superblock is the newest valid slot's (Found), else zero.
	Superblock vsr.Superblock
	Found      bool
	// SlotFiles and SlotData are the slots as read (empty: never written).
	SlotFiles []string
	SlotData  [][]byte
	// Segments are the journal's segments, oldest first, and Data their
	// bytes.
	Segments []vsr.Segment
	Data     [][]byte
}

// Recovered pairs the journal's segments with their bytes.
func (r *Read) Recovered() []vsr.RecoveredSegment {
	segs := make([]vsr.RecoveredSegment, len(r.Segments))
	for i, s := range r.Segments {
		segs[i] = vsr.RecoveredSegment{FirstOp: s.FirstOp, Data: r.Data[i]}
	}
	return segs
}

type bootPhase uint8

const (
	bootListing bootPhase = iota + 1
	bootReadingSlots
	bootReadingImage
	bootListingJournal
	bootReadingJournal
	bootCreating // the first superblock is on its way to disk
)

// booting is a boot under way: the superblock slots (with the journal's
// segments when they share the slots' directory), the image of the
// superblock's checkpoint, then the journal's segments.
type booting struct {
	b     Booter
	disk  Disk
	phase bootPhase
	reads map[storage.ReqID]int // outstanding reads, by index into data
	data  [][]byte
	// sameDir: the journal's segments are listed with the slots.
	sameDir   bool
	read      Read
	freshSync storage.ReqID
}

// syncNotRead marks a sync among a phase's reads: it carries no data.
const syncNotRead = -1

// slotDir is the directory of the superblock slots and images.
func (h *Host) slotDir() string { return path.Dir(h.cfg.Files.Slots[0]) }

// Boot starts reading the group's durable state through d; the completions
// of its requests go to CompleteBoot, and b decides on what it read.
func (h *Host) Boot(b Booter, d Disk) {
	assert.That(h.boot == nil && h.replica == nil, "group: booted twice")
	h.boot = &booting{b: b, disk: d, phase: bootListing, sameDir: h.slotDir() == h.cfg.JournalDir}
	d.Submit(storage.Request{Op: storage.OpList, File: h.slotDir()})
	assert.That(h.boot.phase == bootListing, "group: boot did not start by listing")
}

// CompleteBoot takes a completion of a boot request.
func (h *Host) CompleteBoot(c storage.Completion) {
	bt := h.boot
	if bt == nil {
		return // a boot that refused
	}
	assert.That(bt.phase >= bootListing && bt.phase <= bootCreating, "group: a boot completion in no phase")
	if c.Result == storage.ResultIOError {
		h.boot = nil
		h.cfg.Fatalf("%s: boot request %d failed: %s", h.cfg.Name, c.ID, c.Err)
		return
	}
	switch bt.phase {
	case bootListing:
		h.listed(c.Entries)
	case bootListingJournal:
		h.listedJournal(c.Entries)
	case bootCreating:
		if c.ID == bt.freshSync {
			h.boot = nil
			bt.b.FirstDurable()
		}
	default:
		if i, ok := bt.reads[c.ID]; ok {
			delete(bt.reads, c.ID)
			if i != syncNotRead {
				bt.data[i] = c.Data
			}
			if len(bt.reads) == 0 {
				h.readDone()
			}
		}
	}
}

// listed notes the slots (and segments) a listing found; a missing
// directory is a group that never wrote anything.
func (h *Host) listed(entries []storage.Entry) {
	bt := h.boot
	assert.That(bt.phase == bootListing && len(bt.read.Segments) == 0, "group: a listing outside the boot's first phase")
	var files []string
	var sizes []uint64
	slots, journal := 0, false
	for _, e := range entries {
		first, segment := segmentFirstOp(e.Name)
		switch {
		case !e.IsDir && (h.slotDir()+"/"+e.Name == h.cfg.Files.Slots[0] || h.slotDir()+"/"+e.Name == h.cfg.Files.Slots[1]):
			files, sizes = slices.Insert(files, slots, h.slotDir()+"/"+e.Name), slices.Insert(sizes, slots, uint64(vsr.SuperblockSize))
			slots++
		case bt.sameDir && segment && !e.IsDir:
			bt.read.Segments = append(bt.read.Segments, vsr.Segment{FirstOp: first})
			files, sizes = append(files, h.slotDir()+"/"+e.Name), append(sizes, min(e.Size, journalReadBytesMax))
		case !bt.sameDir && e.IsDir && h.slotDir()+"/"+e.Name == h.cfg.JournalDir:
			journal = true
		}
	}
	if slots == 0 && !journal && len(bt.read.Segments) == 0 {
		h.boot = nil
		bt.b.Fresh()
		return
	}
	if !h.cfg.Files.CreateSlots {
		h.createMissingSlots(files[:slots])
	}
	bt.read.SlotFiles = files[:slots]
	bt.phase = bootReadingSlots
	h.read(files, sizes)
	// A killed process leaves its unsynced slot writes in the page cache,
	// where they are read: synced now, the view a restart acts on cannot
	// go back at a later power loss (the journal syncs what it keeps the
	// same way, RecoverJournal). The reads wait for the syncs.
	for _, f := range files[:slots] {
		bt.reads[bt.disk.Submit(storage.Request{Op: storage.OpSync, File: f})] = syncNotRead
	}
	assert.That(slots <= 2 && len(bt.read.Segments) == len(files)-slots, "group: boot reads other files than slots and segments")
}

// createMissingSlots creates a superblock slot a crash left without its
// name, for a group whose slots are not created by their first write (a
// fresh start creates both, and their creation may not have been durable):
// the next superblock write may go to it. Creating an existing file is a
// no-op, and a file's requests run in order, so the create comes first.
func (h *Host) createMissingSlots(found []string) {
	assert.That(!h.cfg.Files.CreateSlots && len(found) <= 2, "group: slots created at boot that their first write creates")
	for _, path := range h.cfg.Files.Slots {
		if !slices.Contains(found, path) {
			h.cfg.Misc.Submit(storage.Request{Op: storage.OpCreate, File: path})
		}
	}
}

// read asks for whole files; readDone runs once they (and the syncs the
// caller adds) are in.
func (h *Host) read(files []string, sizes []uint64) {
	bt := h.boot
	assert.That(len(files) == len(sizes), "group: files read without their sizes")
	bt.reads = map[storage.ReqID]int{}
	bt.data = make([][]byte, len(files))
	for i, f := range files {
		bt.reads[bt.disk.Submit(storage.Request{Op: storage.OpRead, File: f, Len: sizes[i]})] = i
	}
	assert.That(len(bt.reads) == len(files), "group: two reads under one id")
	if len(files) == 0 {
		h.readDone()
	}
}

func (h *Host) readDone() {
	switch h.boot.phase {
	case bootReadingSlots:
		h.slotsRead()
	case bootReadingImage:
		h.imageRead()
	case bootReadingJournal:
		h.boot.read.Data = h.boot.data
		h.finishBoot()
	}
}

// slotsRead picks the newest valid slot, then reads its checkpoint's image.
func (h *Host) slotsRead() {
	bt := h.boot
	slots := len(bt.read.SlotFiles)
	assert.That(bt.phase == bootReadingSlots && slots <= len(bt.data), "group: slots read outside their phase")
	bt.read.SlotData = bt.data[:slots]
	sb, ok, err := NewestSlot(bt.read.SlotFiles, bt.read.SlotData)
	if err != nil {
		h.boot = nil
		h.cfg.Fatalf("%v", err)
		return
	}
	if !ok {
		sb = vsr.Superblock{}
	}
	bt.read.Superblock, bt.read.Found = sb, ok
	if bt.sameDir {
		bt.read.Data = bt.data[slots:]
	}
	if sb.CheckpointOp == 0 {
		h.afterImage()
		return
	}
	assert.That(ok, "group: an image read for no valid superblock")
	bt.phase = bootReadingImage
	h.read([]string{h.cfg.Files.Image(sb.CheckpointOp)}, []uint64{sb.SnapshotSize})
}

// imageRead hands the image to the booter and serves it to peers.
func (h *Host) imageRead() {
	bt := h.boot
	assert.That(bt.phase == bootReadingImage && len(bt.data) == 1, "group: an image read outside its phase")
	sb, img := bt.read.Superblock, bt.data[0]
	if !bt.b.Image(sb, img) {
		h.boot = nil
		return
	}
	h.serve(sb, img)
	assert.That(h.serving != nil && h.serving.CP.Op == sb.CheckpointOp, "group: boot serves another checkpoint than its superblock's")
	h.afterImage()
}

// afterImage reads the journal: listed already when it shares the slots'
// directory.
func (h *Host) afterImage() {
	bt := h.boot
	if bt.sameDir {
		h.finishBoot()
		return
	}
	assert.That(len(bt.read.Segments) == 0, "group: segments found before the journal is listed")
	bt.phase = bootListingJournal
	bt.disk.Submit(storage.Request{Op: storage.OpList, File: h.cfg.JournalDir})
}

func (h *Host) listedJournal(entries []storage.Entry) {
	bt := h.boot
	assert.That(bt.phase == bootListingJournal && !bt.sameDir, "group: a journal listing outside its phase")
	var files []string
	var sizes []uint64
	var total uint64
	for _, e := range entries { // sorted by name, so by first op
		first, ok := segmentFirstOp(e.Name)
		if !ok {
			continue
		}
		bt.read.Segments = append(bt.read.Segments, vsr.Segment{FirstOp: first})
		files, sizes = append(files, h.cfg.JournalDir+"/"+e.Name), append(sizes, e.Size)
		total += e.Size
	}
	if total > journalReadBytesMax {
		h.boot = nil
		h.cfg.Fatalf("%s holds %d bytes after the checkpoint, above the %d this build replays", h.cfg.JournalDir, total, journalReadBytesMax)
		return
	}
	bt.phase = bootReadingJournal
	h.read(files, sizes)
	assert.That(len(bt.read.Segments) == len(files), "group: journal segments read without their names")
}

// finishBoot hands what boot read to the booter.
func (h *Host) finishBoot() {
	bt := h.boot
	assert.That(len(bt.reads) == 0, "group: boot finished with reads outstanding")
	assert.That(len(bt.read.Data) == len(bt.read.Segments), "group: journal segments and their bytes differ in number")
	h.boot = nil
	bt.b.Read(&bt.read)
}

// CreateFirst writes a new group's first superblock through the boot's
// disk; the booter hears when it is durable (FirstDurable). A replica acts
// only once it is: a power loss before that brings it back fresh, and one
// that had already proposed would propose op 1 again in the same view.
func (h *Host) CreateFirst(b Booter, d Disk, sb vsr.Superblock) {
	assert.That(h.boot == nil && h.replica == nil, "group: created while booting or open")
	assert.That(sb.Sequence == 1, "group: a first superblock of another sequence")
	h.boot = &booting{b: b, disk: d, phase: bootCreating}
	h.boot.freshSync = h.WriteSlot(sb, d)
	assert.That(h.boot.freshSync != 0, "group: a first superblock without its sync")
}

// segmentFirstOp parses a journal segment's name, "<first op:020>.wal".
func segmentFirstOp(name string) (uint64, bool) {
	digits, ok := strings.CutSuffix(name, ".wal")
	if !ok || len(digits) != 20 {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	return v, err == nil && v > 0
}
