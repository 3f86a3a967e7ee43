package vsr

import (
	"encoding/binary"
	"fmt"

	"github.com/zeebo/xxh3"
)

// SuperblockSize is the size of one superblock slot as written (version 2).
// Two slots are written in turn, so a torn write of one leaves the other
// intact; the valid slot with the higher sequence wins.
const SuperblockSize = 128

// superblockSizeV1 is the size of a version-1 slot, still readable (STOR-14).
const superblockSizeV1 = 64

// Superblock layout versions: 1 is read, 2 is read and written (STOR-14).
const (
	superblockVersion1 = 1
	superblockVersion  = 2
)

// Superblock is the durable state of a group that is not in its log: the
// view it is in, the view whose log it holds with that log's head when it
// was adopted (so a restart can tell a log that lost its tail, STOR-16),
// and the checkpoint its log starts after.
type Superblock struct {
	Sequence           uint64
	View               uint32
	LogView            uint32
	CheckpointOp       uint64 // 0: no checkpoint, replay from op 1
	SnapshotSize       uint64
	SnapshotChecksum   uint64 // XXH3 of the snapshot file
	CheckpointChecksum uint64 // checksum of the prepare of CheckpointOp (0: unknown)
	LogHeadOp          uint64 // head of the log of LogView when it was adopted
	LogHeadChecksum    uint64
}

// Layout (little endian): 0 checksum (XXH3 of 8..size), 8 sequence,
// 16 version u32, 20 view u32, 24 log view u32, 28 reserved u32,
// 32 checkpoint op, 40 snapshot size, 48 snapshot checksum; version 2 goes
// on with 56 checkpoint checksum, 64 log head op, 72 log head checksum,
// 80..128 reserved. Version 1 ends at 64 with 56 reserved. Reserved bytes
// are zero.

// Encode returns the slot bytes (version 2).
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
	le.PutUint64(b[56:], s.CheckpointChecksum)
	le.PutUint64(b[64:], s.LogHeadOp)
	le.PutUint64(b[72:], s.LogHeadChecksum)
	le.PutUint64(b, xxh3.Hash(b[8:]))
	return b
}

// DecodeSuperblock reads a slot of either version; ok is false for a torn,
// corrupt, foreign or empty slot.
func DecodeSuperblock(b []byte) (Superblock, bool) {
	le := binary.LittleEndian
	if len(b) < superblockSizeV1 || le.Uint64(b) != xxh3.Hash(b[8:]) || le.Uint32(b[28:]) != 0 {
		return Superblock{}, false
	}
	version := le.Uint32(b[16:])
	switch {
	case version == superblockVersion1 && len(b) == superblockSizeV1:
		if le.Uint64(b[56:]) != 0 {
			return Superblock{}, false
		}
	case version == superblockVersion && len(b) == SuperblockSize:
		if !allZero(b[80:]) {
			return Superblock{}, false
		}
	default:
		return Superblock{}, false
	}
	s := Superblock{
		Sequence: le.Uint64(b[8:]), View: le.Uint32(b[20:]), LogView: le.Uint32(b[24:]),
		CheckpointOp: le.Uint64(b[32:]), SnapshotSize: le.Uint64(b[40:]), SnapshotChecksum: le.Uint64(b[48:]),
	}
	if version == superblockVersion {
		s.CheckpointChecksum = le.Uint64(b[56:])
		s.LogHeadOp = le.Uint64(b[64:])
		s.LogHeadChecksum = le.Uint64(b[72:])
	}
	return s, s.Sequence > 0 && s.LogView <= s.View
}

// superblockVersionEnd is where the version field ends: a slot shorter
// than this has no version to judge.
const superblockVersionEnd = 20

// SuperblockVersionError is a slot whose checksum holds but whose envelope
// version this binary does not understand. A newer binary wrote it, so
// falling back to the other, older slot would roll its state back: the
// slot is refused instead (STOR-18).
type SuperblockVersionError struct{ Version uint32 }

func (e SuperblockVersionError) Error() string {
	return fmt.Sprintf("superblock envelope version %d is not understood by this binary (it reads versions %d and %d); "+
		"restore a consistent backup with its matching binary, never remove a slot to bypass this",
		e.Version, superblockVersion1, superblockVersion)
}

// CheckSuperblockVersion returns a SuperblockVersionError for a slot whose
// checksum holds and whose version is neither 1 nor 2; nil for any other
// slot, valid or torn (a torn slot is the other slot's business).
func CheckSuperblockVersion(b []byte) error {
	le := binary.LittleEndian
	if len(b) < superblockVersionEnd || le.Uint64(b) != xxh3.Hash(b[8:]) {
		return nil
	}
	version := le.Uint32(b[16:])
	if version == superblockVersion1 || version == superblockVersion {
		return nil
	}
	return SuperblockVersionError{Version: version}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Newest picks the valid slot with the higher sequence. Callers refuse a
// slot of an unknown version first (CheckSuperblockVersion): Newest would
// skip it like a torn one.
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
