package flight

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

// Options steer a replay.
type Options struct {
	// Until stops after this many inputs (0: all).
	Until int
	// Print, when set, gets each record and each Ready, readable.
	Print io.Writer
	// Check runs the one-node checks (check.go) on every Ready.
	Check bool
	// Force replays a dump of another build.
	Force bool
	// DataDir is the server's data directory, or a copy of it: where a
	// dump that records poll reads by digest has their bytes read back.
	DataDir string
	// Clients, when set, sees every client frame stepped and every reply
	// taken (package flight/clients rebuilds the clients' history from them).
	Clients ClientObserver
}

// ClientObserver watches a replayed node's conversation with its clients.
type ClientObserver interface {
	Frame(bus.ClientFrame)
	Reply(bus.Reply)
}

// Result is what a replay found.
type Result struct {
	Header   Header
	Inputs   int
	Takes    int
	Hash     string // the fold of the replay's take digests
	Complete bool   // every record was replayed (not cut by Until)
}

// Divergence is a replay whose outputs differ from the server's.
type Divergence struct {
	Take, Input int
	Shard       uint8
	Class       string
	Recorded    uint64
	Replayed    uint64
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("diverged at take %d (shard %d, after input %d): the %s differ (server %016x, replay %016x)",
		d.Take, d.Shard, d.Input, d.Class, d.Recorded, d.Replayed)
}

// pending is an input read and not yet stepped: the crypto answers it made
// follow its record.
type pending struct {
	in    node.Input
	shard uint8
	el    *jobElided
	read  *readBack
	kind  uint8
}

// readKey names one of a replayed node's disk reads.
type readKey struct {
	shard uint8
	id    storage.ReqID
}

type replayer struct {
	o        Options
	res      Result
	nodes    []*node.Node
	out      []outputHash
	crypto   []*replayCrypto
	handOffs []node.ShardMessage
	hash     uint64
	pend     []*pending // by shard: an input waits for its shard's next record
	reads    map[readKey]storage.Request
	check    *checker
}

// Replay steps fresh nodes through a dump's records, taking their Readies
// where the server took them and comparing each Ready's digests with the
// server's. A dump of another build is refused unless forced; a window
// that does not start at boot can only be printed.
func Replay(r io.Reader, o Options) (Result, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	h, err := readHeader(br)
	if err != nil {
		return Result{}, err
	}
	rp := &replayer{o: o, res: Result{Header: h}}
	if b := Build(); h.Build != b && !o.Force {
		return rp.res, fmt.Errorf("flight dump of build %q, this is build %q: replay it with that build, or force it (-force)", h.Build, b)
	}
	if h.Shards < 1 || h.Shards > 256 {
		return rp.res, fmt.Errorf("flight dump of %d shards", h.Shards)
	}
	if !h.FromBoot && o.Print == nil {
		return rp.res, fmt.Errorf("the dump's window starts after boot (%d records were evicted): it can be printed (-print) but not replayed; a larger ring (debug.flight_recorder.ring_size) keeps the boot", h.Evicted)
	}
	rp.start(h)
	if err := rp.run(br); err != nil {
		return rp.res, err
	}
	rp.res.Hash = fmt.Sprintf("%016x", rp.hash)
	if rp.res.Complete && h.FromBoot && rp.res.Hash != h.Hash {
		return rp.res, fmt.Errorf("window hash %s, the server's %s", rp.res.Hash, h.Hash)
	}
	return rp.res, nil
}

func (rp *replayer) start(h Header) {
	for i := range h.Shards {
		cfg := h.Config
		cfg.Shard, cfg.Shards = uint8(i), uint8(h.Shards)
		c := &replayCrypto{}
		rp.crypto = append(rp.crypto, c)
		rp.nodes = append(rp.nodes, node.New(cfg, c))
		rp.out = append(rp.out, newOutputHash())
	}
	rp.pend = make([]*pending, h.Shards)
	rp.reads = make(map[readKey]storage.Request)
	if rp.o.Check {
		rp.check = newChecker()
	}
}

func (rp *replayer) run(br *bufio.Reader) error {
	var buf []byte
	for n := 1; ; n++ {
		rec, err := readRecord(br, buf)
		if errors.Is(err, io.EOF) {
			for shard := range rp.pend {
				if err := rp.flush(uint8(shard)); err != nil {
					return err
				}
			}
			rp.res.Complete = rp.o.Until == 0 || rp.res.Inputs < rp.o.Until
			return nil
		}
		if err != nil {
			return err
		}
		buf = rec
		if int(rec[1]) >= len(rp.nodes) {
			return fmt.Errorf("record %d: shard %d of %d", n, rec[1], len(rp.nodes))
		}
		if err := rp.record(rec); err != nil {
			return fmt.Errorf("record %d: %w", n, err)
		}
		if rp.until() {
			return nil
		}
	}
}

// until reports whether the replay stepped the inputs it was asked to.
func (rp *replayer) until() bool { return rp.o.Until > 0 && rp.res.Inputs >= rp.o.Until }

func (rp *replayer) record(rec []byte) error {
	kind, shard := rec[0], rec[1]
	if kind == kindMint || kind == kindHashToken || kind == kindRandom || kind == kindNewKey {
		if rp.pend[shard] == nil {
			return fmt.Errorf("a token answer of shard %d follows no input of that shard", shard)
		}
		rp.crypto[shard].queue(rec)
		return nil
	}
	if err := rp.flush(shard); err != nil || rp.until() {
		return err
	}
	switch kind {
	case kindBoot:
		rp.printf("boot shard %d\n", shard)
		return rp.safely(func() { rp.nodes[shard].Boot() })
	case kindTake:
		return rp.take(rec)
	case kindHand:
		if len(rec) < 4 || rec[3] != shard || int(rec[2]) >= len(rp.nodes) {
			return fmt.Errorf("bad hand-off record")
		}
		m, ok := rp.popHandOff(rec[2], rec[3])
		if !ok {
			return fmt.Errorf("hand-off %d->%d: none pending in the replay", rec[2], rec[3])
		}
		rp.pend[shard] = &pending{in: m, shard: shard, kind: kind}
		return nil
	}
	in, el, rb, err := decodeInput(rec)
	if err != nil {
		return err
	}
	rp.pend[shard] = &pending{in: in, shard: shard, el: el, read: rb, kind: kind}
	return nil
}

// flush steps shard's pending input, its token answers queued.
func (rp *replayer) flush(shard uint8) error {
	p := rp.pend[shard]
	if p == nil {
		return nil
	}
	rp.pend[shard] = nil
	rp.res.Inputs++
	if c, ok := p.in.(node.Completion); ok && p.read == nil {
		delete(rp.reads, readKey{p.shard, c.ID}) // recorded with its bytes
	}
	if p.read != nil {
		if err := rp.readBack(p); err != nil {
			return fmt.Errorf("input %d (shard %d): %w", rp.res.Inputs, p.shard, err)
		}
	}
	if rp.o.Print != nil {
		rp.printf("#%d shard %d %s\n", rp.res.Inputs, p.shard, describeInput(p.in))
	}
	if p.el != nil {
		jr := p.in.(node.JobResult)
		rp.out[p.shard].elide(jr.Data, p.el.digest)
	}
	rp.crypto[p.shard].mint = &rp.out[p.shard]
	err := rp.safely(func() { rp.nodes[p.shard].Step(p.in) })
	if err == nil {
		err = rp.crypto[p.shard].leftover()
	}
	if err != nil {
		return fmt.Errorf("input %d (shard %d): %w", rp.res.Inputs, p.shard, err)
	}
	if rp.check != nil {
		rp.check.input(p.shard, p.in)
	}
	if f, ok := p.in.(node.ClientFrame); ok && rp.o.Clients != nil {
		rp.o.Clients.Frame(bus.ClientFrame(f))
	}
	return nil
}

// readBack gives a poll read recorded by digest the bytes the server read:
// the replayed node asked for the same file and offset, and the data
// directory must still hold the same bytes there (the digest says so).
func (rp *replayer) readBack(p *pending) error {
	c := storage.Completion(p.in.(node.Completion))
	k := readKey{p.shard, c.ID}
	q, ok := rp.reads[k]
	if !ok {
		return fmt.Errorf("disk completion %d: recorded by digest, but the replay asked for no such read", c.ID)
	}
	delete(rp.reads, k)
	if rp.o.DataDir == "" {
		return fmt.Errorf("the dump records poll reads by digest: replay it with the server's data directory (-data DIR), or record with debug.flight_recorder.record_read_data = true")
	}
	data, err := readAt(filepath.Join(rp.o.DataDir, filepath.FromSlash(q.File)), q.Offset, p.read.n)
	if err == nil && xxh3.Hash(data) != p.read.digest {
		err = errors.New("the data directory holds other bytes there than the server read (changed or deleted since?)")
	}
	if err != nil {
		return fmt.Errorf("read back %d bytes of %s at %d: %w", p.read.n, q.File, q.Offset, err)
	}
	c.Data = data
	p.in = node.Completion(c)
	rp.out[p.shard].read(data, p.read.digest)
	return nil
}

func readAt(path string, off uint64, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, n)
	if _, err := f.ReadAt(data, int64(off)); err != nil {
		return nil, err
	}
	return data, nil
}

func (rp *replayer) take(rec []byte) error {
	shard := rec[1]
	want, err := decodeTake(rec)
	if err != nil {
		return err
	}
	var r node.Ready
	if err := rp.safely(func() { r = rp.nodes[shard].TakeReady() }); err != nil {
		return err
	}
	rp.res.Takes++
	got := rp.out[shard].take(&r)
	rp.hash = fold(rp.hash, got)
	rp.handOffs = append(rp.handOffs, r.Shards...)
	for i := range r.Disk {
		if q := &r.Disk[i]; q.Op == storage.OpRead && q.ReplyOnly {
			rp.reads[readKey{shard, q.ID}] = storage.Request{File: q.File, Offset: q.Offset}
		}
	}
	if rp.o.Print != nil {
		printReady(rp.o.Print, shard, &r)
	}
	if rp.check != nil {
		if err := rp.check.ready(shard, &r); err != nil {
			return fmt.Errorf("take %d (shard %d, after input %d): check: %w", rp.res.Takes, shard, rp.res.Inputs, err)
		}
	}
	for _, rep := range r.Replies {
		if rp.o.Clients != nil {
			rp.o.Clients.Reply(rep)
		}
	}
	for c := range got {
		if got[c] != want[c] {
			return &Divergence{Take: rp.res.Takes, Input: rp.res.Inputs, Shard: shard, Class: outNames[c], Recorded: want[c], Replayed: got[c]}
		}
	}
	return nil
}

func (rp *replayer) popHandOff(from, to uint8) (node.ShardMessage, bool) {
	for i, m := range rp.handOffs {
		if m.From == from && m.To == to {
			rp.handOffs = append(rp.handOffs[:i], rp.handOffs[i+1:]...)
			return m, true
		}
	}
	return node.ShardMessage{}, false
}

// safely runs f, turning a core assertion into an error: a dump taken on
// an assertion failure replays to that assertion.
func (rp *replayer) safely(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the core panicked: %v", p)
		}
	}()
	f()
	return nil
}

func (rp *replayer) printf(format string, args ...any) {
	if rp.o.Print != nil {
		fmt.Fprintf(rp.o.Print, format, args...)
	}
}

// replayCrypto answers the node's token calls from the recorded answers
// of the input being stepped.
type replayCrypto struct {
	answers [][]byte
	missing string
	mint    *outputHash
}

func (c *replayCrypto) queue(rec []byte) { c.answers = append(c.answers, append([]byte{}, rec...)) }

func (c *replayCrypto) next(kind uint8) (*reader, bool) {
	if len(c.answers) == 0 || c.answers[0][0] != kind {
		c.missing = fmt.Sprintf("the node asked for token answer %d that the server did not record", kind)
		return nil, false
	}
	r := &reader{b: c.answers[0][2:]}
	c.answers = c.answers[1:]
	return r, true
}

// NewToken mints a stand-in of the recorded length.
func (c *replayCrypto) NewToken() string {
	r, ok := c.next(kindMint)
	if !ok {
		return ""
	}
	t := strings.Repeat(string(rune(standIn)), int(min(r.uvarint(), wire.BodySizeMax)))
	c.mint.mint(t)
	return t
}

func (c *replayCrypto) HashToken(string) string {
	r, ok := c.next(kindHashToken)
	if !ok {
		return ""
	}
	r.uvarint()
	return string(r.b)
}

// Random gives back the recorded bytes.
func (c *replayCrypto) Random(b []byte) {
	r, ok := c.next(kindRandom)
	if !ok {
		return
	}
	r.uvarint()
	copy(b, r.b)
}

// NewKey gives a stand-in key: the server never records a secret key, so
// a window that generates a stream key replays with other wraps and
// diverges there (the replay names the input).
func (c *replayCrypto) NewKey(b []byte) {
	if _, ok := c.next(kindNewKey); ok {
		clear(b)
	}
}

func (c *replayCrypto) leftover() error {
	defer func() { c.answers, c.missing = c.answers[:0], "" }()
	if c.missing != "" {
		return errors.New(c.missing)
	}
	if len(c.answers) > 0 {
		return fmt.Errorf("the node did not ask for %d recorded token answers", len(c.answers))
	}
	return nil
}
