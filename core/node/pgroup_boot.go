package node

import (
	"errors"
	"strconv"

	"github.com/iggygo/iggy/core/group"
	"github.com/iggygo/iggy/core/vsr"
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

// groupBooter decides on what a partition group's host read at boot
// (group.Booter): it opens the replica from the newest valid superblock,
// its checkpoint's image and the journal after it, cut where torn or
// damaged; a group without a slot is created first.
type groupBooter struct {
	n *Node
	g *pgroup
}

func (g *pgroup) bootDisk(n *Node) diskFor {
	return diskFor{n, owner{kind: ownerHostBoot, part: g.key, gen: g.gen}}
}

func (b groupBooter) Fresh() { b.create() }

// create makes a new group's first superblock (view 0) durable before its
// replica opens: a restart then finds it and knows the replica took part,
// so a primary that restarts moves to a new view instead of proposing op 1
// of view 0 a second time.
func (b groupBooter) create() {
	v := b.n.initialView(b.g)
	b.g.host.CreateFirst(b, b.g.bootDisk(b.n), vsr.Superblock{Sequence: 1, View: v, LogView: v})
}

// FirstDurable opens a new group in its first view: vsr opens a new group
// from a superblock of sequence 0; the slot written is of sequence 1.
func (b groupBooter) FirstDurable() {
	v := b.n.initialView(b.g)
	sb := vsr.Superblock{View: v, LogView: v}
	written := sb
	written.Sequence = 1
	b.n.openGroupReplica(b.g, sb, nil, written)
}

// Read opens the group's replica, or creates a group that has no valid
// superblock and no journal.
func (b groupBooter) Read(r *group.Read) {
	switch {
	case r.Found:
		b.n.openGroupReplica(b.g, r.Superblock, r.Recovered(), r.Superblock)
	case len(r.Segments) > 0:
		b.n.fatal("refusing %s: its journal has ops but no superblock slot is valid", b.g.dir())
	default:
		b.create()
	}
}

// Image checks the image of the superblock's checkpoint and takes the log
// length it names.
func (b groupBooter) Image(sb vsr.Superblock, img []byte) bool {
	decoded, err := decodeGroupImage(img)
	if err == nil && !group.ImageMatches(sb, img) {
		err = errors.New("it does not match the superblock's checksum")
	}
	if err != nil {
		b.n.fatal("refusing %s: %v", b.g.imagePath(sb.CheckpointOp), err)
		return false
	}
	b.g.nextOffset, b.g.receipts, b.g.producers = decoded.next, decoded.receipts, decoded.producers
	return true
}

// openGroupReplica opens the group's replica at superblock sb (written is
// the newest on disk) with the journal segments boot read, then applies
// what it can.
func (n *Node) openGroupReplica(g *pgroup, sb vsr.Superblock, segs []vsr.RecoveredSegment, written vsr.Superblock) {
	g.applied, g.appliedChecksum = sb.CheckpointOp, sb.CheckpointChecksum
	g.host.Recover(n.pgroupConfig(g, sb), segs, written)
	n.applyGroup(g)
}

// initialView is a new group's first view, so its first primary: the
// place among the members of the replica the metadata placed it on at
// creation (PLACE-1), committed data the same on every member.
func (n *Node) initialView(g *pgroup) uint32 {
	v, _ := g.local(g.first)
	return uint32(v)
}
