package flight

import (
	"bytes"
	"encoding/binary"
	"unsafe"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/core/node"
)

// Output classes of a Ready, each with its own digest, so a replay that
// differs says which class differed first.
const (
	outReplies = iota
	outDisk
	outCompute
	outPeers
	outShards
	outRest // logs, Booted, Fatal, WriteFailures
	outClasses
)

var outNames = [outClasses]string{"replies", "disk requests", "compute jobs", "peer messages", "shard hand-offs", "logs/booted/fatal"}

// digests are one Ready's output digests by class.
type digests [outClasses]uint64

// mintedMax bounds the minted tokens awaiting their reply; elidedMax the
// elided job results awaiting theirs.
const (
	mintedMax = 8
	elidedMax = 4
)

// digestReadsMax bounds the poll reads recorded by digest that one take
// remembers; past it a reply part is hashed as bytes, alike in the server
// and in a replay.
const digestReadsMax = 64

// digestRead is a poll read recorded by digest since the last take: a
// reply part within its bytes is hashed as the digest and the offset, not
// hashed again. Sound because the replay steps the node with bytes of the
// same digest; kept only until the next take, while the server's read
// buffer is still lent to this Ready (it is given back once its replies are
// written) and data keeps the replay's alive, so no other bytes can lie
// there.
type digestRead struct {
	data   []byte
	digest uint64
}

// elision is a job result the recorder kept out of the trace (a diagnostic
// ZIP): a reply part that is its data is hashed as its recorded digest.
type elision struct {
	data   *byte
	n      int
	digest uint64
}

// outputHash digests Readies identically in the server and in a replay.
// The two differ in secrets only: a minted token (the server's real one,
// the replay's stand-in) is hashed as stand-in bytes wherever a reply
// carries it, and an elided job result as its digest.
type outputHash struct {
	h       *xxh3.Hasher
	scratch [binary.MaxVarintLen64]byte
	minted  [mintedMax]string
	nMinted int
	elided  [elidedMax]elision
	nElided int
	reads   [digestReadsMax]digestRead
	nReads  int
}

func newOutputHash() outputHash { return outputHash{h: xxh3.New()} }

func (o *outputHash) mint(token string) {
	o.minted[o.nMinted%mintedMax] = token
	o.nMinted++
}

func (o *outputHash) elide(data []byte, digest uint64) {
	if len(data) == 0 {
		return
	}
	o.elided[o.nElided%elidedMax] = elision{data: &data[0], n: len(data), digest: digest}
	o.nElided++
}

// read remembers a poll read recorded by digest, until the next take.
func (o *outputHash) read(data []byte, digest uint64) {
	if o.nReads < len(o.reads) && len(data) > 0 {
		o.reads[o.nReads] = digestRead{data: data, digest: digest}
		o.nReads++
	}
}

// inRead finds the remembered read that holds p and p's offset in it.
func (o *outputHash) inRead(p []byte) (uint64, uint64, bool) {
	at := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	for i := range o.reads[:o.nReads] {
		r := &o.reads[i]
		base := uintptr(unsafe.Pointer(unsafe.SliceData(r.data)))
		if at >= base && at-base+uintptr(len(p)) <= uintptr(len(r.data)) {
			return r.digest, uint64(at - base), true
		}
	}
	return 0, 0, false
}

// take digests r.
func (o *outputHash) take(r *node.Ready) digests {
	defer o.forgetReads()
	var d digests
	o.h.Reset()
	for _, rep := range r.Replies {
		o.u64(uint64(rep.Conn))
		o.flag(rep.Close)
		o.flag(rep.Authenticated)
		o.u64(uint64(len(rep.Parts)))
		for _, p := range rep.Parts {
			o.part(p)
		}
	}
	d[outReplies] = o.next()
	for i := range r.Disk {
		q := &r.Disk[i]
		o.u64(uint64(q.ID))
		o.u64(uint64(q.Op))
		o.str(q.File)
		o.str(q.Target)
		o.u64(q.Offset)
		o.u64(q.Len)
		o.flag(q.ReplyOnly)
		for _, b := range q.Data {
			o.bytes(b)
		}
	}
	d[outDisk] = o.next()
	for i := range r.Compute {
		j := &r.Compute[i]
		o.u64(j.ID)
		o.u64(uint64(j.Kind))
		o.u64(uint64(j.Compression))
		o.bytes(j.Types)
		o.str(j.Hash) // never Password: the replay's is a stand-in
	}
	d[outCompute] = o.next()
	for i := range r.Peers {
		m := &r.Peers[i]
		o.u64(uint64(m.Msg.Command))
		o.u64(uint64(m.Msg.To))
		o.u64(m.Msg.Op)
		o.u64(m.Msg.Commit)
		o.u64(uint64(m.Msg.View))
		o.u64(uint64(len(m.Msg.Prepares)))
		for j := range m.Msg.Prepares {
			o.u64(m.Msg.Prepares[j].Checksum)
		}
		o.bytes(m.Msg.Data)
	}
	d[outPeers] = o.next()
	for _, m := range r.Shards {
		o.u64(uint64(m.From))
		o.u64(uint64(m.To))
	}
	d[outShards] = o.next()
	for _, l := range r.Logs {
		o.str(l)
	}
	o.flag(r.Booted)
	o.str(r.Fatal)
	o.u64(uint64(r.WriteFailures))
	d[outRest] = o.next()
	return d
}

func (o *outputHash) forgetReads() {
	clear(o.reads[:o.nReads])
	o.nReads = 0
}

// next ends one class's digest and starts the next.
func (o *outputHash) next() uint64 {
	s := o.h.Sum64()
	o.h.Reset()
	return s
}

// part hashes a reply part, minus secrets.
func (o *outputHash) part(p []byte) {
	o.u64(uint64(len(p)))
	if len(p) > 0 {
		for i := 0; i < min(o.nElided, elidedMax); i++ {
			if e := &o.elided[i]; e.data == &p[0] && e.n == len(p) {
				o.u64(e.digest)
				*e = elision{}
				return
			}
		}
	}
	if digest, off, ok := o.inRead(p); ok {
		o.u64(digest)
		o.u64(off)
		return
	}
	for i := 0; i < min(o.nMinted, mintedMax); i++ {
		t := o.minted[i]
		if t == "" {
			continue
		}
		if at := bytes.Index(p, []byte(t)); at >= 0 {
			_, _ = o.h.Write(p[:at])
			o.standIns(len(t))
			_, _ = o.h.Write(p[at+len(t):])
			o.minted[i] = ""
			return
		}
	}
	_, _ = o.h.Write(p)
}

var standIns = bytes.Repeat([]byte{standIn}, 64)

func (o *outputHash) standIns(n int) {
	for n > 0 {
		k := min(n, len(standIns))
		_, _ = o.h.Write(standIns[:k])
		n -= k
	}
}

func (o *outputHash) u64(v uint64) {
	n := binary.PutUvarint(o.scratch[:], v)
	_, _ = o.h.Write(o.scratch[:n])
}

func (o *outputHash) flag(b bool) {
	if b {
		o.u64(1)
		return
	}
	o.u64(0)
}

func (o *outputHash) bytes(b []byte) {
	o.u64(uint64(len(b)))
	_, _ = o.h.Write(b)
}

func (o *outputHash) str(s string) {
	o.u64(uint64(len(s)))
	_, _ = o.h.WriteString(s)
}

// fold adds one Ready's digests to a window's hash.
func fold(h uint64, d digests) uint64 {
	var b [8 * (outClasses + 1)]byte
	binary.LittleEndian.PutUint64(b[:], h)
	for i, v := range d {
		binary.LittleEndian.PutUint64(b[8*(i+1):], v)
	}
	return xxh3.Hash(b[:])
}
