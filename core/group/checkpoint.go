package group

import (
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/io/storage"
	"github.com/zeebo/xxh3"
)

// Checkpoint is a checkpoint under way, or the durable one served. Its
// image is made durable in a file of its own, then named by a new
// superblock; only then is the previous image deleted, so a crash at any
// point leaves the durable superblock naming an image that exists. An
// installed state transfer takes the same path with Install set: the
// replica waits for it.
type Checkpoint struct {
	CP      vsr.Checkpoint
	Image   []byte // kept to serve peers (Config.ServeImages)
	Install bool

	imageSync storage.ReqID // the image file is durable once this completes
	synced    bool
}

// Checkpoint starts a checkpoint at op, the applied op whose prepare has
// checksum, with img the state machine's image of the state after it.
// Later ops go to a new journal segment, which the checkpoint does not hold
// up.
func (h *Host) Checkpoint(op, checksum uint64, img []byte) {
	if op <= h.durable {
		assert.Failf("group: checkpoint at op %d, the durable one is at %d", op, h.durable)
	}
	h.journal.Rotate()
	h.writeImage(&Checkpoint{CP: vsr.Checkpoint{Op: op, Checksum: checksum,
		Size: uint64(len(img)), ImageChecksum: xxh3.Hash(img)}, Image: img})
	assert.That(h.Checkpointing(), "group: a checkpoint started is under way")
}

// Install makes an installed state transfer's image the next checkpoint;
// the replica resumes once it is durable (StateMachine.Installed).
func (h *Host) Install(cp vsr.Checkpoint, img []byte) {
	assert.That(h.replica != nil, "group: a state transfer installed before the group opened")
	h.writeImage(&Checkpoint{CP: cp, Image: img, Install: true})
	assert.That(h.pending != nil && h.pending.Install, "group: an installed state transfer is not under way")
}

// Checkpointing reports a checkpoint on its way to the superblock: its
// image being written, durable and waiting, or in the slot write in
// flight. Until it is there the durable checkpoint is the older one, so a
// new checkpoint would take the same op again and rewrite the image file
// the durable superblock names (sim cluster seed 1103: a power loss
// between the truncate and the write left it empty).
func (h *Host) Checkpointing() bool {
	return h.pending != nil || h.writing != nil && h.writing.ckpt != nil
}

// writeImage makes a checkpoint's image durable in its own file.
func (h *Host) writeImage(ck *Checkpoint) {
	assert.That(!h.Checkpointing(), "group: a checkpoint started while another is under way")
	if uint64(len(ck.Image)) != ck.CP.Size {
		assert.Failf("group: image of op %d holds %d bytes, its checkpoint says %d", ck.CP.Op, len(ck.Image), ck.CP.Size)
	}
	assert.That(!ck.synced && ck.imageSync == 0, "group: an image written twice")
	h.pending = ck
	d, path := h.cfg.Images, h.cfg.Files.Image(ck.CP.Op)
	d.Submit(storage.Request{Op: storage.OpCreate, File: path})
	d.Submit(storage.Request{Op: storage.OpTruncate, File: path})
	d.Submit(storage.Request{Op: storage.OpWrite, File: path, Data: [][]byte{ck.Image}})
	ck.imageSync = d.Submit(storage.Request{Op: storage.OpSync, File: path})
	if !h.cfg.ServeImages {
		ck.Image = nil // nobody asks a standalone node for its image
	}
	assert.That(h.pending == ck && ck.imageSync != 0, "group: an image written is not the one under way")
}

// ready reports a checkpoint whose image is durable, and the state
// machine's writes of its ops too: a superblock may name it.
func (h *Host) ready() bool {
	return h.pending != nil && h.pending.synced && h.sm.Durable(h.pending.CP.Op)
}

// checkpointDurable runs once the superblock naming ck is durable: the
// image the old superblock named and the journal the checkpoint covers go.
func (h *Host) checkpointDurable(ck *Checkpoint) {
	if ck.CP.Op < h.durable {
		assert.Failf("group: checkpoint at op %d made durable after op %d", ck.CP.Op, h.durable)
	}
	if h.durable > 0 && h.durable != ck.CP.Op {
		h.cfg.Misc.Submit(storage.Request{Op: storage.OpDelete, File: h.cfg.Files.Image(h.durable)})
	}
	assert.That(ck.synced, "group: a checkpoint made durable before its image")
	h.durable, h.serving = ck.CP.Op, ck
	if ck.Install {
		h.replica.Installed(ck.CP)
		h.sm.Installed(ck)
		return
	}
	h.journal.Release(ck.CP.Op)
	h.replica.Checkpointed(ck.CP.Op)
	h.sm.Checkpointed(ck)
}

// serve makes the checkpoint boot found in the superblock the one served
// to peers; img is its image, checked against the superblock.
func (h *Host) serve(sb vsr.Superblock, img []byte) {
	assert.That(sb.CheckpointOp > 0, "group: serving the checkpoint of op 0")
	if uint64(len(img)) != sb.SnapshotSize {
		assert.Failf("group: image of op %d holds %d bytes, the superblock says %d", sb.CheckpointOp, len(img), sb.SnapshotSize)
	}
	ck := &Checkpoint{CP: vsr.Checkpoint{Op: sb.CheckpointOp, Checksum: sb.CheckpointChecksum,
		Size: sb.SnapshotSize, ImageChecksum: sb.SnapshotChecksum}, synced: true}
	if h.cfg.ServeImages {
		ck.Image = img
	}
	h.serving = ck
	assert.That(h.pending == nil, "group: a checkpoint served at boot while another is under way")
}

// Latest is the newest durable checkpoint this replica serves (vsr.Images).
func (h *Host) Latest() (vsr.Checkpoint, bool) {
	s := h.serving
	if s == nil || s.Image == nil {
		return vsr.Checkpoint{}, false
	}
	return s.CP, true
}

// Chunk returns up to sizeMax bytes of the image of cp from offset
// (vsr.Images).
func (h *Host) Chunk(cp vsr.Checkpoint, offset uint64, sizeMax int) ([]byte, bool) {
	s := h.serving
	if s == nil || s.Image == nil || s.CP != cp || offset > cp.Size {
		return nil, false
	}
	return s.Image[offset:min(offset+uint64(sizeMax), cp.Size)], true
}
