package vsr

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/sim/disk"
	"github.com/zeebo/xxh3"
)

// hnode is the test's caller of one replica: what core/node does for the
// metadata group, reduced to a toy state machine (a running hash of the
// committed prepares).
type hnode struct {
	c       *cluster
	id      uint8
	disk    *disk.Disk
	r       *Replica // nil while down
	stalled bool     // the disk completes nothing (a late disk)
	journal *Journal
	nextID  storage.ReqID
	owners  map[storage.ReqID]owner

	applied, state, appliedChecksum uint64

	sb         Superblock // newest durable
	sbWriting  *sbWrite
	wantVS     *ViewState
	readyCkpt  *ckptWrite // durable as snapshot.bin, not yet in the superblock
	ckpt       *ckptWrite // being written
	lastCkpt   uint64
	installing *Install // waiting for the checkpoint writer
	serving    *ckptWrite

	waiting                         []proposal
	leading                         bool // primary of leadView, checked when it took office
	leadView                        uint32
	viewSeen, logViewSeen, viewSync uint32
	logViewSync                     uint32 // the highest log view a durable superblock held
}

// proposal is an op proposed here, awaiting its acknowledgement.
type proposal struct{ op, checksum uint64 }

type ownerKind uint8

const (
	ownJournal ownerKind = iota + 1
	ownSuperblock
	ownCheckpoint
)

type owner struct{ kind ownerKind }

type sbWrite struct {
	sb   Superblock
	vs   *ViewState
	ckpt *ckptWrite
	sync storage.ReqID
}

type ckptWrite struct {
	cp      Checkpoint
	image   []byte
	rename  storage.ReqID
	install bool // an installed state transfer: the replica waits for it
}

// journalDisk is the journal's view of the node's disk.
type journalDisk struct{ n *hnode }

func (d journalDisk) Submit(r storage.Request) storage.ReqID { return d.n.submit(ownJournal, r) }

func (n *hnode) submit(k ownerKind, r storage.Request) storage.ReqID {
	n.nextID++
	r.ID = n.nextID
	n.owners[r.ID] = owner{kind: k}
	n.disk.Submit(r)
	return r.ID
}

// boot opens the replica from what the disk holds, as a restart would.
// A new cluster's replicas open as a new group (a zero superblock).
func (n *hnode) boot(created bool) {
	c := n.c
	*n = hnode{c: c, id: n.id, disk: n.disk, owners: map[storage.ReqID]owner{}, viewSync: n.viewSync,
		logViewSync: n.logViewSync, stalled: n.stalled}
	a, _ := n.disk.File(superblockA)
	b, _ := n.disk.File(superblockB)
	sb, ok := Newest(a.Volatile, b.Volatile)
	if !ok {
		c.fatalf("r%d: no valid superblock", n.id)
	}
	n.sb = sb
	if sb.View < n.viewSync || sb.LogView < n.logViewSync {
		c.fatalf("r%d: superblock view %d log view %d regressed below %d, %d", n.id, sb.View, sb.LogView, n.viewSync, n.logViewSync)
	}
	if sb.CheckpointOp > 0 {
		img, _ := n.disk.File(snapshotPath(sb.CheckpointOp))
		if xxh3.Hash(img.Volatile) != sb.SnapshotChecksum {
			c.fatalf("r%d: snapshot does not match the superblock", n.id)
		}
		op, checksum, state := decodeImage(img.Volatile)
		n.applied, n.appliedChecksum, n.state, n.lastCkpt = op, checksum, state, op
		n.serving = &ckptWrite{cp: Checkpoint{Op: op, Checksum: checksum, Size: uint64(len(img.Volatile)),
			ImageChecksum: sb.SnapshotChecksum}, image: img.Volatile}
	}
	var segs []RecoveredSegment
	for _, f := range n.disk.Files() {
		name, ok := strings.CutPrefix(f, journalDir+"/")
		if !ok {
			continue
		}
		first, err := strconv.ParseUint(strings.TrimSuffix(name, ".wal"), 10, 64)
		if err != nil {
			c.fatalf("r%d: journal file %s", n.id, f)
		}
		img, _ := n.disk.File(f)
		segs = append(segs, RecoveredSegment{FirstOp: first, Data: img.Volatile})
	}
	slices.SortFunc(segs, func(x, y RecoveredSegment) int { return int(x.FirstOp) - int(y.FirstOp) })
	rec := RecoverJournal(journalDisk{n}, journalDir, segs, sb.CheckpointOp, sb.CheckpointChecksum, sb.LogView, c.marks)
	n.journal = rec.Journal
	open := sb
	if created {
		open = Superblock{}
	}
	n.r = Open(Config{Replica: n.id, Count: uint8(c.opts.replicas), Journal: rec.Journal, Superblock: open,
		Prepares: rec.Prepares, Images: n, Marks: c.marks, WindowOps: c.opts.window, StateChunkBytes: c.opts.chunkBytes})
	if n.r.View() < n.viewSync {
		c.fatalf("r%d restarted in view %d below its durable view %d", n.id, n.r.View(), n.viewSync)
	}
	n.viewSeen, n.logViewSeen = n.r.View(), n.r.LogView()
	n.drain()
}

// drain applies committed ops and performs the replica's outputs.
func (n *hnode) drain() {
	if n.r == nil {
		return
	}
	for _, p := range n.r.TakeCommitted() {
		n.apply(&p)
	}
	n.maybeCheckpoint()
	n.startInstall()
	n.r.Flush()
	rd := n.r.TakeReady()
	for _, m := range rd.Messages {
		n.c.send(m)
	}
	if rd.Superblock != nil {
		n.wantVS = rd.Superblock
		n.writeSuperblock()
	}
	if rd.Install != nil {
		n.c.marks.Hit("harness.install")
		n.installing = rd.Install
		n.startInstall()
	}
	n.checkAcks()
}

func (n *hnode) apply(p *Prepare) {
	if p.Op != n.applied+1 {
		n.c.fatalf("r%d applies op %d after %d", n.id, p.Op, n.applied)
	}
	n.c.commitOf(n.id, p)
	n.applied, n.appliedChecksum = p.Op, p.Checksum
	n.state = nextState(n.state, p.Checksum)
	n.c.stateIs(n.id, p.Op, n.state)
}

func (c *cluster) stateIs(replica uint8, op, state uint64) {
	if c.forged {
		return
	}
	if s, ok := c.stateAt[op]; ok && s != state {
		c.fatalf("r%d: state after op %d is %x, elsewhere %x", replica, op, state, s)
	}
	c.stateAt[op] = state
}

// checkAcks records the ops this primary may acknowledge as persisted.
func (n *hnode) checkAcks() {
	if len(n.waiting) == 0 {
		return
	}
	if !n.r.IsPrimary() || !n.r.installed() {
		n.waiting = nil // the client gets an error and retries elsewhere
		return
	}
	kept := n.waiting[:0]
	for _, w := range n.waiting {
		if !n.r.Acknowledged(w.op, Persisted) {
			kept = append(kept, w)
			continue
		}
		if !n.r.Acknowledged(w.op, Replicated) || !n.r.Acknowledged(w.op, NoAck) {
			n.c.fatalf("r%d: op %d persisted but not replicated", n.id, w.op)
		}
		n.c.acked[w.op] = w.checksum
	}
	n.waiting = kept
}

func (n *hnode) complete(comp storage.Completion) {
	o, ok := n.owners[comp.ID]
	if !ok {
		n.c.fatalf("r%d: completion of unknown request %d", n.id, comp.ID)
	}
	delete(n.owners, comp.ID)
	switch o.kind {
	case ownJournal:
		if !n.r.Complete(comp) && comp.Result != storage.ResultOK {
			n.c.fatalf("r%d: journal request failed: %s", n.id, comp.Err)
		}
	case ownSuperblock:
		if comp.Result != storage.ResultOK {
			n.c.fatalf("r%d: superblock request failed: %s", n.id, comp.Err)
		}
		if comp.ID == n.sbWriting.sync {
			n.superblockDurable()
		}
	case ownCheckpoint:
		if comp.Result != storage.ResultOK {
			n.c.fatalf("r%d: checkpoint request failed: %s", n.id, comp.Err)
		}
		if n.ckpt != nil && comp.ID == n.ckpt.rename {
			n.readyCkpt, n.ckpt = n.ckpt, nil
			n.writeSuperblock()
		}
	}
	n.drain()
}

// maybeCheckpoint writes an image of the state every opts.checkpoint ops.
func (n *hnode) maybeCheckpoint() {
	if n.ckpt != nil || n.readyCkpt != nil || n.installing != nil || n.applied < n.lastCkpt+n.c.opts.checkpoint {
		return
	}
	img := encodeImage(n.applied, n.appliedChecksum, n.state, n.c.opts.imageBytes)
	n.lastCkpt = n.applied
	n.journal.Rotate()
	n.writeImage(&ckptWrite{cp: Checkpoint{Op: n.applied, Checksum: n.appliedChecksum, Size: uint64(len(img)),
		ImageChecksum: xxh3.Hash(img)}, image: img})
}

func (n *hnode) writeImage(w *ckptWrite) {
	n.ckpt = w
	n.submit(ownCheckpoint, storage.Request{Op: storage.OpCreate, File: snapshotTemp})
	n.submit(ownCheckpoint, storage.Request{Op: storage.OpTruncate, File: snapshotTemp})
	n.submit(ownCheckpoint, storage.Request{Op: storage.OpWrite, File: snapshotTemp, Data: [][]byte{w.image}})
	n.submit(ownCheckpoint, storage.Request{Op: storage.OpSync, File: snapshotTemp})
	w.rename = n.submit(ownCheckpoint, storage.Request{Op: storage.OpRename, File: snapshotTemp, Target: snapshotPath(w.cp.Op)})
}

// startInstall installs a state transfer image once no checkpoint of ours
// is on its way to the superblock.
func (n *hnode) startInstall() {
	in := n.installing
	if in == nil || n.ckpt != nil || n.readyCkpt != nil || n.sbWriting != nil && n.sbWriting.ckpt != nil {
		return
	}
	n.installing = nil
	op, checksum, state := decodeImage(in.Image)
	if op != in.Checkpoint.Op || checksum != in.Checkpoint.Checksum || xxh3.Hash(in.Image) != in.Checkpoint.ImageChecksum {
		n.c.fatalf("r%d: image does not match its checkpoint %+v", n.id, in.Checkpoint)
	}
	n.c.stateIs(n.id, op, state)
	n.applied, n.appliedChecksum, n.state, n.lastCkpt = op, checksum, state, op
	n.writeImage(&ckptWrite{cp: in.Checkpoint, image: in.Image, install: true})
}

// writeSuperblock writes the next superblock when none is in flight: the
// view state the replica asked for and the checkpoint that became durable.
func (n *hnode) writeSuperblock() {
	if n.sbWriting != nil || n.wantVS == nil && n.readyCkpt == nil {
		return
	}
	w := &sbWrite{sb: n.sb, vs: n.wantVS, ckpt: n.readyCkpt}
	n.wantVS, n.readyCkpt = nil, nil
	w.sb.Sequence++
	if w.vs != nil {
		w.sb.View, w.sb.LogView, w.sb.LogHeadOp, w.sb.LogHeadChecksum = w.vs.View, w.vs.LogView, w.vs.LogHeadOp, w.vs.LogHeadChecksum
	}
	if w.ckpt != nil {
		cp := w.ckpt.cp
		w.sb.CheckpointOp, w.sb.CheckpointChecksum = cp.Op, cp.Checksum
		w.sb.SnapshotSize, w.sb.SnapshotChecksum = cp.Size, cp.ImageChecksum
	}
	path := superblockA
	if w.sb.Sequence%2 == 0 {
		path = superblockB
	}
	n.submit(ownSuperblock, storage.Request{Op: storage.OpWrite, File: path, Data: [][]byte{w.sb.Encode()}})
	w.sync = n.submit(ownSuperblock, storage.Request{Op: storage.OpSync, File: path})
	n.sbWriting = w
}

func (n *hnode) superblockDurable() {
	w := n.sbWriting
	n.sbWriting = nil
	if w.sb.View < n.sb.View || w.sb.LogView < n.sb.LogView {
		n.c.fatalf("r%d: superblock view %d log view %d after %d, %d", n.id, w.sb.View, w.sb.LogView, n.sb.View, n.sb.LogView)
	}
	n.sb = w.sb
	n.viewSync = max(n.viewSync, w.sb.View)
	n.logViewSync = max(n.logViewSync, w.sb.LogView)
	if w.vs != nil {
		n.r.SuperblockWritten(*w.vs)
	}
	if w.ckpt != nil {
		if old := n.serving; old != nil && old.cp.Op != w.ckpt.cp.Op {
			n.submit(ownCheckpoint, storage.Request{Op: storage.OpDelete, File: snapshotPath(old.cp.Op)})
		}
		n.serving = w.ckpt
		if w.ckpt.install {
			n.r.Installed(w.ckpt.cp)
		} else {
			n.journal.Release(w.ckpt.cp.Op)
			n.r.Checkpointed(w.ckpt.cp.Op)
		}
	}
	n.writeSuperblock()
}

// Latest and Chunk serve this node's newest durable checkpoint (Images).
func (n *hnode) Latest() (Checkpoint, bool) {
	if n.serving == nil {
		return Checkpoint{}, false
	}
	return n.serving.cp, true
}

func (n *hnode) Chunk(cp Checkpoint, offset uint64, sizeMax int) ([]byte, bool) {
	if n.serving == nil || n.serving.cp != cp || offset > cp.Size {
		return nil, false
	}
	end := min(offset+uint64(sizeMax), cp.Size)
	return n.serving.image[offset:end], true
}

// snapshotPath names the image of the checkpoint at op: a new image never
// replaces the one the durable superblock names.
func snapshotPath(op uint64) string { return fmt.Sprintf("snapshot/%020d.bin", op) }

// crash is a power loss: unsynced writes are lost, or with torn half of
// them survive, the last cut mid-write; kill is the death of the process
// alone.
func (c *cluster) crash(id uint8, torn bool) {
	n := c.nodes[id]
	n.disk.CrashKeeping(func(_ string, unsynced uint64) uint64 {
		if !torn {
			return 0
		}
		return min(unsynced, unsynced/2+7) // off any prepare boundary: the last kept prepare is cut mid-write
	})
	n.r = nil
}

func (c *cluster) kill(id uint8) {
	n := c.nodes[id]
	n.disk.Kill()
	n.r = nil
}

func (c *cluster) restart(id uint8) {
	n := c.nodes[id]
	if n.r != nil {
		c.fatalf("r%d restarted while up", id)
	}
	n.boot(false)
}

func (n *hnode) describe() string {
	if n.r == nil {
		return fmt.Sprintf("r%d down", n.id)
	}
	r := n.r
	role := "backup"
	if r.IsPrimary() {
		role = "primary"
	}
	s := fmt.Sprintf("r%d %s %s view=%d log_view=%d op=%d commit=%d applied=%d checkpoint=%d",
		n.id, r.Status(), role, r.View(), r.LogView(), r.Op(), r.Commit(), n.applied, n.sb.CheckpointOp)
	if r.Untrusted() {
		s += " untrusted"
	}
	return s
}
