package vsr

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/zeebo/xxh3"
)

// covers STOR-14, STOR-16
func TestSuperblockRoundTrip(t *testing.T) {
	s := Superblock{Sequence: 9, View: 7, LogView: 6, CheckpointOp: 100, SnapshotSize: 5,
		SnapshotChecksum: 6, CheckpointChecksum: 7, LogHeadOp: 120, LogHeadChecksum: 8}
	b := s.Encode()
	if len(b) != SuperblockSize {
		t.Fatalf("size %d", len(b))
	}
	got, ok := DecodeSuperblock(b)
	if !ok || got != s {
		t.Fatalf("got %+v ok=%v", got, ok)
	}
	b[100] = 1
	if _, ok := DecodeSuperblock(b); ok {
		t.Fatal("damaged slot accepted")
	}
}

// A version-1 slot (64 bytes) is still read; only version 2 is written (STOR-14).
// covers STOR-14
func TestSuperblockReadsVersion1(t *testing.T) {
	b := make([]byte, superblockSizeV1)
	le := binary.LittleEndian
	le.PutUint64(b[8:], 4)
	le.PutUint32(b[16:], superblockVersion1)
	le.PutUint32(b[20:], 2)
	le.PutUint32(b[24:], 2)
	le.PutUint64(b[32:], 50)
	le.PutUint64(b, xxh3.Hash(b[8:]))
	s, ok := DecodeSuperblock(b)
	if !ok || s.Sequence != 4 || s.View != 2 || s.CheckpointOp != 50 || s.LogHeadOp != 0 {
		t.Fatalf("got %+v ok=%v", s, ok)
	}
	newer := Superblock{Sequence: 5, View: 3, LogView: 3}.Encode()
	if s, ok := Newest(b, newer); !ok || s.Sequence != 5 {
		t.Fatalf("newest %+v", s)
	}
	le.PutUint32(b[16:], 3)
	le.PutUint64(b, xxh3.Hash(b[8:]))
	if _, ok := DecodeSuperblock(b); ok {
		t.Fatal("unknown version accepted")
	}
}

// A checksummed slot of an unknown version is reported, so boot refuses it
// instead of falling back to the other slot; torn slots and known versions
// are not.
// covers STOR-18
func TestSuperblockUnknownVersionReported(t *testing.T) {
	b := Superblock{Sequence: 3, View: 1, LogView: 1}.Encode()
	if err := CheckSuperblockVersion(b); err != nil {
		t.Fatalf("version 2 reported: %v", err)
	}
	le := binary.LittleEndian
	le.PutUint32(b[16:], 3)
	le.PutUint64(b, xxh3.Hash(b[8:]))
	err := CheckSuperblockVersion(b)
	var verr SuperblockVersionError
	if !errors.As(err, &verr) || verr.Version != 3 {
		t.Fatalf("version 3: %v", err)
	}
	if !strings.Contains(err.Error(), "version 3") {
		t.Errorf("message %q does not name the version", err)
	}
	b[100] = 1 // torn: the checksum no longer holds
	if err := CheckSuperblockVersion(b); err != nil {
		t.Fatalf("torn slot reported: %v", err)
	}
	for _, short := range [][]byte{nil, make([]byte, 19)} {
		if err := CheckSuperblockVersion(short); err != nil {
			t.Fatalf("short slot reported: %v", err)
		}
	}
}

func TestSuperblockRejectsLogViewAboveView(t *testing.T) {
	if _, ok := DecodeSuperblock(Superblock{Sequence: 1, View: 1, LogView: 2}.Encode()); ok {
		t.Fatal("log view above view accepted")
	}
}

func FuzzDecodeSuperblock(f *testing.F) {
	f.Add(Superblock{Sequence: 1, View: 1}.Encode())
	f.Add(make([]byte, superblockSizeV1))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, ok := DecodeSuperblock(b)
		if ok && (s.Sequence == 0 || s.LogView > s.View) {
			t.Fatalf("accepted %+v", s)
		}
		if ok && CheckSuperblockVersion(b) != nil {
			t.Fatalf("decoded slot reported as an unknown version")
		}
	})
}
