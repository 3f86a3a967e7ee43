package node

import (
	"encoding/binary"
	"testing"

	"github.com/iggygo/iggy/core/metadata"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// A register applies under the capacity the group committed with its first
// stamped register, not the applying replica's own configuration nor a
// later register's stamp, so replicas configured apart agree, and so do a
// group's ops before and after a restart with another value; a body of the
// user alone (older journals) applies under clientsMax. A register proposed
// against a session the client no longer holds is stale and changes nothing.
// covers SESS-30, SESS-29
func TestRegisterAppliesCommittedCapacity(t *testing.T) {
	n := New(Config{ServerVersion: "test", SegmentSizeBytes: 1 << 20, ClientsTableMax: 100}, nil)
	n.meta = metadata.New() // the register records the session in the change log
	n.clients[wire.U128{Lo: 1}] = &client{userID: 0, session: 1}
	n.clients[wire.U128{Lo: 2}] = &client{userID: 0, session: 2}
	body := func(capacity uint32, seen uint64) []byte {
		b := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 0), capacity)
		return binary.LittleEndian.AppendUint64(b, seen)
	}
	stamped := func(capacity uint32) []byte { return body(capacity, 0) }
	register := func(lo uint64, op uint64, body []byte) bool {
		_, outcome := n.applyRegister(&vsr.Prepare{Op: op, ClientLo: lo, Body: body})
		return outcome == registerApplied
	}
	if register(3, 3, stamped(2)) {
		t.Error("a new session admitted past the stamped capacity of 2")
	}
	if n.clientsLimit != 2 || n.clientsTableMax() != 2 {
		t.Errorf("the first stamped register committed %d (table max %d), want 2", n.clientsLimit, n.clientsTableMax())
	}
	if !register(1, 4, body(2, 1)) {
		t.Error("a resume refused at the committed capacity")
	}
	if register(1, 5, body(2, 1)) {
		t.Error("a register proposed against session 1 applied after session 4 replaced it")
	}
	if register(3, 5, stamped(3)) {
		t.Error("a new session admitted past the committed capacity of 2 by a later stamp of 3")
	}
	if !register(4, 6, binary.LittleEndian.AppendUint32(nil, 0)) {
		t.Error("a register of the user alone refused below clientsMax")
	}
	if register(5, 7, []byte{1, 2, 3}) {
		t.Error("a malformed register body applied")
	}
	got := n.registerBody(7)
	if len(got) != registerBodySize || binary.LittleEndian.Uint32(got[4:]) != 2 ||
		binary.LittleEndian.Uint64(got[8:]) != registerUnchecked {
		t.Errorf("register body %x does not stamp the committed capacity, unchecked", got)
	}
	if n.stampSeen(got, wire.U128{Lo: 1}); binary.LittleEndian.Uint64(got[8:]) != 4 {
		t.Errorf("a forwarded register body %x does not name the session 4 its proposer saw", got)
	}
}

// The committed client table limit is part of the checkpoint image, which
// is what a restart after a checkpoint and a state transfer install, so
// both keep it; an image written before the limit was kept reads as none.
// covers SESS-28
func TestImageKeepsCommittedClientsLimit(t *testing.T) {
	n := New(Config{ServerVersion: "test", SegmentSizeBytes: 1 << 20, ClientsTableMax: 100}, nil)
	n.meta = metadata.New()
	n.clients[wire.U128{Lo: 1}] = &client{userID: 0, session: 1}
	n.clientsLimit = 3
	b := n.encodeImage(7)
	img, err := decodeImage(b)
	if err != nil || img.op != 7 || img.clientsLimit != 3 || len(img.clients) != 1 {
		t.Fatalf("decoded op %d, limit %d, %d clients, err %v; want op 7, limit 3, 1 client", img.op, img.clientsLimit, len(img.clients), err)
	}
	installed := New(Config{ServerVersion: "test", SegmentSizeBytes: 1 << 20, ClientsTableMax: 50}, nil)
	installed.restore(img)
	if got := installed.clientsTableMax(); got != 3 {
		t.Errorf("a node configured for 50 restored from the image admits %d sessions, want the committed 3", got)
	}
	old, err := decodeImage(b[:len(b)-4])
	if err != nil || old.clientsLimit != 0 || len(old.clients) != 1 {
		t.Errorf("an image without the limit: limit %d, %d clients, err %v", old.clientsLimit, len(old.clients), err)
	}
}
