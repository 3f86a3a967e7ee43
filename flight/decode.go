package flight

import (
	"encoding/binary"
	"fmt"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

// reader reads the fields of one record; a short or bad field sets err.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) u64() uint64 {
	if len(r.b) < 8 {
		r.fail("short u64")
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *reader) byte1() byte {
	if len(r.b) < 1 {
		r.fail("short byte")
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) str() string {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail("bad length")
		return ""
	}
	v := string(r.b[:n])
	r.b = r.b[n:]
	return v
}

// rest is the remaining bytes, copied: the node may keep and patch them.
func (r *reader) rest() []byte {
	v := append([]byte{}, r.b...)
	r.b = nil
	return v
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s", what)
	}
}

// jobElided is a decoded job result whose data the recorder kept out.
type jobElided struct {
	digest uint64
	n      int
}

// readBack is a decoded completion whose bytes were recorded by digest:
// the replay reads them from the data directory.
type readBack struct {
	digest uint64
	n      int
}

// decodeInput makes the node.Input of an input record (kind at rec[0],
// shard at rec[1]); a hand-off comes back as its pair, to be matched.
func decodeInput(rec []byte) (node.Input, *jobElided, *readBack, error) {
	r := &reader{b: rec[2:]}
	var in node.Input
	var el *jobElided
	var rb *readBack
	switch rec[0] {
	case kindTick:
		in = node.Tick{Ticks: r.uvarint(), NowMicros: r.uvarint()}
	case kindOpen:
		m := node.ConnOpened{Conn: bus.ConnID(r.uvarint()), Transport: bus.Transport(r.uvarint())}
		m.Addr = string(r.rest())
		in = m
	case kindClose:
		in = node.ConnClosed{Conn: bus.ConnID(r.uvarint())}
	case kindFrame:
		in = node.ClientFrame{Conn: bus.ConnID(r.uvarint()), Frame: r.rest()}
	case kindTrusted:
		m := node.TrustedRegister{Conn: bus.ConnID(r.uvarint())}
		m.Client.Lo, m.Client.Hi = r.u64(), r.u64()
		m.User = wire.Identifier{Numeric: r.byte1() == 1, ID: uint32(r.uvarint())}
		m.User.Name = string(r.rest())
		in = m
	case kindPeer:
		m, err := peerCodec.Decode(r.rest())
		if err != nil {
			return nil, nil, nil, fmt.Errorf("peer message: %w", err)
		}
		in = m
	case kindDone:
		var c storage.Completion
		c, rb = decodeCompletion(r)
		in = node.Completion(c)
	case kindJob:
		res := compute.Result{ID: r.uvarint(), Code: uint32(r.uvarint())}
		if r.byte1() == 1 {
			el = &jobElided{digest: r.u64()}
			el.n = int(r.uvarint())
			if r.err == nil && el.n > recordBytesMax {
				r.fail("elided job result too large")
			}
			if r.err == nil {
				res.Data = make([]byte, el.n)
			}
		} else if r.byte1() == 1 {
			res.Data = r.rest()
		}
		in = node.JobResult(res)
	default:
		return nil, nil, nil, fmt.Errorf("record kind %d is no input", rec[0])
	}
	if r.err != nil {
		return nil, nil, nil, fmt.Errorf("record kind %d: %w", rec[0], r.err)
	}
	return in, el, rb, nil
}

func decodeCompletion(r *reader) (storage.Completion, *readBack) {
	c := storage.Completion{ID: storage.ReqID(r.uvarint()), Result: storage.Result(r.uvarint())}
	c.Err = r.str()
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("bad entry count")
		return c, nil
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		e := storage.Entry{Name: r.str(), Size: r.uvarint()}
		e.IsDir = r.byte1() == 1
		c.Entries = append(c.Entries, e)
	}
	switch r.byte1() {
	case dataBytes:
		c.Data = r.rest()
	case dataDigest:
		rb := &readBack{digest: r.u64(), n: int(min(r.uvarint(), recordBytesMax+1))}
		if rb.n > recordBytesMax {
			r.fail("read recorded by digest too large")
		}
		return c, rb
	}
	return c, nil
}

func decodeTake(rec []byte) (digests, error) {
	r := &reader{b: rec[2:]}
	var d digests
	for i := range d {
		d[i] = r.u64()
	}
	return d, r.err
}
