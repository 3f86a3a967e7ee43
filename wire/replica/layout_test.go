package replica

import (
	"encoding/binary"
	"testing"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// The bytes sit where DESIGN.md "Replica frames" says: every offset below
// is a literal from that table, not the package's constants.
func TestLayoutMatchesDesign(t *testing.T) {
	p := vsr.Prepare{Op: 0x66, View: 7, Timestamp: 8, Kind: vsr.KindAppend, Operation: 160, Body: []byte("body!")}
	vsr.Seal(&p)
	m := node.PeerMessage{
		Group: node.GroupID{IsPartition: true, Stream: 0x11, Topic: 0x12, Partition: 0x13, Revision: 0x14},
		Msg: vsr.Message{Command: vsr.CmdStartView, From: 3, To: 4, View: 0x21, LogView: 0x22, Op: 0x23, Checksum: 0x24,
			Commit: 0x25, Durable: 0x26, Last: 0x27, Parent: 0x28, Untrusted: true, Offset: 0x29,
			Checkpoint: vsr.Checkpoint{Op: 0x2a, Checksum: 0x2b, Size: 0x2c, ImageChecksum: 0x2d}, Prepares: []vsr.Prepare{p}},
	}
	f, err := testCodec.Append(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	u64 := func(off int) uint64 { return le.Uint64(f[off:]) }
	u32 := func(off int) uint64 { return uint64(le.Uint32(f[off:])) }
	checks := []struct {
		name      string
		got, want uint64
	}{
		{"checksum", u64(0), xxh3.Hash(f[16:256])}, {"checksum hi", u64(8), 0},
		{"checksum_body", u64(16), xxh3.Hash(f[256:])}, {"checksum_body hi", u64(24), 0},
		{"cluster lo", u64(32), testCodec.Cluster.Lo}, {"cluster hi", u64(40), testCodec.Cluster.Hi},
		{"size", u32(48), uint64(len(f))}, {"view", u32(52), 0x21}, {"release", u32(56), uint64(testCodec.Release)},
		{"command", uint64(f[60]), 12}, {"replica", uint64(f[61]), 3},
		{"to", uint64(f[128]), 4}, {"flags", uint64(f[129]), 1 | 2}, {"log_view", u32(132), 0x22},
		{"op", u64(136), 0x23}, {"checksum", u64(144), 0x24}, {"commit", u64(152), 0x25}, {"durable", u64(160), 0x26},
		{"last", u64(168), 0x27}, {"parent", u64(176), 0x28}, {"offset", u64(184), 0x29},
		{"stream", u32(192), 0x11}, {"topic", u32(196), 0x12}, {"partition", u32(200), 0x13}, {"prepares", u32(204), 1},
		{"revision", u64(208), 0x14}, {"checkpoint op", u64(216), 0x2a}, {"checkpoint checksum", u64(224), 0x2b},
		{"checkpoint size", u64(232), 0x2c}, {"checkpoint image", u64(240), 0x2d},
		{"prepare checksum", u64(256), p.Checksum}, {"prepare op", u64(256 + 8), 0x66},
		{"prepare body length", u32(256 + 56), 5}, {"frame length", uint64(len(f)), 256 + 64 + 5},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, c.got, c.want)
		}
	}
	if string(f[256+64:]) != "body!" {
		t.Errorf("prepare body %q", f[256+64:])
	}

	h := testHello()
	hf := AppendHello(nil, wire.FrameReplicaHello, h)
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"command", uint64(hf[60]), 14}, {"replica", uint64(hf[61]), 1}, {"to", uint64(hf[128]), 2},
		{"link", uint64(hf[129]), 1}, {"links", uint64(hf[130]), 3}, {"flags", uint64(hf[131]), 1},
		{"protocol", uint64(le.Uint32(hf[132:])), 12290}, {"shards", uint64(le.Uint32(hf[136:])), 4},
		{"nonce", uint64(hf[144+31]), 31}, {"release length", uint64(hf[256]), 9},
	} {
		if c.got != c.want {
			t.Errorf("hello %s: %d, want %d", c.name, c.got, c.want)
		}
	}
}
