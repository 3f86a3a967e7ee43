package node

import (
	"encoding/binary"
	"testing"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// A register applies under the capacity stamped in its op by the replica
// that proposed it, not the applying replica's own configuration, so
// replicas configured apart still agree; a body of the user alone (older
// journals) applies under clientsMax. A register proposed against a session
// the client no longer holds is stale and changes nothing.
// covers SESS-30
func TestRegisterAppliesStampedCapacity(t *testing.T) {
	n := New(Config{ServerVersion: "test", SegmentSizeBytes: 1 << 20, ClientsTableMax: 100}, nil)
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
	if !register(1, 4, body(2, 1)) {
		t.Error("a resume refused at the stamped capacity")
	}
	if register(1, 5, body(2, 1)) {
		t.Error("a register proposed against session 1 applied after session 4 replaced it")
	}
	if !register(3, 5, stamped(3)) {
		t.Error("a new session refused under a stamped capacity of 3")
	}
	if !register(4, 6, binary.LittleEndian.AppendUint32(nil, 0)) {
		t.Error("a register of the user alone refused below clientsMax")
	}
	if register(5, 7, []byte{1, 2, 3}) {
		t.Error("a malformed register body applied")
	}
	got := n.registerBody(7)
	if len(got) != registerBodySize || binary.LittleEndian.Uint32(got[4:]) != 100 ||
		binary.LittleEndian.Uint64(got[8:]) != registerUnchecked {
		t.Errorf("register body %x does not stamp the configured capacity, unchecked", got)
	}
	if n.stampSeen(got, wire.U128{Lo: 1}); binary.LittleEndian.Uint64(got[8:]) != 4 {
		t.Errorf("a forwarded register body %x does not name the session 4 its proposer saw", got)
	}
}
