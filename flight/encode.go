package flight

import (
	"encoding/binary"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/clock"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire/replica"
)

// encoder writes one input into its shard's scratch record, whose first
// byte (the kind) it sets. As a node.InputVisitor it must name every kind
// of input: a new kind does not compile until it is recorded.
type encoder Shard

func (e *encoder) start(kind uint8) { e.scratch[0] = kind }

func (e *encoder) OnTick(t clock.Tick) {
	e.start(kindTick)
	e.scratch = appendUvarint(appendUvarint(e.scratch, t.Ticks), t.NowMicros)
}

func (e *encoder) OnConnOpened(m bus.ConnOpened) {
	e.start(kindOpen)
	e.scratch = appendUvarint(appendUvarint(e.scratch, uint64(m.Conn)), uint64(m.Transport))
	e.scratch = append(e.scratch, m.Addr...)
}

func (e *encoder) OnConnClosed(m bus.ConnClosed) {
	e.start(kindClose)
	e.scratch = appendUvarint(e.scratch, uint64(m.Conn))
}

// OnClientFrame records the frame as it is, straight into the ring, or,
// when it carries a secret, a redacted copy: the node gets the frame as
// sent.
func (e *encoder) OnClientFrame(m bus.ClientFrame) {
	e.start(kindFrame)
	e.scratch = appendUvarint(e.scratch, uint64(m.Conn))
	if !carriesSecret(m.Frame) {
		e.tail = m.Frame
		return
	}
	at := len(e.scratch)
	e.scratch = append(e.scratch, m.Frame...)
	redactFrame(e.scratch[at:])
}

func (e *encoder) OnTrustedRegister(m node.TrustedRegister) {
	e.start(kindTrusted)
	e.scratch = appendUvarint(e.scratch, uint64(m.Conn))
	e.scratch = appendU64(appendU64(e.scratch, m.Client.Lo), m.Client.Hi)
	e.scratch = append(e.scratch, boolByte(m.User.Numeric))
	e.scratch = appendUvarint(e.scratch, uint64(m.User.ID))
	e.scratch = append(e.scratch, m.User.Name...)
}

// peerCodec frames peer messages as the replica links do; a recorded
// message decodes to what the node was given.
var peerCodec = replica.Codec{}

func (e *encoder) OnPeer(m node.PeerMessage) {
	e.start(kindPeer)
	b, err := peerCodec.Append(e.scratch, m)
	if err != nil {
		b = e.scratch // over the frame bound: recorded empty, the replay reports it
	}
	e.scratch = b
}

// OnShard records only the pair: a replay takes the body from what its
// own sending shard emitted, the oldest of the pair not yet stepped.
func (e *encoder) OnShard(m node.ShardMessage) {
	e.start(kindHand)
	e.scratch = append(e.scratch, m.From, m.To)
}

// OnCompletion records a completion; the bytes of a poll read (noted at
// the take that asked for it) by their length and digest only, the replay
// reading them back from the data directory (DESIGN.md "Flight recorder").
func (e *encoder) OnCompletion(c storage.Completion) {
	e.start(kindDone)
	e.scratch = appendCompletionHead(e.scratch, c)
	switch {
	case c.Data == nil:
		e.scratch = append(e.scratch, dataNone)
	case (*Shard)(e).replyReads.take(c.ID):
		digest := xxh3.Hash(c.Data)
		(*Shard)(e).out.read(c.Data, digest)
		e.scratch = append(e.scratch, dataDigest)
		e.scratch = appendUvarint(appendU64(e.scratch, digest), uint64(len(c.Data)))
	default:
		e.scratch = append(e.scratch, dataBytes)
		e.tail = c.Data
	}
}

// OnJobResult records an argon2 verdict or hash as it is (never the
// password, which only the job request held); a diagnostic archive is
// elided to its length and digest.
func (e *encoder) OnJobResult(r compute.Result) {
	e.start(kindJob)
	e.scratch = appendUvarint(appendUvarint(e.scratch, r.ID), uint64(r.Code))
	if (*Shard)(e).elides(r.ID) {
		digest := xxh3.Hash(r.Data)
		(*Shard)(e).out.elide(r.Data, digest)
		e.scratch = append(e.scratch, 1)
		e.scratch = appendUvarint(appendU64(e.scratch, digest), uint64(len(r.Data)))
		return
	}
	e.scratch = append(e.scratch, 0, boolByte(r.Data != nil))
	e.scratch = append(e.scratch, r.Data...)
}

var _ node.InputVisitor = (*encoder)(nil)

// appendCompletionHead appends a completion's fields but its data.
func appendCompletionHead(b []byte, c storage.Completion) []byte {
	b = appendUvarint(b, uint64(c.ID))
	b = appendUvarint(b, uint64(c.Result))
	b = appendStr(b, c.Err)
	b = appendUvarint(b, uint64(len(c.Entries)))
	for _, en := range c.Entries {
		b = appendStr(b, en.Name)
		b = appendUvarint(b, en.Size)
		b = append(b, boolByte(en.IsDir))
	}
	return b
}

func appendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

func appendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

func appendStr(b []byte, v string) []byte { return append(appendUvarint(b, uint64(len(v))), v...) }

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}
