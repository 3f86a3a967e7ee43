package replica

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// PreparesMax bounds the prepares one frame carries: above the largest
// suffix or repair reply the core sends (a view change's 1024, a repair's
// 128), far below what would make a count alone allocate much.
const PreparesMax = 1 << 12

// Message header offsets after the prologue (bytes 128..256); see DESIGN.md.
const (
	offTo          = 128 // u8
	offFlags       = 129 // u8, flag* bits
	offReserved16  = 130 // u16, zero
	offLogView     = 132 // u32
	offOp          = 136
	offMsgChecksum = 144
	offCommit      = 152
	offDurable     = 160
	offLast        = 168
	offParent      = 176
	offOffset      = 184
	offStream      = 192 // u32
	offTopic       = 196 // u32
	offPartition   = 200 // u32
	offPrepares    = 204 // u32: how many prepares open the body
	offRevision    = 208
	offCkptOp      = 216
	offCkptSum     = 224
	offCkptSize    = 232
	offCkptImage   = 240
	offReserved64  = 248 // u64, zero
)

// Flag bits at offFlags.
const (
	flagUntrusted = 1 << 0 // Message.Untrusted
	flagPartition = 1 << 1 // GroupID.IsPartition
	flagData      = 1 << 2 // Message.Data is present (may be empty)
	flagsKnown    = flagUntrusted | flagPartition | flagData
)

// prepareCount is how many prepares a command carries.
type prepareCount uint8

const (
	preparesNone prepareCount = iota
	preparesOne
	preparesMany // 0..PreparesMax
)

// shape is what a command's body may hold.
type shape struct {
	prepares prepareCount
	data     bool
}

// shapes are the commands a replica frame carries: the values of
// protocol-framing.md 1.3 the core sends, plus 30 and 31 (partition log
// data for state transfer, past 1.3's values).
var shapes = map[vsr.Command]shape{
	vsr.CmdPing: {}, vsr.CmdPong: {data: true}, // a pong carries the readiness report
	vsr.CmdRequest: {prepares: preparesOne}, vsr.CmdPrepare: {prepares: preparesOne},
	vsr.CmdPrepareOk: {}, vsr.CmdCommit: {}, vsr.CmdStartViewChange: {},
	vsr.CmdDoViewChange: {prepares: preparesMany}, vsr.CmdStartView: {prepares: preparesMany},
	vsr.CmdRequestStartView: {}, vsr.CmdRequestPrepares: {},
	vsr.CmdRepairPrepare: {prepares: preparesMany}, vsr.CmdRangeEvicted: {},
	vsr.CmdRequestStateTransfer: {}, vsr.CmdStateTransferTarget: {}, vsr.CmdRequestStateChunk: {},
	vsr.CmdStateChunk: {data: true}, vsr.CmdRequestLogData: {}, vsr.CmdLogData: {data: true},
}

// IsMessage reports whether c is the frame command of a consensus message
// (not a handshake frame).
func IsMessage(c wire.FrameCommand) bool {
	_, ok := shapes[vsr.Command(c)]
	return ok
}

// Codec encodes and decodes the consensus frames of one cluster and
// release: a decoded frame of another is ErrIdentity.
type Codec struct {
	Cluster wire.U128
	Release uint32
	SizeMax int // frame bound, header included; 0 or above FrameSizeMax: FrameSizeMax
}

func (c Codec) sizeMax() int {
	if c.SizeMax <= 0 || c.SizeMax > FrameSizeMax {
		return FrameSizeMax
	}
	return c.SizeMax
}

// Size is the frame size of m, or ErrTooLarge past the codec's bound.
func (c Codec) Size(m node.PeerMessage) (int, error) {
	n := HeaderSize + len(m.Msg.Data)
	for i := range m.Msg.Prepares {
		n += vsr.PrepareHeaderSize + len(m.Msg.Prepares[i].Body)
		if n > c.sizeMax() {
			break
		}
	}
	if n > c.sizeMax() {
		return 0, fmt.Errorf("%w: %s of %d prepares needs more than %d bytes", ErrTooLarge, m.Msg.Command, len(m.Msg.Prepares), c.sizeMax())
	}
	return n, nil
}

// Append appends the frame of m to dst, growing it once: every prepare's
// header and body and the data are copied behind the header, then the body
// is hashed once. The message must be of a shape the core sends (asserted);
// a frame over the codec's bound is ErrTooLarge and nothing is appended.
func (c Codec) Append(dst []byte, m node.PeerMessage) ([]byte, error) {
	v := &m.Msg
	sh, ok := shapes[v.Command]
	if !ok {
		assert.Failf("replica frame: command %d has no frame", v.Command)
	}
	if !sh.fits(len(v.Prepares), v.Data != nil) {
		assert.Failf("replica frame: %s with %d prepares, data %v", v.Command, len(v.Prepares), v.Data != nil)
	}
	assert.That(!m.Group.IsPartition || m.Group.Revision != 0, "replica frame: partition group of revision 0")
	size, err := c.Size(m)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	dst = slices.Grow(dst, size)[:start+size]
	f := dst[start:]
	putPrologue(f, Header{Cluster: c.Cluster, View: v.View, Release: c.Release, Command: wire.FrameCommand(v.Command), Replica: v.From})
	putMessageHeader(f, m)
	at := HeaderSize
	for i := range v.Prepares {
		p := &v.Prepares[i]
		p.PutHeader(f[at : at+vsr.PrepareHeaderSize])
		at += vsr.PrepareHeaderSize
		at += copy(f[at:], p.Body)
	}
	copy(f[at:], v.Data)
	seal(f)
	return dst, nil
}

func (sh shape) fits(prepares int, data bool) bool {
	switch {
	case data && !sh.data:
		return false
	case sh.prepares == preparesNone:
		return prepares == 0
	case sh.prepares == preparesOne:
		return prepares == 1
	}
	return prepares <= PreparesMax
}

func putMessageHeader(f []byte, m node.PeerMessage) {
	v, g := &m.Msg, m.Group
	le := binary.LittleEndian
	f[offTo] = v.To
	var flags byte
	if v.Untrusted {
		flags |= flagUntrusted
	}
	if g.IsPartition {
		flags |= flagPartition
	}
	if v.Data != nil {
		flags |= flagData
	}
	f[offFlags] = flags
	le.PutUint16(f[offReserved16:], 0)
	le.PutUint32(f[offLogView:], v.LogView)
	for _, x := range []struct {
		off int
		v   uint64
	}{
		{offOp, v.Op}, {offMsgChecksum, v.Checksum}, {offCommit, v.Commit}, {offDurable, v.Durable},
		{offLast, v.Last}, {offParent, v.Parent}, {offOffset, v.Offset}, {offRevision, g.Revision},
		{offCkptOp, v.Checkpoint.Op}, {offCkptSum, v.Checkpoint.Checksum}, {offCkptSize, v.Checkpoint.Size},
		{offCkptImage, v.Checkpoint.ImageChecksum}, {offReserved64, 0},
	} {
		le.PutUint64(f[x.off:], x.v)
	}
	le.PutUint32(f[offStream:], g.Stream)
	le.PutUint32(f[offTopic:], g.Topic)
	le.PutUint32(f[offPartition:], g.Partition)
	le.PutUint32(f[offPrepares:], uint32(len(v.Prepares)))
}

// Decode reads the consensus message of one whole frame. The prepares'
// bodies and the data alias frame, which the caller hands over: the core
// may keep them. Prepare checksums are the sender's claims, verified by
// the core as for any prepare.
func (c Codec) Decode(frame []byte) (node.PeerMessage, error) {
	hd, err := checkFrame(frame, c.sizeMax())
	if err != nil {
		return node.PeerMessage{}, err
	}
	if hd.Cluster != c.Cluster || hd.Release != c.Release {
		return node.PeerMessage{}, fmt.Errorf("%w: cluster %x%016x release %d", ErrIdentity, hd.Cluster.Hi, hd.Cluster.Lo, hd.Release)
	}
	sh, ok := shapes[vsr.Command(hd.Command)]
	if !ok {
		return node.PeerMessage{}, malformed("command %d", hd.Command)
	}
	m, count, err := decodeMessageHeader(frame, hd, sh)
	if err != nil {
		return node.PeerMessage{}, err
	}
	if err := decodeBody(&m.Msg, frame[HeaderSize:], count, frame[offFlags]&flagData != 0); err != nil {
		return node.PeerMessage{}, fmt.Errorf("%s: %w", m.Msg.Command, err)
	}
	return m, nil
}

func decodeMessageHeader(f []byte, hd Header, sh shape) (node.PeerMessage, int, error) {
	le := binary.LittleEndian
	flags := f[offFlags]
	count := le.Uint32(f[offPrepares:])
	m := node.PeerMessage{
		Group: node.GroupID{IsPartition: flags&flagPartition != 0, Stream: le.Uint32(f[offStream:]),
			Topic: le.Uint32(f[offTopic:]), Partition: le.Uint32(f[offPartition:]), Revision: le.Uint64(f[offRevision:])},
		Msg: vsr.Message{Command: vsr.Command(hd.Command), From: hd.Replica, To: f[offTo], View: hd.View,
			LogView: le.Uint32(f[offLogView:]), Op: le.Uint64(f[offOp:]), Checksum: le.Uint64(f[offMsgChecksum:]),
			Commit: le.Uint64(f[offCommit:]), Durable: le.Uint64(f[offDurable:]), Last: le.Uint64(f[offLast:]),
			Parent: le.Uint64(f[offParent:]), Untrusted: flags&flagUntrusted != 0, Offset: le.Uint64(f[offOffset:]),
			Checkpoint: vsr.Checkpoint{Op: le.Uint64(f[offCkptOp:]), Checksum: le.Uint64(f[offCkptSum:]),
				Size: le.Uint64(f[offCkptSize:]), ImageChecksum: le.Uint64(f[offCkptImage:])}},
	}
	g := m.Group
	switch {
	case m.Msg.From >= vsr.ReplicasMax || m.Msg.To >= vsr.ReplicasMax || m.Msg.From == m.Msg.To:
		return m, 0, malformed("from replica %d to %d", m.Msg.From, m.Msg.To)
	case flags&^flagsKnown != 0 || le.Uint16(f[offReserved16:]) != 0 || le.Uint64(f[offReserved64:]) != 0:
		return m, 0, malformed("flags %#x or reserved bytes", flags)
	case g.IsPartition && g.Revision == 0:
		return m, 0, malformed("partition group of revision 0") // VSR-3
	case !g.IsPartition && g != node.GroupID{}:
		return m, 0, malformed("metadata group with partition fields")
	case count > PreparesMax:
		return m, 0, fmt.Errorf("%w: %d prepares, at most %d", ErrTooLarge, count, PreparesMax)
	case !sh.fits(int(count), flags&flagData != 0):
		return m, 0, malformed("%s with %d prepares, data flag %d", m.Msg.Command, count, flags&flagData)
	}
	return m, int(count), nil
}

// decodeBody reads count prepares, then the data (the rest) if present.
func decodeBody(v *vsr.Message, body []byte, count int, data bool) error {
	if count > len(body)/vsr.PrepareHeaderSize {
		return malformed("%d prepares in %d bytes", count, len(body))
	}
	if count > 0 {
		v.Prepares = make([]vsr.Prepare, count)
	}
	for i := range count {
		p, n, ok := vsr.DecodeHeader(body)
		if !ok || uint64(n) > uint64(len(body)-vsr.PrepareHeaderSize) {
			return malformed("prepare %d of %d", i, count)
		}
		end := vsr.PrepareHeaderSize + int(n)
		p.Body = body[vsr.PrepareHeaderSize:end:end]
		v.Prepares[i] = p
		body = body[end:]
	}
	switch {
	case data:
		v.Data = body[:len(body):len(body)]
	case len(body) != 0:
		return malformed("%d bytes after the prepares", len(body))
	}
	return nil
}
