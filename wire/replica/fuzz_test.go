package replica

import (
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
)

// seedFrames are one valid frame of every command, and the handshake.
func seedFrames(f *testing.F) {
	p := vsr.Prepare{Op: 3, View: 1, Kind: vsr.KindAppend, Body: []byte("batch")}
	vsr.Seal(&p)
	for _, c := range commands() {
		m := node.PeerMessage{Msg: vsr.Message{Command: c, From: 0, To: 1, View: 1, Op: 3}}
		if c%2 == 0 {
			m.Group = node.GroupID{IsPartition: true, Stream: 1, Revision: 7}
		}
		switch shapes[c].prepares {
		case preparesOne, preparesMany:
			m.Msg.Prepares = []vsr.Prepare{p}
		}
		if shapes[c].data {
			m.Msg.Data = []byte("image bytes")
		}
		b, err := testCodec.Append(nil, m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(AppendHello(nil, wire.FrameReplicaHello, testHello()))
	f.Add(AppendHello(nil, wire.FrameReplicaChallenge, testHello()))
	f.Add(AppendFinish(nil, testCodec.Cluster, 1, 2, [MACSize]byte{1}))
	f.Add([]byte{})
	f.Add(make([]byte, HeaderSize))
}

// Decode never panics; what it accepts re-encodes to the same bytes.
func FuzzDecode(f *testing.F) {
	seedFrames(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := CheckHeader(b, FrameSizeMax); err != nil {
			return
		}
		m, err := testCodec.Decode(b)
		if err != nil {
			return
		}
		again, err := testCodec.Append(nil, m)
		if err != nil || string(again) != string(b) {
			t.Fatalf("accepted frame re-encodes differently: %v", err)
		}
	})
}

// The handshake decoders never panic; what they accept re-encodes alike.
func FuzzDecodeHandshake(f *testing.F) {
	seedFrames(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, cmd := range []wire.FrameCommand{wire.FrameReplicaHello, wire.FrameReplicaChallenge} {
			if h, err := DecodeHello(b, cmd); err == nil {
				if again := AppendHello(nil, cmd, &h); string(again) != string(b) {
					t.Fatalf("accepted %s re-encodes differently", hsName(cmd))
				}
			}
		}
		if from, to, mac, err := DecodeFinish(b); err == nil {
			if again := AppendFinish(nil, wire.U128{Lo: le64(b[offCluster:]), Hi: le64(b[offCluster+8:])}, from, to, mac); string(again) != string(b) {
				t.Fatal("accepted finish re-encodes differently")
			}
		}
	})
}

func le64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// FuzzDecodeSealed seals what the fuzzer writes (size field and checksums
// made right), so mutations reach the field checks behind the checksums.
func FuzzDecodeSealed(f *testing.F) {
	seedFrames(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < HeaderSize || len(b) > 1<<20 {
			return
		}
		b[offSize], b[offSize+1], b[offSize+2], b[offSize+3] = byte(len(b)), byte(len(b)>>8), byte(len(b)>>16), byte(len(b)>>24)
		seal(b)
		if m, err := testCodec.Decode(b); err == nil {
			if again, err := testCodec.Append(nil, m); err != nil || string(again) != string(b) {
				t.Fatalf("accepted frame re-encodes differently: %v", err)
			}
		}
		for _, cmd := range []wire.FrameCommand{wire.FrameReplicaHello, wire.FrameReplicaChallenge} {
			if h, err := DecodeHello(b, cmd); err == nil && string(AppendHello(nil, cmd, &h)) != string(b) {
				t.Fatalf("accepted %s re-encodes differently", hsName(cmd))
			}
		}
	})
}
