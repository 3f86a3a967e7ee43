package replica

import (
	"errors"
	"slices"
	"testing"

	"github.com/iggygo/iggy/wire"
)

func testHello() *Hello {
	h := &Hello{Cluster: testCodec.Cluster, From: 1, To: 2, Link: 1, Links: 3, Auth: true, Protocol: 12290,
		Shards: 4, Release: "0.10.0-go", StorageFormat: "IGGY-METADATA-CHANGE-LOG-1"}
	for i := range h.Nonce {
		h.Nonce[i] = byte(i)
	}
	return h
}

// A hello, a challenge (accepting and refusing) and a finish survive
// encode and decode; the link count travels in the hello.
// covers VSR-7
func TestHandshakeRoundTrip(t *testing.T) {
	h := testHello()
	got, err := DecodeHello(AppendHello(nil, wire.FrameReplicaHello, h), wire.FrameReplicaHello)
	if err != nil || got != *h || got.Links != 3 {
		t.Fatalf("hello: %v\n%+v\n%+v", err, got, *h)
	}
	c := testHello()
	c.Status, c.Reason = RefusedIdentity, "release 0.9.0 differs from ours"
	c.MAC[0], c.MAC[31] = 5, 6
	got, err = DecodeHello(AppendHello(nil, wire.FrameReplicaChallenge, c), wire.FrameReplicaChallenge)
	if err != nil || got != *c {
		t.Fatalf("challenge: %v\n%+v\n%+v", err, got, *c)
	}
	var mac [MACSize]byte
	mac[3] = 9
	from, to, gotMAC, err := DecodeFinish(AppendFinish(nil, testCodec.Cluster, 2, 1, mac))
	if err != nil || from != 2 || to != 1 || gotMAC != mac {
		t.Fatalf("finish: %v %d %d %v", err, from, to, gotMAC)
	}
}

// A handshake frame where another was due, with a bad link index, or with
// bytes a hello must not have, is malformed.
func TestHandshakeRefusals(t *testing.T) {
	hello := AppendHello(nil, wire.FrameReplicaHello, testHello())
	edit := func(fn func(f []byte)) []byte {
		f := slices.Clone(hello)
		fn(f)
		return reseal(f)
	}
	cases := map[string][]byte{
		"a challenge where a hello is due": AppendHello(nil, wire.FrameReplicaChallenge, testHello()),
		"link past the count":              edit(func(f []byte) { f[offHsLink] = 3 }),
		"no links":                         edit(func(f []byte) { f[offHsLinks], f[offHsLink] = 0, 0 }),
		"status on a hello":                edit(func(f []byte) { f[offHsStatus] = 1 }),
		"MAC on a hello":                   edit(func(f []byte) { f[offHsMAC] = 1 }),
		"unknown flag":                     edit(func(f []byte) { f[offHsFlags] = 0x10 }),
		"trailing body byte":               reseal(append(edit(func(f []byte) { f[offSize]++ }), 0)),
		"a view":                           edit(func(f []byte) { f[offView] = 1 }),
		"bad checksum":                     append(slices.Clone(hello[:10]), hello[10:]...)[:0],
	}
	cases["bad checksum"] = slices.Clone(hello)
	cases["bad checksum"][HeaderSize] ^= 1
	for name, f := range cases {
		if _, err := DecodeHello(f, wire.FrameReplicaHello); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, _, _, err := DecodeFinish(hello); !errors.Is(err, ErrMalformed) {
		t.Errorf("a hello as finish: %v", err)
	}
	if _, err := DecodeHello(hello[:HeaderSize], wire.FrameReplicaHello); err == nil {
		t.Error("a hello without its body decoded")
	}
}

// ClearMAC leaves the frame as it was encoded without its MAC.
func TestClearMAC(t *testing.T) {
	c := testHello()
	c.MAC[0] = 1
	f := AppendHello(nil, wire.FrameReplicaChallenge, c)
	ClearMAC(f)
	c.MAC = [MACSize]byte{}
	want := AppendHello(nil, wire.FrameReplicaChallenge, c)
	if string(f) != string(want) {
		t.Fatal("ClearMAC left other bytes changed")
	}
}
