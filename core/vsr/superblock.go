package vsr

import (
	"encoding/binary"

	"github.com/zeebo/xxh3"
)

// SuperblockSize is the size of one superblock slot. Two slots are written in
// turn, so a torn write of one leaves the other intact; the valid slot with
// the higher sequence wins.
const SuperblockSize = 64

// superblockVersion is the layout version of a slot.
const superblockVersion = 1

// Superblock is the durable state of a group that is not in its log: the view
// it is in, and the checkpoint its log starts after.
type Superblock struct {
	Sequence         uint64
	View             uint32
	LogView          uint32
	CheckpointOp     uint64 // 0: no checkpoint, replay from op 1
	SnapshotSize     uint64
	SnapshotChecksum uint64 // XXH3 of the snapshot file
}

// Layout: 0 checksum (XXH3 of 8..64), 8 sequence, 16 version u32, 20 view,
// 24 log view, 28 reserved u32, 32 checkpoint op, 40 snapshot size,
// 48 snapshot checksum, 56 reserved u64. Reserved bytes are zero.

// Encode returns the slot bytes.
func (s Superblock) Encode() []byte {
	b := make([]byte, SuperblockSize)
	le := binary.LittleEndian
	le.PutUint64(b[8:], s.Sequence)
	le.PutUint32(b[16:], superblockVersion)
	le.PutUint32(b[20:], s.View)
	le.PutUint32(b[24:], s.LogView)
	le.PutUint64(b[32:], s.CheckpointOp)
	le.PutUint64(b[40:], s.SnapshotSize)
	le.PutUint64(b[48:], s.SnapshotChecksum)
	le.PutUint64(b, xxh3.Hash(b[8:]))
	return b
}

// DecodeSuperblock reads a slot; ok is false for a torn, corrupt, foreign or
// empty slot.
func DecodeSuperblock(b []byte) (Superblock, bool) {
	le := binary.LittleEndian
	if len(b) != SuperblockSize || le.Uint64(b) != xxh3.Hash(b[8:]) ||
		le.Uint32(b[16:]) != superblockVersion || le.Uint32(b[28:]) != 0 || le.Uint64(b[56:]) != 0 {
		return Superblock{}, false
	}
	s := Superblock{
		Sequence: le.Uint64(b[8:]), View: le.Uint32(b[20:]), LogView: le.Uint32(b[24:]),
		CheckpointOp: le.Uint64(b[32:]), SnapshotSize: le.Uint64(b[40:]), SnapshotChecksum: le.Uint64(b[48:]),
	}
	return s, s.Sequence > 0
}

// Newest picks the valid slot with the higher sequence.
func Newest(a, b []byte) (Superblock, bool) {
	sa, okA := DecodeSuperblock(a)
	sb, okB := DecodeSuperblock(b)
	switch {
	case okA && okB && sb.Sequence > sa.Sequence:
		return sb, true
	case okA:
		return sa, true
	case okB:
		return sb, true
	}
	return Superblock{}, false
}
