package replica

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

var testCodec = Codec{Cluster: wire.U128{Lo: 0x1122334455667788, Hi: 9}, Release: 0x0c02}

// commands lists every command with a frame, in a fixed order.
func commands() []vsr.Command {
	var cs []vsr.Command
	for c := range shapes {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	return cs
}

func genPrepare(t *rapid.T, label string) vsr.Prepare {
	p := vsr.Prepare{
		Op: rapid.Uint64().Draw(t, label+"op"), View: rapid.Uint32().Draw(t, label+"view"),
		Timestamp: rapid.Uint64().Draw(t, label+"ts"), ClientLo: rapid.Uint64().Draw(t, label+"clo"),
		ClientHi: rapid.Uint64().Draw(t, label+"chi"), Request: rapid.Uint64().Draw(t, label+"req"),
		UserID: rapid.Uint32().Draw(t, label+"user"), Kind: vsr.Kind(rapid.Uint8().Draw(t, label+"kind")),
		Operation: rapid.Uint8().Draw(t, label+"opb"),
		Body:      rapid.SliceOfN(rapid.Byte(), 0, 300).Draw(t, label+"body"),
	}
	if rapid.Bool().Draw(t, label+"sealed") {
		vsr.Seal(&p)
	} else {
		p.Checksum = rapid.Uint64().Draw(t, label+"claimed") // a corrupt claim travels as claimed
	}
	return p
}

func genMessage(t *rapid.T) node.PeerMessage {
	cmd := rapid.SampledFrom(commands()).Draw(t, "cmd")
	sh := shapes[cmd]
	from := rapid.Uint8Range(0, vsr.ReplicasMax-1).Draw(t, "from")
	to := (from + 1 + rapid.Uint8Range(0, vsr.ReplicasMax-2).Draw(t, "to")) % vsr.ReplicasMax
	var g node.GroupID
	if rapid.Bool().Draw(t, "partition") {
		g = node.GroupID{IsPartition: true, Stream: rapid.Uint32().Draw(t, "stream"), Topic: rapid.Uint32().Draw(t, "topic"),
			Partition: rapid.Uint32().Draw(t, "part"), Revision: rapid.Uint64Min(1).Draw(t, "rev")}
	}
	m := node.PeerMessage{Group: g, Msg: vsr.Message{Command: cmd, From: from, To: to,
		View: rapid.Uint32().Draw(t, "view"), LogView: rapid.Uint32().Draw(t, "logview"),
		Op: rapid.Uint64().Draw(t, "op"), Checksum: rapid.Uint64().Draw(t, "sum"), Commit: rapid.Uint64().Draw(t, "commit"),
		Durable: rapid.Uint64().Draw(t, "durable"), Last: rapid.Uint64().Draw(t, "last"), Parent: rapid.Uint64().Draw(t, "parent"),
		Untrusted: rapid.Bool().Draw(t, "untrusted"), Offset: rapid.Uint64().Draw(t, "offset"),
		Checkpoint: vsr.Checkpoint{Op: rapid.Uint64().Draw(t, "cop"), Checksum: rapid.Uint64().Draw(t, "csum"),
			Size: rapid.Uint64().Draw(t, "csize"), ImageChecksum: rapid.Uint64().Draw(t, "cimg")}}}
	n := 0
	switch sh.prepares {
	case preparesOne:
		n = 1
	case preparesMany:
		n = rapid.IntRange(0, 5).Draw(t, "prepares")
	}
	for i := range n {
		m.Msg.Prepares = append(m.Msg.Prepares, genPrepare(t, string(rune('a'+i))))
	}
	if sh.data && rapid.Bool().Draw(t, "hasdata") {
		m.Msg.Data = rapid.SliceOfN(rapid.Byte(), 0, 500).Draw(t, "data")
		if m.Msg.Data == nil {
			m.Msg.Data = []byte{}
		}
	}
	return m
}

// sameMessage compares two messages field by field; a prepare's body may be
// nil on one side and empty on the other.
func sameMessage(a, b node.PeerMessage) bool {
	pa, pb := a.Msg.Prepares, b.Msg.Prepares
	da, db := a.Msg.Data, b.Msg.Data
	a.Msg.Prepares, b.Msg.Prepares, a.Msg.Data, b.Msg.Data = nil, nil, nil, nil
	if !reflect.DeepEqual(a, b) || len(pa) != len(pb) || (da == nil) != (db == nil) || !bytes.Equal(da, db) {
		return false
	}
	for i := range pa {
		x, y := pa[i], pb[i]
		if !bytes.Equal(x.Body, y.Body) {
			return false
		}
		x.Body, y.Body = nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// Every message kind survives encode and decode field for field, with the
// prepares' claimed checksums; the frame re-encodes to the same bytes.
func TestMessageRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genMessage(t)
		f, err := testCodec.Append(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := testCodec.Decode(f)
		if err != nil {
			t.Fatalf("%s: %v", m.Msg.Command, err)
		}
		if !sameMessage(m, got) {
			t.Fatalf("round trip of %s:\n%+v\n%+v", m.Msg.Command, m, got)
		}
		again, _ := testCodec.Append([]byte{7}, got)
		if !bytes.Equal(again[1:], f) || again[0] != 7 {
			t.Fatal("re-encoding differs, or Append lost dst's bytes")
		}
	})
}

// Any single flipped bit is refused (a checksum or a field check), and
// never panics.
func TestMessageBitFlip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genMessage(t)
		f, _ := testCodec.Append(nil, m)
		bit := rapid.IntRange(0, len(f)*8-1).Draw(t, "bit")
		f[bit/8] ^= 1 << (bit % 8)
		if _, err := testCodec.Decode(f); err == nil {
			t.Fatalf("%s: bit %d flipped and decoded", m.Msg.Command, bit)
		}
	})
}

// reseal recomputes the checksums after a test edits a frame, so the edit
// reaches the field checks behind them.
func reseal(f []byte) []byte { seal(f); return f }

func commitFrame(t *testing.T, g node.GroupID) []byte {
	f, err := testCodec.Append(nil, node.PeerMessage{Group: g, Msg: vsr.Message{Command: vsr.CmdCommit, From: 1, To: 2, View: 3, Commit: 9}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A partition group's frame that carries incarnation (revision) 0 is
// refused by the decoder, before it could reach the core.
// covers VSR-3
func TestMessagePartitionRevisionZero(t *testing.T) {
	f := commitFrame(t, node.GroupID{IsPartition: true, Stream: 1, Topic: 1, Revision: 5})
	if _, err := testCodec.Decode(f); err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(f[offRevision:], 0)
	if _, err := testCodec.Decode(reseal(f)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("revision 0: %v", err)
	}
}

// Frames that are well sealed but wrong in a field are refused by name.
func TestMessageRefusals(t *testing.T) {
	good := commitFrame(t, node.GroupID{})
	edit := func(fn func(f []byte)) []byte {
		f := slices.Clone(good)
		fn(f)
		return reseal(f)
	}
	cases := []struct {
		name string
		f    []byte
		want error
	}{
		{"short", good[:100], ErrMalformed},
		{"truncated body", append(slices.Clone(good), 1)[:len(good)-1], nil},
		{"size over the bound", edit(func(f []byte) { binary.LittleEndian.PutUint32(f[offSize:], FrameSizeMax+1) }), ErrTooLarge},
		{"size under the header", edit(func(f []byte) { binary.LittleEndian.PutUint32(f[offSize:], 100) }), ErrMalformed},
		{"length differs from size", append(slices.Clone(good), 0), ErrMalformed},
		{"unknown command", edit(func(f []byte) { f[offCommand] = byte(wire.FrameRepairDone) }), ErrMalformed},
		{"client request command", edit(func(f []byte) { f[offCommand] = 8 }), ErrMalformed},
		{"other cluster", edit(func(f []byte) { f[offCluster] ^= 1 }), ErrIdentity},
		{"other release", edit(func(f []byte) { f[offRelease] ^= 1 }), ErrIdentity},
		{"to itself", edit(func(f []byte) { f[offTo] = f[offReplica] }), ErrMalformed},
		{"replica past 32", edit(func(f []byte) { f[offTo] = 40 }), ErrMalformed},
		{"unknown flag", edit(func(f []byte) { f[offFlags] |= 0x80 }), ErrMalformed},
		{"data on a commit", edit(func(f []byte) { f[offFlags] |= flagData }), ErrMalformed},
		{"prepares on a commit", edit(func(f []byte) { binary.LittleEndian.PutUint32(f[offPrepares:], 1) }), ErrMalformed},
		{"too many prepares", edit(func(f []byte) {
			f[offCommand] = byte(vsr.CmdStartView)
			binary.LittleEndian.PutUint32(f[offPrepares:], PreparesMax+1)
		}), ErrTooLarge},
		{"more prepares than bytes", edit(func(f []byte) {
			f[offCommand] = byte(vsr.CmdStartView)
			binary.LittleEndian.PutUint32(f[offPrepares:], 3)
		}), ErrMalformed},
		{"reserved prologue", edit(func(f []byte) { f[100] = 1 }), ErrMalformed},
		{"reserved header", edit(func(f []byte) { f[offReserved64] = 1 }), ErrMalformed},
		{"metadata group with a stream", edit(func(f []byte) { f[offStream] = 1 }), ErrMalformed},
	}
	for _, c := range cases {
		_, err := testCodec.Decode(c.f)
		if err == nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// A bound lower than the frame is ErrTooLarge on both sides.
func TestMessageSizeBound(t *testing.T) {
	p := vsr.Prepare{Op: 1, Body: make([]byte, 1000)}
	vsr.Seal(&p)
	m := node.PeerMessage{Msg: vsr.Message{Command: vsr.CmdPrepare, From: 0, To: 1, Op: 1, Prepares: []vsr.Prepare{p}}}
	small := testCodec
	small.SizeMax = 1000
	if _, err := small.Append(nil, m); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("encode: %v", err)
	}
	f, _ := testCodec.Append(nil, m)
	if _, err := small.Decode(f); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("decode: %v", err)
	}
	if _, err := CheckHeader(f, 1000); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("header: %v", err)
	}
}

// A prepare with its body is encoded into one buffer: one allocation when
// dst is empty, none when it has room.
func TestPrepareAppendAllocations(t *testing.T) {
	p := vsr.Prepare{Op: 1, Kind: vsr.KindAppend, Body: make([]byte, 1<<20)}
	vsr.Seal(&p)
	m := node.PeerMessage{Group: node.GroupID{IsPartition: true, Revision: 1}, Msg: vsr.Message{Command: vsr.CmdPrepare, From: 0, To: 1, Op: 1, Prepares: []vsr.Prepare{p}}}
	if n := testing.AllocsPerRun(5, func() { _, _ = testCodec.Append(nil, m) }); n != 1 {
		t.Fatalf("%v allocations with an empty dst", n)
	}
	buf := make([]byte, 0, 2<<20)
	if n := testing.AllocsPerRun(5, func() { _, _ = testCodec.Append(buf[:0], m) }); n != 0 {
		t.Fatalf("%v allocations into a buffer with room", n)
	}
}

func BenchmarkAppendPrepare1MiB(b *testing.B) {
	p := vsr.Prepare{Op: 1, Kind: vsr.KindAppend, Body: make([]byte, 1<<20)}
	vsr.Seal(&p)
	m := node.PeerMessage{Msg: vsr.Message{Command: vsr.CmdPrepare, From: 0, To: 1, Op: 1, Prepares: []vsr.Prepare{p}}}
	buf := make([]byte, 0, 2<<20)
	b.SetBytes(int64(len(p.Body)))
	for b.Loop() {
		buf, _ = testCodec.Append(buf[:0], m)
	}
}

func BenchmarkDecodePrepare1MiB(b *testing.B) {
	p := vsr.Prepare{Op: 1, Kind: vsr.KindAppend, Body: make([]byte, 1<<20)}
	vsr.Seal(&p)
	m := node.PeerMessage{Msg: vsr.Message{Command: vsr.CmdPrepare, From: 0, To: 1, Op: 1, Prepares: []vsr.Prepare{p}}}
	f, _ := testCodec.Append(nil, m)
	b.SetBytes(int64(len(p.Body)))
	for b.Loop() {
		_, _ = testCodec.Decode(f)
	}
}
