package flight

import "encoding/binary"

// recordPrefixBytes is the length that precedes every record in the ring
// and in a dump.
const recordPrefixBytes = 4

// ring keeps the newest records in a buffer allocated once: a record that
// does not fit evicts the oldest ones. Live bytes are [tail, head) of an
// endless stream, stored modulo the buffer's size.
type ring struct {
	buf        []byte
	head, tail uint64
	records    uint64 // live records
	evicted    uint64 // records dropped to make room, since the start
}

func newRing(sizeBytes int) ring { return ring{buf: make([]byte, sizeBytes)} }

// put appends one record, head then tail (a frame or a read put without
// a copy of its own). A record larger than the whole ring evicts everything
// and is dropped itself (counted as evicted).
func (r *ring) put(head, tail []byte) {
	n := len(head) + len(tail)
	need := uint64(recordPrefixBytes + n)
	if need > uint64(len(r.buf)) {
		r.evicted += r.records + 1
		r.tail, r.records = r.head, 0
		return
	}
	for r.head-r.tail+need > uint64(len(r.buf)) {
		r.tail += recordPrefixBytes + uint64(r.lenAt(r.tail))
		r.records--
		r.evicted++
	}
	var pre [recordPrefixBytes]byte
	binary.LittleEndian.PutUint32(pre[:], uint32(n))
	r.write(pre[:])
	r.write(head)
	r.write(tail)
	r.records++
}

func (r *ring) write(b []byte) {
	at := int(r.head % uint64(len(r.buf)))
	n := copy(r.buf[at:], b)
	copy(r.buf, b[n:])
	r.head += uint64(len(b))
}

func (r *ring) lenAt(pos uint64) uint32 {
	var pre [recordPrefixBytes]byte
	r.copyOut(pre[:], pos)
	return binary.LittleEndian.Uint32(pre[:])
}

func (r *ring) copyOut(dst []byte, pos uint64) {
	at := int(pos % uint64(len(r.buf)))
	n := copy(dst, r.buf[at:])
	copy(dst[n:], r.buf)
}

// contents is the live stream of records, prefixes included, oldest first.
func (r *ring) contents() []byte {
	out := make([]byte, r.head-r.tail)
	r.copyOut(out, r.tail)
	return out
}
