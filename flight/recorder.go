package flight

import (
	"fmt"
	"io"
	"sync"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/io/storage"
)

// RingBytesMin bounds the ring from below: smaller rings hold too little
// to be worth a dump.
const RingBytesMin = 1 << 20

// Recorder is a process's flight recorder: one ring shared by its shards,
// so their records keep the order in which the shards stepped them (a
// hand-off is recorded after the take that emitted it). Each shard records
// through its own Shard, which owns its scratch space; the ring's lock is
// taken once per record, never across a syscall.
type Recorder struct {
	mu     sync.Mutex
	ring   ring
	cfg    node.Config
	shards int
	build  string
	takes  uint64
	hash   uint64
	// readData: poll reads are recorded with their bytes, not by digest
	// (a self-contained dump, bigger and dearer).
	readData bool
}

// Config sizes a recorder.
type Config struct {
	RingBytes int
	// Node is shard 0's node configuration (the replay builds its nodes
	// from it: it holds no secret, the root password is already a hash).
	Node   node.Config
	Shards int
	// ReadData records the bytes of the disk reads that serve polls
	// instead of their digest; a replay then needs no data directory.
	ReadData bool
}

// NewRecorder makes a recorder with its ring, allocated now.
func NewRecorder(c Config) *Recorder {
	c.Node.Marks = nil
	return &Recorder{ring: newRing(max(c.RingBytes, RingBytesMin)), cfg: c.Node, shards: c.Shards,
		build: Build(), readData: c.ReadData}
}

// put appends one record, its head then its tail, under the lock.
func (r *Recorder) put(head, tail []byte) {
	r.mu.Lock()
	r.ring.put(head, tail)
	r.mu.Unlock()
}

// putAll appends records (each already encoded) under the lock.
func (r *Recorder) putAll(recs [][]byte) {
	r.mu.Lock()
	for _, rec := range recs {
		r.ring.put(rec, nil)
	}
	r.mu.Unlock()
}

// Dump writes the ring as a dump; reason says why it was taken.
func (r *Recorder) Dump(w io.Writer, reason string) error {
	r.mu.Lock()
	h := Header{
		Build: r.build, Reason: reason, Shards: r.shards, Config: r.cfg,
		FromBoot: r.ring.evicted == 0, Evicted: r.ring.evicted, Records: r.ring.records,
		Takes: r.takes, Hash: fmt.Sprintf("%016x", r.hash), ReadsByDigest: !r.readData,
	}
	body := r.ring.contents()
	r.mu.Unlock()
	if err := writeHeader(w, h); err != nil {
		return err
	}
	if _, err := w.Write(body); err != nil {
		return fmt.Errorf("flight dump: %w", err)
	}
	return nil
}

// snapshotJobsMax bounds the diagnostic-archive jobs a shard remembers
// while they run (the node runs at most a few).
const snapshotJobsMax = 8

// Shard records one shard's node: Step and Take stand in for the node's
// own, and Crypto wraps the node's node.Crypto so that its answers are
// recorded. Not safe for concurrent use: the shard's loop calls it.
type Shard struct {
	rec *Recorder
	id  uint8
	// scratch holds the fields of the record being built; tail, when set,
	// its bulk (a frame, a read's bytes), which goes into the ring without
	// a copy of its own.
	scratch []byte
	tail    []byte
	answers [][]byte // crypto answers of the input being stepped
	answerN int
	out     outputHash
	// snapshotJobs are the ids of diagnostic-archive jobs in flight:
	// their results are elided (the ZIP may hold a previous dump).
	snapshotJobs [snapshotJobsMax]uint64
	// replyReads are the poll reads in flight, recorded by digest.
	replyReads readSet
}

// answersMax bounds the crypto calls one input may make that are recorded.
const answersMax = 4

// Shard returns the recorder of shard id.
func (r *Recorder) Shard(id uint8) *Shard {
	s := &Shard{rec: r, id: id, out: newOutputHash(), scratch: make([]byte, 0, 64<<10), answers: make([][]byte, answersMax)}
	for i := range s.answers {
		s.answers[i] = make([]byte, 0, 128)
	}
	return s
}

// Boot records n.Boot() and boots n.
func (s *Shard) Boot(n *node.Node) {
	s.scratch = append(s.scratch[:0], kindBoot, s.id)
	s.rec.put(s.scratch, nil)
	n.Boot()
}

// Step records in, before the node may patch its buffers, and steps it.
// The crypto answers the step asked for are recorded after it: records of
// other shards may come between (the replay waits for the shard's next
// record before it steps the input).
func (s *Shard) Step(n *node.Node, in node.Input) {
	s.scratch, s.tail = append(s.scratch[:0], 0, s.id), nil
	in.Visit((*encoder)(s))
	s.rec.put(s.scratch, s.tail)
	s.tail = nil
	s.answerN = 0
	n.Step(in)
	if s.answerN > 0 {
		s.rec.putAll(s.answers[:s.answerN])
	}
}

// Take takes n's Ready and records its digests.
func (s *Shard) Take(n *node.Node) node.Ready {
	r := n.TakeReady()
	d := s.out.take(&r)
	s.noteSnapshotJobs(r.Compute)
	s.noteReplyReads(r.Disk)
	s.scratch = appendTake(s.scratch[:0], s.id, d)
	s.rec.mu.Lock()
	s.rec.ring.put(s.scratch, nil)
	s.rec.takes++
	s.rec.hash = fold(s.rec.hash, d)
	s.rec.mu.Unlock()
	return r
}

// noteReplyReads remembers the reads whose bytes only serve polls: their
// completions are recorded by digest unless the recorder keeps read data.
func (s *Shard) noteReplyReads(reqs []storage.Request) {
	if s.rec.readData {
		return
	}
	for i := range reqs {
		if q := &reqs[i]; q.Op == storage.OpRead && q.ReplyOnly {
			s.replyReads.add(q.ID) // full: recorded with its bytes
		}
	}
}

func (s *Shard) noteSnapshotJobs(jobs []compute.Request) {
	for i := range jobs {
		if jobs[i].Kind != compute.KindSnapshotArchive {
			continue
		}
		for k := range s.snapshotJobs {
			if s.snapshotJobs[k] == 0 {
				s.snapshotJobs[k] = jobs[i].ID
				break
			}
		}
	}
}

// elides reports (and forgets) whether job id's result is kept out.
func (s *Shard) elides(id uint64) bool {
	for k := range s.snapshotJobs {
		if s.snapshotJobs[k] == id {
			s.snapshotJobs[k] = 0
			return true
		}
	}
	return false
}

func appendTake(b []byte, shard uint8, d digests) []byte {
	b = append(b, kindTake, shard)
	for _, v := range d {
		b = appendU64(b, v)
	}
	return b
}

// Crypto wraps c so that the node's token work is recorded: a minted
// token by its length only (the replay mints a stand-in of that length),
// a token's hash by its answer (a hash is what the log stores anyway).
func (s *Shard) Crypto(c node.Crypto) node.Crypto { return &recordingCrypto{s: s, inner: c} }

type recordingCrypto struct {
	s     *Shard
	inner node.Crypto
}

func (c *recordingCrypto) NewToken() string {
	t := c.inner.NewToken()
	c.s.out.mint(t)
	c.s.answer(kindMint, uint64(len(t)), "")
	return t
}

func (c *recordingCrypto) HashToken(token string) string {
	h := c.inner.HashToken(token)
	c.s.answer(kindHashToken, 0, h)
	return h
}

func (c *recordingCrypto) Random(b []byte) {
	c.inner.Random(b)
	c.s.answer(kindRandom, uint64(len(b)), string(b))
}

// NewKey records only that a key was drawn, never the key.
func (c *recordingCrypto) NewKey(b []byte) {
	c.inner.NewKey(b)
	c.s.answer(kindNewKey, uint64(len(b)), "")
}

func (s *Shard) answer(kind uint8, n uint64, v string) {
	if s.answerN == answersMax {
		return // more than any input makes: the replay reports the gap
	}
	b := append(s.answers[s.answerN][:0], kind, s.id)
	b = appendUvarint(b, n)
	b = append(b, v...)
	s.answers[s.answerN] = b
	s.answerN++
}

// replyReadsMax bounds the poll reads a shard remembers while they run
// (the node has at most pollsInFlightMax polls, each with one read out).
// A read past it is recorded with its bytes: faithful, only bigger.
const replyReadsMax = 4096

// readSet is a bounded set of request ids, scanned linearly: a shard has
// few reads out at a time.
type readSet struct {
	ids [replyReadsMax]storage.ReqID
	n   int
}

func (r *readSet) add(id storage.ReqID) {
	if r.n < len(r.ids) {
		r.ids[r.n] = id
		r.n++
	}
}

// take reports (and forgets) whether id is in the set.
func (r *readSet) take(id storage.ReqID) bool {
	for i := range r.ids[:r.n] {
		if r.ids[i] == id {
			r.n--
			r.ids[i] = r.ids[r.n]
			return true
		}
	}
	return false
}
