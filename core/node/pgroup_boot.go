package node

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/iggygo/iggy/core/group"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
)

// A partition group's files (journal segments, superblock slots, images)
// live in one directory under the partition's, which partition recovery
// ignores (only segment names count there). Each incarnation has its own,
// prepares-<revision> (STOR-30), so nothing an older one left behind is
// read as its own.
func (g *pgroup) dir() string {
	return partitionDir(g.key) + "/prepares-" + strconv.FormatUint(g.rev, 10)
}

func (g *pgroup) superblockPath(slot uint64) string {
	return g.dir() + [2]string{"/superblock.a", "/superblock.b"}[slot]
}

// pgroupBoot reads a group's superblock slots and journal segments.
type pgroupBoot struct {
	listing  bool                  // the directory listing is outstanding
	reads    map[storage.ReqID]int // outstanding reads, by index into data
	files    []string
	sizes    []uint64
	data     [][]byte
	segments []uint64 // first ops of the journal segments, by index after the slots
	slots    int      // how many of files are superblock slots (the first ones)
	syncs    int      // slot syncs outstanding
	// freshSync: a new group's first superblock is on its way to disk.
	freshSync storage.ReqID
	// imageRead reads the image of the superblock's checkpoint; image is
	// its bytes once read.
	imageRead storage.ReqID
	image     []byte
}

func (g *pgroup) bootOwner() owner { return owner{kind: ownerGroupBoot, part: g.key, gen: g.gen} }

func (g *pgroup) startBoot(n *Node) {
	g.boot = &pgroupBoot{listing: true, reads: map[storage.ReqID]int{}}
	n.submit(g.bootOwner(), storage.Request{Op: storage.OpList, File: g.dir()})
}

// groupBootCompletion routes a boot read of a group still current.
func (n *Node) groupBootCompletion(o owner, c storage.Completion) {
	g := n.pgroups[o.part]
	if g == nil || g.gen != o.gen || g.boot == nil {
		return
	}
	if c.Result == storage.ResultIOError {
		n.fatal("partition group %s: boot request failed: %s", g.dir(), c.Err)
		return
	}
	b := g.boot
	if b.imageRead != 0 {
		if c.ID == b.imageRead {
			b.image = c.Data
			n.openGroupReplica(g)
		}
		return
	}
	if b.freshSync != 0 {
		if c.ID == b.freshSync {
			n.openGroupReplica(g)
		}
		return
	}
	if b.listing {
		b.listing = false
		b.listed(g, c)
		b.readAll(n, g)
		return
	}
	if i, ok := b.reads[c.ID]; ok {
		delete(b.reads, c.ID)
		b.data[i] = c.Data
	} else if b.syncs > 0 && c.Result == storage.ResultOK {
		b.syncs--
	}
	if len(b.reads) == 0 && b.syncs == 0 {
		n.openGroupReplica(g)
	}
}

// listed notes the slots and journal segments a listing found; a missing
// directory is a group that never wrote anything.
func (b *pgroupBoot) listed(g *pgroup, c storage.Completion) {
	if c.Result == storage.ResultNotFound {
		return
	}
	for _, e := range c.Entries {
		switch {
		case e.IsDir:
		case e.Name == "superblock.a" || e.Name == "superblock.b":
			b.files = slices.Insert(b.files, b.slots, g.dir()+"/"+e.Name)
			b.sizes = slices.Insert(b.sizes, b.slots, uint64(vsr.SuperblockSize))
			b.slots++
		case strings.HasSuffix(e.Name, ".wal"):
			// A listing is sorted by name, and segment names are zero-padded
			// first ops: the segments come oldest first.
			if op, err := strconv.ParseUint(strings.TrimSuffix(e.Name, ".wal"), 10, 64); err == nil {
				if k := len(b.segments); k > 0 {
					assert.That(op > b.segments[k-1], "%s: segment %d listed after %d", g.dir(), op, b.segments[k-1])
				}
				b.files = append(b.files, g.dir()+"/"+e.Name)
				b.sizes = append(b.sizes, min(e.Size, journalReadBytesMax))
				b.segments = append(b.segments, op)
			}
		}
	}
}

func (b *pgroupBoot) readAll(n *Node, g *pgroup) {
	b.data = make([][]byte, len(b.files))
	for i, f := range b.files {
		b.reads[n.submit(g.bootOwner(), storage.Request{Op: storage.OpRead, File: f, Len: b.sizes[i]})] = i
	}
	// A killed process leaves its unsynced slot writes in the page cache,
	// where boot reads them: synced now, a slot trusted stays (the journal
	// syncs what it keeps the same way, RecoverJournal).
	for _, f := range b.files[:b.slots] {
		n.submit(g.bootOwner(), storage.Request{Op: storage.OpSync, File: f})
		b.syncs++
	}
	if len(b.files) == 0 {
		n.openGroupReplica(g)
	}
}

// createGroup makes a new group's first superblock (view 0) durable before
// its replica opens: a restart then finds it and knows the replica took
// part, so a primary that restarts moves to a new view instead of
// proposing op 1 of view 0 a second time.
func (n *Node) createGroup(g *pgroup) {
	v := n.initialView(g)
	sb := vsr.Superblock{Sequence: 1, View: v, LogView: v}
	g.boot.freshSync = g.host.WriteSlot(sb, diskFor{n, g.bootOwner()})
	// Slots that exist but hold nothing valid (a crash before their first
	// sync) are read no more.
	g.boot.data, g.boot.files, g.boot.slots = nil, nil, 0
}

// openGroupReplica opens the group's replica from what boot read: the
// newest valid superblock slot, its checkpoint's image, and the journal
// after the checkpoint, cut where torn or damaged. A group without a slot
// is created first.
func (n *Node) openGroupReplica(g *pgroup) {
	b := g.boot
	sb, fresh, ok := n.groupSuperblock(g)
	if !ok {
		return
	}
	if sb.CheckpointOp > 0 && b.imageRead == 0 {
		b.imageRead = n.submit(g.bootOwner(), storage.Request{Op: storage.OpRead, File: g.imagePath(sb.CheckpointOp), Len: sb.SnapshotSize})
		return
	}
	next, ok := g.bootImage(n, sb)
	if !ok {
		return
	}
	segs := make([]vsr.RecoveredSegment, len(b.segments))
	for i, first := range b.segments {
		segs[i] = vsr.RecoveredSegment{FirstOp: first, Data: b.data[b.slots+i]}
	}
	g.boot = nil
	written := sb
	if fresh {
		written.Sequence = 1 // the slot createGroup wrote; vsr opens a new group (sequence 0) in its first view
	}
	g.applied, g.appliedChecksum = sb.CheckpointOp, sb.CheckpointChecksum
	g.nextOffset = next
	g.host.Recover(n.pgroupConfig(sb), segs, written)
	n.applyGroup(g)
}

// groupSuperblock picks the newest valid slot; fresh: there is none and
// createGroup made the first durable. ok is false while it does, or when
// the group refuses to open.
func (n *Node) groupSuperblock(g *pgroup) (sb vsr.Superblock, fresh, ok bool) {
	b := g.boot
	sb, found, err := group.NewestSlot(b.files[:b.slots], b.data[:b.slots])
	switch {
	case err != nil:
		n.fatal("%v", err)
		return sb, false, false
	case found:
		return sb, false, true
	}
	switch {
	case len(b.segments) > 0:
		n.fatal("refusing %s: its journal has ops but no superblock slot is valid", g.dir())
		return sb, false, false
	case b.freshSync == 0:
		n.createGroup(g)
		return sb, false, false
	}
	v := n.initialView(g)
	return vsr.Superblock{View: v, LogView: v}, true, true
}

// initialView is a new group's first view, so its first primary: a
// function of the partition's committed incarnation and id alone, the same
// on every replica, that spreads the primaries of a topic's partitions,
// and of partitions created one after another, over the replicas.
func (n *Node) initialView(g *pgroup) uint32 {
	return uint32((g.rev + uint64(g.key.partition)) % uint64(n.cfg.Replicas))
}

// bootImage checks the image of the superblock's checkpoint and returns the
// log length it names; the replica serves it to peers.
func (g *pgroup) bootImage(n *Node, sb vsr.Superblock) (uint64, bool) {
	if sb.CheckpointOp == 0 {
		return 0, true
	}
	img := g.boot.image
	next, _, err := decodeGroupImage(img)
	if err == nil && !group.ImageMatches(sb, img) {
		err = errors.New("it does not match the superblock's checksum")
	}
	if err != nil {
		n.fatal("refusing %s: %v", g.imagePath(sb.CheckpointOp), err)
		return 0, false
	}
	g.host.Serve(sb, img)
	return next, true
}
