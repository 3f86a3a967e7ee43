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
// journals) applies under clientsMax.
// covers SESS-30
func TestRegisterAppliesStampedCapacity(t *testing.T) {
	n := New(Config{ServerVersion: "test", SegmentSizeBytes: 1 << 20, ClientsTableMax: 100}, nil)
	n.clients[wire.U128{Lo: 1}] = &client{userID: 0, session: 1}
	n.clients[wire.U128{Lo: 2}] = &client{userID: 0, session: 2}
	stamped := func(capacity uint32) []byte {
		return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 0), capacity)
	}
	register := func(lo uint64, op uint64, body []byte) bool {
		_, ok := n.applyRegister(&vsr.Prepare{Op: op, ClientLo: lo, Body: body})
		return ok
	}
	if register(3, 3, stamped(2)) {
		t.Error("a new session admitted past the stamped capacity of 2")
	}
	if !register(1, 4, stamped(2)) {
		t.Error("a resume refused at the stamped capacity")
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
	if got := n.registerBody(7); len(got) != registerBodySize || binary.LittleEndian.Uint32(got[4:]) != 100 {
		t.Errorf("register body %x does not stamp the configured capacity", got)
	}
}
