package sim

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/clock"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/io/storage"
)

// TraceVersion names the trace format and the simulator's behaviour: a
// trace replays only under the version that wrote it.
const TraceVersion = "iggy-sim-trace 3"

// nodeParams is what a node incarnation is made from, besides the fixed
// simulation config; a trace records it so a replay builds the same node.
type nodeParams struct {
	Replica, Replicas   uint8
	Shards              uint8
	CheckpointEveryOps  uint64
	PartitionCacheBytes uint64
	HeartbeatTicks      uint64  // node.Config.HeartbeatIntervalTicks
	Racks               []uint8 // node.Config.Racks
}

// tracer hashes every output of every node incarnation (replies, disk
// requests, jobs, logs, hand-offs, boot and fatal) and, when recording,
// writes every input stepped into a shard and every TakeReady, so that a
// replay can drive fresh nodes with the same inputs and compare hashes.
type tracer struct {
	cur     int // the replica the last line was about
	shard   int // and the shard of its process
	h       *xxh3.Hasher
	scratch []byte
	rec     *bufio.Writer // nil unless recording
}

func newTracer(rec io.Writer) *tracer {
	t := &tracer{h: xxh3.New()}
	if rec != nil {
		t.rec = bufio.NewWriterSize(rec, 1<<20)
	}
	return t
}

func (t *tracer) line(format string, args ...any) {
	if t.rec != nil {
		fmt.Fprintf(t.rec, format+"\n", args...)
	}
}

// header starts a recording: version, seed, profile and knobs.
func (t *tracer) header(seed uint64, k Knobs) {
	t.line("%s", TraceVersion)
	t.line("seed %d", seed)
	t.line("profile %s", k.Profile)
	t.line("knobs %s", k)
}

// nodeStart starts an incarnation of every shard of a replica's node; the
// front is the subject of the lines that follow.
func (t *tracer) nodeStart(p nodeParams) {
	t.cur, t.shard = int(p.Replica), 0
	t.line("node %d %d %d %d %d %d %s", p.Replica, p.Replicas, p.CheckpointEveryOps, p.PartitionCacheBytes, p.Shards, p.HeartbeatTicks, racksField(p.Racks))
	t.hashBytes([]byte("node"))
	t.u64(uint64(p.Replica))
	t.u64(uint64(p.Shards))
}

// subject makes shard s of replica i the subject of the lines that follow.
func (t *tracer) subject(i, s int) {
	if t.cur != i || t.shard != s {
		t.cur, t.shard = i, s
		t.line("host %d %d", i, s)
	}
}

// inputTo records one input about to be stepped into shard s of replica i.
func (t *tracer) inputTo(i, s int, in node.Input) {
	t.subject(i, s)
	if t.rec == nil {
		return
	}
	in.Visit((*inputLiner)(t))
}

// inputLiner writes one trace line per input; as a node.InputVisitor it
// must name every kind of input, so a new kind cannot go untraced.
type inputLiner tracer

func (l *inputLiner) OnPeer(m node.PeerMessage) {
	(*tracer)(l).line("peer %s", hex.EncodeToString(encodePeer(m)))
}

// OnShard writes only the pair: a replay takes the body from the sending
// shard's output, the oldest of the pair not yet stepped.
func (l *inputLiner) OnShard(m node.ShardMessage) { (*tracer)(l).line("hand %d %d", m.From, m.To) }

func (l *inputLiner) OnTick(m clock.Tick) { (*tracer)(l).line("tick %d %d", m.Ticks, m.NowMicros) }

func (l *inputLiner) OnConnOpened(m bus.ConnOpened) {
	(*tracer)(l).line("open %d %d %s", m.Conn, m.Transport, m.Addr)
}

func (l *inputLiner) OnConnClosed(m bus.ConnClosed) { (*tracer)(l).line("close %d", m.Conn) }

func (l *inputLiner) OnClientFrame(m bus.ClientFrame) {
	(*tracer)(l).line("frame %d %s", m.Conn, hex.EncodeToString(m.Frame))
}

func (l *inputLiner) OnCompletion(m storage.Completion) {
	(*tracer)(l).line("done %s", hex.EncodeToString(encodeCompletion(m)))
}

func (l *inputLiner) OnJobResult(m compute.Result) {
	(*tracer)(l).line("job %d %d %s", m.ID, m.Code, hex.EncodeToString(m.Data))
}

// OnTrustedRegister panics: the simulator has no HTTP adapter, the only
// source of trusted registrations, so a trace cannot hold one.
func (l *inputLiner) OnTrustedRegister(node.TrustedRegister) {
	panic("sim: tracing a trusted registration, which the simulator never makes")
}

// take records a TakeReady and hashes what it returned.
func (t *tracer) take(r *node.Ready) {
	t.line("take")
	t.u64(uint64(t.cur))
	t.u64(uint64(t.shard))
	for _, m := range r.Peers {
		t.hashBytes(encodePeer(m))
	}
	for _, m := range r.Shards {
		t.u64(uint64(m.From))
		t.u64(uint64(m.To))
	}
	for _, rep := range r.Replies {
		t.u64(uint64(rep.Conn))
		t.flag(rep.Close)
		t.u64(uint64(len(rep.Parts)))
		for _, p := range rep.Parts {
			t.hashBytes(p)
		}
	}
	for _, d := range r.Disk {
		t.u64(uint64(d.ID))
		t.u64(uint64(d.Op))
		t.hashBytes([]byte(d.File))
		t.hashBytes([]byte(d.Target))
		t.u64(d.Offset)
		t.u64(d.Len)
		for _, b := range d.Data {
			t.hashBytes(b)
		}
	}
	for _, j := range r.Compute {
		t.u64(j.ID)
		t.u64(uint64(j.Kind))
		t.hashBytes([]byte(j.Hash))
	}
	for _, l := range r.Logs {
		t.hashBytes([]byte(l))
	}
	t.flag(r.Booted)
	t.hashBytes([]byte(r.Fatal))
}

func (t *tracer) u64(v uint64) {
	t.scratch = binary.AppendUvarint(t.scratch[:0], v)
	_, _ = t.h.Write(t.scratch)
}

func (t *tracer) flag(b bool) { t.u64(boolU64(b)) }

func (t *tracer) hashBytes(b []byte) {
	t.u64(uint64(len(b)))
	_, _ = t.h.Write(b)
}

func (t *tracer) sum() uint64 { return t.h.Sum64() }

// finish writes the closing line with the hash.
func (t *tracer) finish() error {
	if t.rec == nil {
		return nil
	}
	t.line("end %016x", t.sum())
	return t.rec.Flush()
}

// encodeCompletion is a completion as bytes: id, result, error, data, entries.
func encodeCompletion(c storage.Completion) []byte {
	b := binary.AppendUvarint(nil, uint64(c.ID))
	b = binary.AppendUvarint(b, uint64(c.Result))
	b = appendBytes(b, []byte(c.Err))
	b = binary.AppendUvarint(b, boolU64(c.Data != nil))
	b = appendBytes(b, c.Data)
	b = binary.AppendUvarint(b, uint64(len(c.Entries)))
	for _, e := range c.Entries {
		b = appendBytes(b, []byte(e.Name))
		b = binary.AppendUvarint(b, e.Size)
		b = binary.AppendUvarint(b, boolU64(e.IsDir))
	}
	return b
}

func boolU64(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// decoder reads what encodeCompletion wrote; a short or bad record sets err.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = fmt.Errorf("bad length %d", n)
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func decodeCompletion(b []byte) (storage.Completion, error) {
	d := &decoder{b: b}
	c := storage.Completion{ID: storage.ReqID(d.uvarint()), Result: storage.Result(d.uvarint())}
	c.Err = string(d.bytes())
	hasData := d.uvarint() == 1
	if data := d.bytes(); hasData {
		c.Data = append([]byte{}, data...)
	}
	entries := d.uvarint()
	for i := uint64(0); i < entries && d.err == nil; i++ {
		e := storage.Entry{Name: string(d.bytes()), Size: d.uvarint()}
		e.IsDir = d.uvarint() == 1
		c.Entries = append(c.Entries, e)
	}
	return c, d.err
}

// NewGzipRecorder wraps w so a recording is compressed (payload padding
// compresses well); close the returned writer after the run.
func NewGzipRecorder(w io.Writer) *gzip.Writer { return gzip.NewWriter(w) }

// parseFields splits a trace line into its verb and fields.
func parseFields(line string) (string, []string) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return "", nil
	}
	return f[0], f[1:]
}

func parseU64(s string) (uint64, error) { return strconv.ParseUint(s, 10, 64) }
