// Package vsr holds the consensus of one group: prepares, their journal on
// disk, and the replica that orders them with Viewstamped Replication
// ("Viewstamped Replication Revisited", Liskov and Cowling 2012) over a
// replica set of 1 to ReplicasMax. A standalone node runs the same code with
// a quorum of one: an op commits once its prepare is durable in the local
// journal. The package is pure: time comes in as ticks, disk I/O leaves as
// storage.Request, peer messages come in through Step and leave in Ready.
package vsr

import (
	"encoding/binary"

	"github.com/iggygo/iggy/internal/assert"
	"github.com/zeebo/xxh3"
)

// PrepareHeaderSize is the fixed size of a prepare's header in the journal.
const PrepareHeaderSize = 64

// PrepareBodySizeMax bounds one prepare's body; a metadata command is small,
// so anything larger in a journal is corruption, not data.
const PrepareBodySizeMax = 16 << 20

// Kind says what a prepare's body holds.
type Kind uint8

const (
	KindCommand  Kind = 1 // a metadata command (core/metadata encoding)
	KindRegister Kind = 2 // a session registration
	KindLogout   Kind = 3 // a session logout

	// Partition groups' kinds.
	KindAppend       Kind = 4 // a validated batch record, appended at its commit
	KindStoreOffset  Kind = 5 // a consumer offset: kind u8, consumer u32, offset u64
	KindDeleteOffset Kind = 6 // a consumer offset delete: kind u8, consumer u32
	KindBarrier      Kind = 7 // no state: a poll is served once it commits (linearizable reads)
	// KindSessionAppend is a send with its session receipt: [session u64]
	// [batch checksum u64][dedup capacity u32][zero u32], then the record
	// (core/node/receipts.go).
	KindSessionAppend Kind = 8
	// KindRetire frees the send receipts of ended sessions: [client lo u64]
	// [client hi u64][session u64] each, at most 128.
	KindRetire Kind = 9
	// KindProducerAppend is an idempotent producer's batch: its
	// partition.ProducerBatch (24 bytes), then the record, appended and
	// recorded in the producer table at its commit.
	KindProducerAppend Kind = 10
)

// Prepare is one op of the log: who asked, when, and the body to apply.
//
// (Op, View) names a prepare uniquely: only the primary of View creates
// prepares of that view, each op once (a primary that restarts never
// proposes in its old view again). Every append to a log checks that the
// new prepare's predecessor is the one the sender holds (messages carry
// the checksum of the prepare before theirs), so two logs holding the same
// prepare hold the same prepares up to it, as in Raft's log matching.
type Prepare struct {
	Checksum  uint64 // set by Seal and DecodePrepare; Encode computes its own
	Op        uint64
	View      uint32
	Timestamp uint64 // µs since the epoch, assigned by the primary
	ClientLo  uint64
	ClientHi  uint64
	Request   uint64
	UserID    uint32
	Kind      Kind
	Operation uint8 // the wire operation byte, so a replayed reply is shaped alike
	Body      []byte
}

// Layout of the 64-byte header:
//
//	0 checksum u64 (XXH3 of bytes 8..64 and the body)
//	8 op u64, 16 timestamp u64, 24 client lo u64, 32 client hi u64,
//	40 request u64, 48 view u32, 52 user id u32, 56 body length u32,
//	60 kind u8, 61 operation u8, 62 reserved u16 (zero).

// Encode appends the prepare's header and body to dst.
func (p *Prepare) Encode(dst []byte) []byte {
	if len(p.Body) > PrepareBodySizeMax {
		assert.Failf("prepare body %d bytes", len(p.Body))
	}
	start := len(dst)
	var h [PrepareHeaderSize]byte
	p.PutHeader(h[:])
	dst = append(dst, h[:]...)
	dst = append(dst, p.Body...)
	binary.LittleEndian.PutUint64(dst[start:], checksum(dst[start+8:]))
	return dst
}

// PutHeader writes p's 64-byte header into h with p.Checksum as it stands,
// computing nothing: a replica frame carries the checksum its sender
// claimed, and the receiver verifies it (Verify) as it would any prepare.
func (p *Prepare) PutHeader(h []byte) {
	if len(p.Body) > PrepareBodySizeMax { // tested first: boxing the length allocates
		assert.Failf("prepare body %d bytes", len(p.Body))
	}
	le := binary.LittleEndian
	le.PutUint64(h[0:], p.Checksum)
	le.PutUint64(h[8:], p.Op)
	le.PutUint64(h[16:], p.Timestamp)
	le.PutUint64(h[24:], p.ClientLo)
	le.PutUint64(h[32:], p.ClientHi)
	le.PutUint64(h[40:], p.Request)
	le.PutUint32(h[48:], p.View)
	le.PutUint32(h[52:], p.UserID)
	le.PutUint32(h[56:], uint32(len(p.Body)))
	h[60] = byte(p.Kind)
	h[61] = p.Operation
	h[62], h[63] = 0, 0
}

func checksum(b []byte) uint64 { return xxh3.Hash(b) }

// Seal encodes p once, sets p.Checksum and points p.Body into the encoding,
// and returns the encoding: the journal writes it and the log keeps it, so a
// prepare is hashed and copied once.
func Seal(p *Prepare) []byte {
	raw := p.Encode(make([]byte, 0, PrepareHeaderSize+len(p.Body)))
	p.Checksum = binary.LittleEndian.Uint64(raw)
	p.Body = raw[PrepareHeaderSize:len(raw):len(raw)]
	return raw
}

// Verify re-encodes a prepare that came from a peer and reports whether its
// Checksum matches its fields; on success p is sealed and the encoding is
// returned.
func Verify(p *Prepare) ([]byte, bool) {
	if len(p.Body) > PrepareBodySizeMax {
		return nil, false
	}
	want := p.Checksum
	raw := Seal(p)
	return raw, p.Checksum == want
}

// DecodePrepare reads one prepare from the front of b. It returns the prepare,
// the bytes it took, and ok=false when b does not start with a whole, valid
// prepare (a torn or corrupt tail).
func DecodePrepare(b []byte) (Prepare, int, bool) {
	p, bodyLen, ok := DecodeHeader(b)
	if !ok || uint64(len(b)-PrepareHeaderSize) < uint64(bodyLen) {
		return Prepare{}, 0, false
	}
	n := PrepareHeaderSize + int(bodyLen)
	if p.Checksum != checksum(b[8:n]) {
		return Prepare{}, 0, false
	}
	p.Body = b[PrepareHeaderSize:n:n]
	return p, n, true
}

// DecodeHeader reads a prepare's 64-byte header from the front of b without
// checking its checksum (the caller checks the bytes another way, or calls
// Verify): the prepare without its body, and the body's length. ok is false
// when b is short, the reserved bytes are not zero or the length is over
// PrepareBodySizeMax.
func DecodeHeader(b []byte) (Prepare, uint32, bool) {
	if len(b) < PrepareHeaderSize {
		return Prepare{}, 0, false
	}
	le := binary.LittleEndian
	bodyLen := le.Uint32(b[56:])
	if bodyLen > PrepareBodySizeMax || le.Uint16(b[62:]) != 0 {
		return Prepare{}, 0, false
	}
	return Prepare{
		Checksum: le.Uint64(b), Op: le.Uint64(b[8:]), Timestamp: le.Uint64(b[16:]),
		ClientLo: le.Uint64(b[24:]), ClientHi: le.Uint64(b[32:]),
		Request: le.Uint64(b[40:]), View: le.Uint32(b[48:]), UserID: le.Uint32(b[52:]),
		Kind: Kind(b[60]), Operation: b[61],
	}, bodyLen, true
}
