package vsr

import (
	"encoding/binary"
	"testing"
)

// fuzzMessage builds a message from fuzz bytes: every field a peer controls.
func fuzzMessage(b []byte, count uint8) (Message, []byte) {
	if len(b) < 40 {
		return Message{}, nil
	}
	le := binary.LittleEndian
	m := Message{
		Command: Command(6 + b[0]%20), From: b[1] % count, To: b[2] % count,
		View: uint32(b[3] % 8), LogView: uint32(b[4] % 8), Untrusted: b[5]&1 == 1,
		Op: uint64(le.Uint16(b[6:])) % 300, Checksum: le.Uint64(b[8:]), Commit: uint64(le.Uint16(b[16:])) % 300,
		Durable: uint64(le.Uint16(b[18:])) % 300, Last: uint64(le.Uint16(b[20:])) % 400, Parent: le.Uint64(b[22:]),
		Offset:     uint64(le.Uint16(b[30:])),
		Checkpoint: Checkpoint{Op: uint64(le.Uint16(b[32:])) % 300, Size: uint64(le.Uint16(b[34:]))},
	}
	n := int(b[36] % 4)
	op := uint64(le.Uint16(b[37:])) % 300
	for i := range n {
		p := Prepare{Op: op + uint64(i), View: uint32(b[39] % 8), Body: []byte{byte(i)}}
		Seal(&p)
		if b[39]&0x80 != 0 {
			p.Checksum ^= 1
		}
		m.Prepares = append(m.Prepares, p)
	}
	if len(b) > 40 {
		m.Data = b[40:min(len(b), 80)]
	}
	return m, b[40:]
}

// FuzzStep feeds arbitrary messages to the replicas of a running cluster:
// a replica must never panic on a peer's message, whatever it says, and
// keeps its own contracts (commits handed out in op order, views never
// going back). Agreement between replicas is not checked: VSR does not
// survive a lying peer, and forged messages are one.
func FuzzStep(f *testing.F) {
	f.Add([]byte("0123456789012345678901234567890123456789012345678901234567890123456789"))
	f.Add(make([]byte, 200))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := newCluster(t, defaultOptions())
		c.forged = true
		c.nodes[0].propose(20)
		c.run(60, 1)
		for len(b) >= 40 {
			var m Message
			m, b = fuzzMessage(b, 3)
			if n := c.nodes[m.To]; n.r != nil {
				n.r.Step(m)
				n.drain()
			}
			c.run(3, 1)
		}
	})
}
