package replica

import (
	"encoding/binary"
	"fmt"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// The link handshake: the dialer sends Hello, the acceptor answers
// Challenge (accepting or refusing with a reason), the dialer ends with
// Finish. With cluster.auth each side proves the shared secret by a MAC
// over the frames before it (the link computes the MACs; here they are
// 32 opaque bytes, zero without auth).
const (
	NonceSize = 32
	MACSize   = 32
	// handshakeBodyMax bounds a handshake frame's body: two names and a
	// reason, each under 256 bytes.
	handshakeBodyMax = 3 * 256
	// HandshakeSizeMax is the largest handshake frame.
	HandshakeSizeMax = HeaderSize + handshakeBodyMax
)

// Handshake header offsets after the prologue.
const (
	offHsTo       = 128 // u8
	offHsLink     = 129 // u8: this link's index, 0..count-1
	offHsLinks    = 130 // u8: replica_connections_per_peer (VSR-7)
	offHsFlags    = 131 // u8: hsFlag* bits
	offHsProtocol = 132 // u32: packed protocol version
	offHsShards   = 136 // u32: the sender's shard count (informational, VSR-11)
	offHsStatus   = 140 // u8: challenge only: 0 accepted, else a Refusal
	offHsNonce    = 144 // [32]
	offHsMAC      = 176 // [32]
	offHsEnd      = 208 // 208..256 zero
)

// hsFlagAuth: the sender runs cluster.auth (its MACs are meaningful).
const hsFlagAuth = 1 << 0

// Refusal is why an acceptor refused a hello (0: it did not).
type Refusal uint8

const (
	RefusedNone     Refusal = 0
	RefusedIdentity Refusal = 1 // cluster, protocol, release or storage format differ (VSR-4)
	RefusedLinks    Refusal = 2 // replica_connections_per_peer differs (VSR-10)
	RefusedRoster   Refusal = 3 // the sender or the addressee is not who the roster says
	RefusedAuth     Refusal = 4 // cluster.auth on one side only, or a MAC that fails
)

// Hello opens a link (frame 14, the dialer's), and Challenge answers it
// (frame 15, the acceptor's): who sends, to whom, the link's place among
// the peer's links, and the sender's identity. A challenge also carries
// Status and Reason (a refusal) and a MAC; Finish (frame 16) only the MAC.
type Hello struct {
	Cluster       wire.U128
	From, To      uint8
	Link, Links   uint8
	Auth          bool
	Protocol      uint32
	Shards        uint32
	Release       string // WireName
	StorageFormat string // WireName
	Nonce         [NonceSize]byte
	MAC           [MACSize]byte // challenge only
	Status        Refusal       // challenge only
	Reason        string        // challenge only: u8 string, why refused
}

// AppendHello appends a hello (command 14) or a challenge (15) frame.
func AppendHello(dst []byte, cmd wire.FrameCommand, h *Hello) []byte {
	if !(len(h.Release) >= 1 && len(h.Release) <= 255 && len(h.StorageFormat) >= 1 && len(h.StorageFormat) <= 255) {
		assert.Failf("replica hello: release %q, storage format %q", h.Release, h.StorageFormat)
	}
	body := wire.Writer{}
	body.Name(h.Release)
	body.Name(h.StorageFormat)
	if cmd == wire.FrameReplicaChallenge {
		body.Str8(h.Reason[:min(len(h.Reason), 255)])
	}
	f := make([]byte, HeaderSize+len(body.Buf))
	copy(f[HeaderSize:], body.Buf)
	putPrologue(f, Header{Cluster: h.Cluster, Command: cmd, Replica: h.From})
	f[offHsTo], f[offHsLink], f[offHsLinks] = h.To, h.Link, h.Links
	if h.Auth {
		f[offHsFlags] = hsFlagAuth
	}
	binary.LittleEndian.PutUint32(f[offHsProtocol:], h.Protocol)
	binary.LittleEndian.PutUint32(f[offHsShards:], h.Shards)
	if cmd == wire.FrameReplicaChallenge {
		f[offHsStatus] = byte(h.Status)
		copy(f[offHsMAC:], h.MAC[:])
	}
	copy(f[offHsNonce:], h.Nonce[:])
	seal(f)
	return append(dst, f...)
}

// DecodeHello reads a whole hello or challenge frame (cmd says which).
func DecodeHello(frame []byte, cmd wire.FrameCommand) (Hello, error) {
	hd, err := checkHandshake(frame, cmd)
	if err != nil {
		return Hello{}, err
	}
	le := binary.LittleEndian
	h := Hello{Cluster: hd.Cluster, From: hd.Replica, To: frame[offHsTo], Link: frame[offHsLink],
		Links: frame[offHsLinks], Auth: frame[offHsFlags]&hsFlagAuth != 0,
		Protocol: le.Uint32(frame[offHsProtocol:]), Shards: le.Uint32(frame[offHsShards:])}
	copy(h.Nonce[:], frame[offHsNonce:])
	rest := frame[offHsMAC:HeaderSize]
	if cmd == wire.FrameReplicaChallenge {
		h.Status = Refusal(frame[offHsStatus])
		copy(h.MAC[:], frame[offHsMAC:])
		rest = frame[offHsEnd:HeaderSize]
	}
	switch {
	case frame[offHsFlags]&^hsFlagAuth != 0 || !zero(frame[offHsStatus+1:offHsNonce]) || !zero(rest):
		return Hello{}, malformed("%s: flags or reserved bytes", hsName(cmd))
	case cmd == wire.FrameReplicaHello && frame[offHsStatus] != 0:
		return Hello{}, malformed("hello with a status")
	case h.Links == 0 || h.Link >= h.Links:
		return Hello{}, malformed("%s: link %d of %d", hsName(cmd), h.Link, h.Links)
	}
	r := wire.NewReader(frame[HeaderSize:])
	h.Release, h.StorageFormat = r.Name(), r.Name()
	if cmd == wire.FrameReplicaChallenge {
		h.Reason = r.Str8()
	}
	if r.Err() != wire.OK || r.Len() != 0 {
		return Hello{}, malformed("%s: body", hsName(cmd))
	}
	return h, nil
}

// ClearMAC zeroes the MAC of an encoded challenge and reseals it: a MAC
// covers the frame as it was encoded without the MAC.
func ClearMAC(frame []byte) {
	clear(frame[offHsMAC : offHsMAC+MACSize])
	seal(frame)
}

// AppendFinish appends the dialer's finish frame (16): its MAC alone.
func AppendFinish(dst []byte, cluster wire.U128, from, to uint8, mac [MACSize]byte) []byte {
	f := make([]byte, HeaderSize)
	putPrologue(f, Header{Cluster: cluster, Command: wire.FrameReplicaFinish, Replica: from})
	f[offHsTo] = to
	copy(f[offHsMAC:], mac[:])
	seal(f)
	return append(dst, f...)
}

// DecodeFinish reads a whole finish frame: sender, addressee and MAC.
func DecodeFinish(frame []byte) (from, to uint8, mac [MACSize]byte, err error) {
	hd, err := checkHandshake(frame, wire.FrameReplicaFinish)
	if err != nil {
		return 0, 0, mac, err
	}
	if hd.Size != HeaderSize || !zero(frame[offHsTo+1:offHsMAC]) || !zero(frame[offHsEnd:HeaderSize]) {
		return 0, 0, mac, malformed("finish: body or reserved bytes")
	}
	copy(mac[:], frame[offHsMAC:])
	return hd.Replica, frame[offHsTo], mac, nil
}

func checkHandshake(frame []byte, cmd wire.FrameCommand) (Header, error) {
	hd, err := checkFrame(frame, HandshakeSizeMax)
	if err != nil {
		return Header{}, err
	}
	if hd.Command != cmd || hd.View != 0 || hd.Release != 0 {
		return Header{}, malformed("command %d where %s was due (view %d, release %d)", hd.Command, hsName(cmd), hd.View, hd.Release)
	}
	return hd, nil
}

func (r Refusal) String() string {
	switch r {
	case RefusedNone:
		return "accepted"
	case RefusedIdentity:
		return "identity"
	case RefusedLinks:
		return "link count"
	case RefusedRoster:
		return "roster"
	case RefusedAuth:
		return "auth"
	}
	return fmt.Sprintf("refusal %d", uint8(r))
}

func hsName(cmd wire.FrameCommand) string {
	switch cmd {
	case wire.FrameReplicaHello:
		return "hello"
	case wire.FrameReplicaChallenge:
		return "challenge"
	}
	return "finish"
}
