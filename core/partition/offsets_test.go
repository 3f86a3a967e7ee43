package partition

import (
	"testing"

	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

const consumer7 = testDir + "/offsets/consumers/7"

func stored(h *harness, token uint64) bool {
	for _, e := range h.events {
		if s, ok := e.(OffsetStored); ok && s.Token == token {
			return true
		}
	}
	return false
}

// An offset stored with sync survives a crash; one stored without survives
// a clean restart.
// covers CGRP-12
func TestOffsetStoreAndRecover(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(10, 2, true)
	tok := h.log.StoreOffset(Consumer, 7, 11, true)
	if off, ok := h.log.Offset(Consumer, 7); !ok || off != 11 {
		t.Fatalf("offset %d %v", off, ok)
	}
	h.step()
	if !stored(h, tok) {
		t.Fatal("no OffsetStored")
	}
	b := h.disk.get(consumer7)
	if off, ok := decodeOffset(b); len(b) != offsetRecordBytes || !ok || off != 11 {
		t.Fatalf("file %x", b)
	}
	h.disk.crash(nil)
	h.reopen()
	if off, ok := h.log.Offset(Consumer, 7); !ok || off != 11 {
		t.Fatalf("synced offset after a crash: %d %v", off, ok)
	}
	h.log.StoreOffset(Group, 3, 19, false)
	h.log.StoreOffset(Consumer, 7, 12, false)
	h.step()
	h.reopen()
	if off, ok := h.log.Offset(Consumer, 7); !ok || off != 12 {
		t.Fatalf("recovered consumer offset %d %v", off, ok)
	}
	if off, ok := h.log.Offset(Group, 3); !ok || off != 19 {
		t.Fatalf("recovered group offset %d %v", off, ok)
	}
}

// §10.5: offset 42 has checksum 0xD5A6F8C838DF27C8.
func TestOffsetFileFormat(t *testing.T) {
	b := encodeOffset(42)
	want := []byte{42, 0, 0, 0, 0, 0, 0, 0, 0xC8, 0x27, 0xDF, 0x38, 0xC8, 0xF8, 0xA6, 0xD5}
	if string(b) != string(want) {
		t.Fatalf("encoded %x, want %x", b, want)
	}
}

// Legacy 8-byte files load; corrupt and torn ones are discarded; offsets
// beyond the recovered head are clamped to it (§10.5).
func TestOffsetRecoveryRules(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(5, 2, true) // head 9
	dir := testDir + "/offsets/"
	h.disk.put(dir+"consumers/1", []byte{4, 0, 0, 0, 0, 0, 0, 0})  // legacy
	h.disk.put(dir+"consumers/2", append(encodeOffset(6)[:15], 0)) // bad checksum
	h.disk.put(dir+"consumers/3", []byte{1, 2, 3})                 // torn
	h.disk.put(dir+"groups/4", encodeOffset(500))                  // ahead of the head
	h.disk.put(dir+"groups/not-a-number", encodeOffset(1))         // ignored
	h.disk.put(dir+"consumers/5", append(encodeOffset(3), 0))      // trailing byte
	r := h.reopen()
	if r.DiscardedOffsets != 3 || r.ClampedOffsets != 1 {
		t.Fatalf("recovered %+v", r)
	}
	if off, ok := h.log.Offset(Consumer, 1); !ok || off != 4 {
		t.Fatalf("legacy offset %d %v", off, ok)
	}
	for _, id := range []uint32{2, 3, 5} {
		if _, ok := h.log.Offset(Consumer, id); ok {
			t.Fatalf("corrupt offset %d loaded", id)
		}
	}
	if off, _ := h.log.Offset(Group, 4); off != 9 {
		t.Fatalf("clamped offset %d, want 9", off)
	}
	// The auto-commit path overwrites a discarded file.
	h.log.StoreOffset(Consumer, 2, 7, false)
	h.step()
	h.log.StoreOffset(Consumer, 5, 8, false) // the file with a trailing byte
	h.step()
	if off, ok := decodeOffset(h.disk.get(dir + "consumers/2")); !ok || off != 7 {
		t.Fatal("corrupt file not overwritten")
	}
	if off, ok := decodeOffset(h.disk.get(dir + "consumers/5")); !ok || off != 8 {
		t.Fatalf("long file not cut to one record: %x", h.disk.get(dir+"consumers/5"))
	}
}

func TestOffsetDelete(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(1, 1, true)
	if _, ok := h.log.DeleteOffset(Consumer, 7); ok {
		t.Fatal("deleted an offset never stored")
	}
	h.log.StoreOffset(Consumer, 7, 0, false)
	h.step()
	tok, ok := h.log.DeleteOffset(Consumer, 7)
	h.step()
	if !ok || !stored(h, tok) || h.disk.files[consumer7] != nil {
		t.Fatal("offset file not deleted")
	}
	if _, ok := h.log.Offset(Consumer, 7); ok {
		t.Fatal("offset still stored")
	}
	// Storing again recreates the file.
	h.log.StoreOffset(Consumer, 7, 0, false)
	h.step()
	if h.disk.files[consumer7] == nil {
		t.Fatal("file not recreated")
	}
}

func TestOffsetWriteFailure(t *testing.T) {
	h := newHarness(t, testConfig())
	h.fill(1, 1, true)
	h.disk.fault = func(r storage.Request) storage.Result {
		if r.File == consumer7 && r.Op == storage.OpWrite {
			return storage.ResultIOError
		}
		return storage.ResultOK
	}
	tok := h.log.StoreOffset(Consumer, 7, 0, true)
	h.step()
	for _, e := range h.events {
		if f, ok := e.(Failed); ok && f.Token == tok && f.Code != wire.OK {
			return
		}
	}
	t.Fatal("write failure not reported")
}
