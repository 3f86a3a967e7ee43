package sim

import (
	"encoding/binary"
	"fmt"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
)

// peerPreparesMax bounds the prepares a traced message may carry (a
// start_view or do_view_change suffix is at most 1024).
const peerPreparesMax = 1 << 16

// encodePeer writes a replica message as bytes for the trace and its
// hash: every field in a fixed order, each prepare as its header and body
// (vsr.Prepare.Encode) plus the checksum the message claimed, so a replay
// steps exactly what the sender produced, a corrupt prepare included.
func encodePeer(m node.PeerMessage) []byte {
	g, v := m.Group, m.Msg
	b := make([]byte, 0, 96)
	for _, x := range []uint64{uint64(g.Stream), uint64(g.Topic), uint64(g.Partition), uint64(v.Command),
		uint64(v.From), uint64(v.To), uint64(v.View), uint64(v.LogView), v.Op, v.Checksum, v.Commit,
		v.Durable, v.Last, v.Parent, boolU64(v.Untrusted), v.Checkpoint.Op, v.Checkpoint.Checksum,
		v.Checkpoint.Size, v.Checkpoint.ImageChecksum, v.Offset, boolU64(v.Data != nil), boolU64(g.IsPartition), g.Revision} {
		b = binary.AppendUvarint(b, x)
	}
	b = appendBytes(b, v.Data)
	b = binary.AppendUvarint(b, uint64(len(v.Prepares)))
	for i := range v.Prepares {
		p := &v.Prepares[i]
		b = binary.AppendUvarint(b, p.Checksum)
		b = appendBytes(b, p.Encode(nil)) // reads p only: messages are never changed
	}
	return b
}

func decodePeer(b []byte) (node.PeerMessage, error) {
	d := &decoder{b: b}
	var f [23]uint64
	for i := range f {
		f[i] = d.uvarint()
	}
	m := node.PeerMessage{Group: node.GroupID{IsPartition: f[21] == 1, Stream: uint32(f[0]), Topic: uint32(f[1]), Partition: uint32(f[2]), Revision: f[22]}}
	m.Msg = vsr.Message{Command: vsr.Command(f[3]), From: uint8(f[4]), To: uint8(f[5]), View: uint32(f[6]),
		LogView: uint32(f[7]), Op: f[8], Checksum: f[9], Commit: f[10], Durable: f[11], Last: f[12], Parent: f[13],
		Untrusted: f[14] == 1, Checkpoint: vsr.Checkpoint{Op: f[15], Checksum: f[16], Size: f[17], ImageChecksum: f[18]},
		Offset: f[19]}
	if data := d.bytes(); f[20] == 1 {
		m.Msg.Data = append([]byte{}, data...)
	}
	n := d.uvarint()
	if n > peerPreparesMax {
		return m, fmt.Errorf("peer message with %d prepares", n)
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		sum := d.uvarint()
		raw := append([]byte{}, d.bytes()...)
		p, size, ok := vsr.DecodePrepare(raw)
		if d.err == nil && (!ok || size != len(raw)) {
			return m, fmt.Errorf("peer message: prepare %d does not decode", i)
		}
		p.Checksum = sum
		m.Msg.Prepares = append(m.Msg.Prepares, p)
	}
	return m, d.err
}
