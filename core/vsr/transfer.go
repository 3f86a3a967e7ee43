package vsr

import (
	"github.com/iggygo/iggy/internal/assert"
	"github.com/zeebo/xxh3"
)

// StateChunkBytesMax bounds one state transfer chunk.
const StateChunkBytesMax = 1 << 20

// imageBytesMax bounds a checkpoint image received by state transfer: it
// is reassembled in memory before the caller installs it.
const imageBytesMax = 1 << 30

// transferState is a state transfer under way: the image of a source's
// checkpoint, fetched one chunk at a time.
type transferState struct {
	active      bool
	source      uint8
	cp          Checkpoint
	image       []byte
	requestedAt uint64
	emitted     bool // handed to the caller; the log is frozen until Installed
}

// onRangeEvicted: the source no longer holds the ops the repair needs, so
// the replica asks for the source's checkpoint instead (VSR-22). A lost
// answer costs a repair retry, which asks again. A transfer still under
// way from another replica (the source of a view the replica has left,
// perhaps down since) is dropped for this one: a replica whose view ran
// ahead of its transfer still completes one (VSR-25).
func (r *Replica) onRangeEvicted(m *Message) {
	s, t := &r.sync, &r.transfer
	if !s.active || m.From != s.source || m.View != r.view || m.Op != s.cursor+1 {
		return
	}
	if t.active {
		if t.emitted || t.source == m.From {
			return
		}
		r.marks.Hit("vsr.state_transfer.source_changed")
		*t = transferState{}
	}
	r.marks.Hit("vsr.repair.range_evicted")
	r.send(Message{Command: CmdRequestStateTransfer, To: m.From, View: r.view})
}

func (r *Replica) beginTransfer(source uint8, cp Checkpoint) {
	if cp.Size > imageBytesMax || cp.Op <= r.commit {
		r.marks.Hit("vsr.state_transfer.refused")
		r.transfer = transferState{}
		return
	}
	r.marks.Hit("vsr.state_transfer.started")
	// The image grows chunk by chunk: a peer's claimed size is not trusted
	// with an allocation.
	r.transfer = transferState{active: true, source: source, cp: cp, image: make([]byte, 0, min(cp.Size, uint64(r.chunkSize)))}
	r.requestChunk()
}

func (r *Replica) requestChunk() {
	t := &r.transfer
	t.requestedAt = r.now
	r.send(Message{Command: CmdRequestStateChunk, To: t.source, View: r.view, Checkpoint: t.cp, Offset: uint64(len(t.image))})
}

// onRequestStateTransfer names the checkpoint this replica serves.
func (r *Replica) onRequestStateTransfer(m *Message) {
	if cp, ok := r.images.Latest(); ok {
		r.send(Message{Command: CmdStateTransferTarget, To: m.From, View: r.view, Checkpoint: cp})
	}
}

// onStateTransferTarget starts fetching the checkpoint a repair source
// offers, when it reaches past what the repair verified, or restarts a
// transfer on the source's newer checkpoint.
func (r *Replica) onStateTransferTarget(m *Message) {
	t, s := &r.transfer, &r.sync
	switch {
	case t.emitted:
	case t.active:
		if m.From == t.source && m.Checkpoint != t.cp {
			r.beginTransfer(m.From, m.Checkpoint)
		}
	case s.active && m.From == s.source && m.View == r.view && m.Checkpoint.Op > s.cursor:
		r.beginTransfer(m.From, m.Checkpoint)
	}
}

// onRequestStateChunk serves image bytes; a checkpoint no longer held is
// answered with the newest one.
func (r *Replica) onRequestStateChunk(m *Message) {
	latest, ok := r.images.Latest()
	if !ok {
		return
	}
	if m.Checkpoint != latest || m.Offset > latest.Size {
		r.send(Message{Command: CmdStateTransferTarget, To: m.From, View: r.view, Checkpoint: latest})
		return
	}
	data, ok := r.images.Chunk(latest, m.Offset, r.chunkSize)
	if !ok {
		return
	}
	r.marks.Hit("vsr.state_transfer.served")
	r.send(Message{Command: CmdStateChunk, To: m.From, View: r.view, Checkpoint: latest, Offset: m.Offset, Data: data})
}

// onStateChunk appends the next chunk; a whole image is handed to the
// caller once its checksum holds.
func (r *Replica) onStateChunk(m *Message) {
	t := &r.transfer
	if !t.active || t.emitted || m.From != t.source || m.Checkpoint != t.cp || m.Offset != uint64(len(t.image)) {
		return
	}
	if len(m.Data) == 0 || uint64(len(t.image)+len(m.Data)) > t.cp.Size {
		r.marks.Hit("vsr.message.corrupt")
		return
	}
	t.image = append(t.image, m.Data...)
	if uint64(len(t.image)) < t.cp.Size {
		r.requestChunk()
		return
	}
	if xxh3.Hash(t.image) != t.cp.ImageChecksum || t.cp.Op <= r.commit {
		r.marks.Hit("vsr.state_transfer.refused")
		*t = transferState{}
		return
	}
	t.emitted = true
	r.install = &Install{Checkpoint: t.cp, Image: t.image, Source: t.source}
}

// Installed reports that the caller installed the image of cp as its state
// and made cp its durable checkpoint. The journal starts over after it.
func (r *Replica) Installed(cp Checkpoint) {
	t := &r.transfer
	if !t.emitted || t.cp != cp {
		assert.Failf("installed %+v, transferring %+v", cp, t.cp)
	}
	// Ops past the checkpoint that the log held are gone now: until a new
	// log view is adopted, the log falls short of what its log view promised.
	claim := r.log.head()
	if r.untrusted {
		claim = max(claim, r.claimOp)
	}
	r.untrusted, r.claimOp = claim > cp.Op, 0
	if r.untrusted {
		r.claimOp = claim
	}
	r.journal.Reset(cp.Op)
	r.log.reset(cp.Op, cp.Checksum)
	r.commit, r.applied, r.ckptOp = cp.Op, cp.Op, cp.Op
	*t = transferState{}
	r.marks.Hit("vsr.state_transfer.installed")
	if s := &r.sync; s.active {
		s.cursor, s.requested = cp.Op, false
		if cp.Op >= s.head {
			// The image is newer than the head sought: it holds that
			// head, committed, and becomes the head.
			s.head, s.headChecksum, s.suffix = cp.Op, cp.Checksum, nil
		}
		r.syncAdvance()
	}
	r.invariants()
}
