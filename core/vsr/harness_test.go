package vsr

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/sim/disk"
	"github.com/zeebo/xxh3"
)

// The harness runs a cluster of replicas in one goroutine: each replica has
// its own simulated disk and a small caller (hnode) that plays the node's
// part (applies committed ops to a toy state machine, takes checkpoints,
// writes the superblock, installs state transfer images); a seeded network
// delays, drops, duplicates and reorders messages. It checks the safety
// invariants at every step and fails the test on the first violation.

// harness options.
type options struct {
	replicas   int
	seed       uint64
	window     int     // Config.WindowOps
	checkpoint uint64  // checkpoint every this many applied ops
	loss       float64 // probability a message is dropped
	dup        float64 // probability a message is delivered twice
	delayMax   int     // messages take 1..delayMax ticks
	diskOps    int     // disk requests executed per replica per tick, at most
	imageBytes int     // size of a checkpoint image
	chunkBytes int     // state transfer chunk size
}

func defaultOptions() options {
	return options{replicas: 3, seed: 1, window: 256, checkpoint: 64, delayMax: 3, diskOps: 4,
		imageBytes: 3000, chunkBytes: 1024}
}

const (
	superblockA  = "superblock.a"
	superblockB  = "superblock.b"
	snapshotTemp = "snapshot/next.tmp"
	journalDir   = "journal"
	packetsMax   = 1 << 16
)

type cluster struct {
	t     testing.TB
	opts  options
	rng   *rand.Rand
	now   uint64
	nodes []*hnode
	net   network
	marks mark.Counts

	committed []uint64          // committed[op-1]: checksum of the op every replica must commit
	stateAt   map[uint64]uint64 // state machine hash after op
	acked     map[uint64]uint64 // op -> checksum, acknowledged to a client as persisted
	requests  uint64            // proposals made, for distinct bodies
	forged    bool              // messages were forged: agreement is not checked
	onSend    func(Message)     // sees every message a replica sends, if set
}

func newCluster(t testing.TB, opts options) *cluster {
	c := &cluster{t: t, opts: opts, rng: rand.New(rand.NewPCG(opts.seed, 0x5eed)), marks: make(mark.Counts),
		stateAt: map[uint64]uint64{}, acked: map[uint64]uint64{}}
	c.net.blocked = make([][]bool, opts.replicas)
	for i := range opts.replicas {
		c.net.blocked[i] = make([]bool, opts.replicas)
		n := &hnode{c: c, id: uint8(i), owners: map[storage.ReqID]owner{}}
		n.disk = disk.New(disk.Options{Seed: opts.seed*1000 + uint64(i), TornWrites: true})
		// A group is created durable: both slots exist, the first names view 0.
		n.disk.PutFile(superblockA, Superblock{Sequence: 1}.Encode())
		n.disk.PutFile(superblockB, nil)
		n.boot(true)
		c.nodes = append(c.nodes, n)
	}
	return c
}

func (c *cluster) fatalf(format string, args ...any) {
	c.t.Helper()
	c.t.Fatalf("tick %d: "+format+"\n%s", append([]any{c.now}, append(args, c.describe())...)...)
}

// tick advances the cluster by one tick: messages due are delivered, each
// replica's disk makes progress, each replica ticks and its outputs go out.
func (c *cluster) tick() {
	c.now++
	for _, p := range c.net.due(c.now) {
		if n := c.nodes[p.m.To]; n.r != nil && !c.net.blocked[p.m.From][p.m.To] {
			n.r.Step(p.m)
			n.drain()
		}
	}
	for _, n := range c.nodes {
		if n.r == nil {
			continue
		}
		for range c.rng.IntN(c.opts.diskOps + 1) {
			if n.stalled {
				break
			}
			comp, ok := n.disk.Next()
			if !ok {
				break
			}
			n.complete(comp)
		}
		n.r.Tick()
		n.drain()
	}
	c.checkViews()
}

// run ticks n times, proposing load ops per tick at every primary.
func (c *cluster) run(ticks int, load int) {
	for range ticks {
		if load > 0 {
			for _, n := range c.nodes {
				if n.r != nil && !n.r.Full() {
					n.propose(load)
				}
			}
		}
		c.tick()
	}
}

// propose asks the primary to propose count ops in one step (pipelined).
func (n *hnode) propose(count int) (first, last uint64, ok bool) {
	for range count {
		n.c.requests++
		op, accepted := n.r.Propose(Prepare{Kind: KindCommand, Timestamp: n.c.now, ClientLo: 1,
			Request: n.c.requests, Body: fmt.Appendf(nil, "request %d", n.c.requests)})
		if !accepted {
			break
		}
		if first == 0 {
			first = op
		}
		last, ok = op, true
		p, _ := n.r.log.get(op)
		n.waiting = append(n.waiting, proposal{op: op, checksum: p.Checksum})
	}
	n.drain()
	return first, last, ok
}

// commitOf records op's committed checksum, or checks it against the one
// recorded: two replicas never commit different prepares at one op.
func (c *cluster) commitOf(replica uint8, p *Prepare) {
	if c.forged {
		return
	}
	i := int(p.Op) - 1
	for len(c.committed) <= i {
		c.committed = append(c.committed, 0)
	}
	switch c.committed[i] {
	case 0:
		c.committed[i] = p.Checksum
	case p.Checksum:
	default:
		c.fatalf("r%d committed op %d as %x, another replica committed %x", replica, p.Op, p.Checksum, c.committed[i])
	}
}

// checkViews: views never go back, and one view has at most one primary.
func (c *cluster) checkViews() {
	primaries := map[uint32]uint8{}
	for _, n := range c.nodes {
		if n.r == nil {
			continue
		}
		if v := n.r.View(); v < n.viewSeen || n.r.LogView() < n.logViewSeen {
			c.fatalf("r%d: view %d log view %d after %d, %d", n.id, v, n.r.LogView(), n.viewSeen, n.logViewSeen)
		}
		n.viewSeen, n.logViewSeen = n.r.View(), n.r.LogView()
		if n.r.IsPrimary() && n.r.installed() {
			if !n.leading || n.leadView != n.r.View() {
				c.checkHoldsCommitted(n) // a new primary holds every committed op
				n.leading, n.leadView = true, n.r.View()
			}
			if other, ok := primaries[n.r.View()]; ok {
				c.fatalf("r%d and r%d are both primary of view %d", other, n.id, n.r.View())
			}
			primaries[n.r.View()] = n.id
		}
	}
}

// checkHoldsCommitted: the log of a view, when its primary takes office,
// holds every op any replica committed, as committed.
func (c *cluster) checkHoldsCommitted(n *hnode) {
	r := n.r
	if c.forged {
		return
	}
	if r.Op() < uint64(len(c.committed)) {
		c.fatalf("r%d leads view %d with log head %d, but op %d was committed", n.id, r.View(), r.Op(), len(c.committed))
	}
	for op := r.log.base + 1; op <= uint64(len(c.committed)); op++ {
		if p, _ := r.log.get(op); p.Checksum != c.committed[op-1] {
			c.fatalf("r%d leads view %d with op %d as %x, committed as %x", n.id, r.View(), op, p.Checksum, c.committed[op-1])
		}
	}
}

// describe is the state of every replica, for failures and transcripts.
func (c *cluster) describe() string {
	var b strings.Builder
	for _, n := range c.nodes {
		b.WriteString(n.describe())
		b.WriteByte('\n')
	}
	return b.String()
}

// --- network ---

type packet struct {
	due, seq uint64
	m        Message
}

type network struct {
	packets []packet
	seq     uint64
	blocked [][]bool // blocked[from][to]
}

func (c *cluster) send(m Message) {
	if c.onSend != nil {
		c.onSend(m)
	}
	if m.Command == CmdRequestPrepares && (m.Op == 0 || m.Last < m.Op || m.Last-m.Op >= repairOpsMax) {
		c.fatalf("r%d asks r%d for the range %d..%d (VSR-29)", m.From, m.To, m.Op, m.Last)
	}
	net := &c.net
	if c.rng.Float64() < c.opts.loss || len(net.packets) >= packetsMax {
		return
	}
	copies := 1
	if c.rng.Float64() < c.opts.dup {
		copies = 2
	}
	for range copies {
		net.seq++
		net.packets = append(net.packets, packet{due: c.now + 1 + uint64(c.rng.IntN(c.opts.delayMax)), seq: net.seq, m: m})
	}
}

// due removes and returns the packets due by now, in (due, seq) order.
func (net *network) due(now uint64) []packet {
	var out []packet
	kept := net.packets[:0]
	for _, p := range net.packets {
		if p.due <= now {
			out = append(out, p)
		} else {
			kept = append(kept, p)
		}
	}
	net.packets = kept
	slices.SortFunc(out, func(a, b packet) int {
		if a.due != b.due {
			return int(a.due) - int(b.due)
		}
		return int(a.seq) - int(b.seq)
	})
	return out
}

// partition cuts every link between the two groups.
func (c *cluster) partition(a, b []uint8) {
	for _, x := range a {
		for _, y := range b {
			c.net.blocked[x][y], c.net.blocked[y][x] = true, true
		}
	}
}

// block cuts the links from every replica of a to every one of b.
func (c *cluster) block(a, b []uint8) {
	for _, x := range a {
		for _, y := range b {
			c.net.blocked[x][y] = true
		}
	}
}

func (c *cluster) heal() {
	for i := range c.net.blocked {
		clear(c.net.blocked[i])
	}
}

// --- the toy state machine and its images ---

// image layout: op u64, prepare checksum u64, state u64, then filler
// derived from the state up to imageBytes.
func encodeImage(op, checksum, state uint64, size int) []byte {
	b := make([]byte, max(size, 24))
	binary.LittleEndian.PutUint64(b, op)
	binary.LittleEndian.PutUint64(b[8:], checksum)
	binary.LittleEndian.PutUint64(b[16:], state)
	for i := 24; i < len(b); i++ {
		b[i] = byte(state >> (8 * (i % 8)))
	}
	return b
}

func decodeImage(b []byte) (op, checksum, state uint64) {
	le := binary.LittleEndian
	return le.Uint64(b), le.Uint64(b[8:]), le.Uint64(b[16:])
}

func nextState(state, checksum uint64) uint64 {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], state)
	binary.LittleEndian.PutUint64(b[8:], checksum)
	return xxh3.Hash(b[:])
}

// --- conditions ---

// primary is the up replica leading the highest established view.
func (c *cluster) primary() (uint8, bool) {
	best, found := uint8(0), false
	for _, n := range c.nodes {
		if n.r != nil && n.r.IsPrimary() && n.r.installed() && (!found || n.r.View() > c.nodes[best].r.View()) {
			best, found = n.id, true
		}
	}
	return best, found
}

func (c *cluster) allApplied(op uint64) bool {
	for _, n := range c.nodes {
		if n.r != nil && n.applied < op {
			return false
		}
	}
	return true
}

// established: every up replica is in normal status in the same view and
// holds its log, and that view's primary is up.
func (c *cluster) established() (uint32, bool) {
	view, primary, first := uint32(0), false, true
	for _, n := range c.nodes {
		if n.r == nil {
			continue
		}
		if !n.r.installed() || !first && n.r.View() != view {
			return 0, false
		}
		view, first = n.r.View(), false
		primary = primary || n.r.IsPrimary()
	}
	return view, primary
}

// converged: established, and every up replica holds and applied the same
// log with nothing left to repair.
func (c *cluster) converged() bool {
	if _, ok := c.established(); !ok {
		return false
	}
	var op uint64
	first := true
	for _, n := range c.nodes {
		if n.r == nil {
			continue
		}
		r := n.r
		if r.sync.active || r.transfer.active || r.Commit() != r.Op() || n.applied != r.Op() || !first && r.Op() != op {
			return false
		}
		op, first = r.Op(), false
	}
	return true
}

// checkSurvived checks, on a converged cluster, that every op acknowledged
// as persisted is committed everywhere with the acknowledged prepare, and
// that the replicas' logs agree wherever they overlap.
func (c *cluster) checkSurvived() string {
	if !c.converged() {
		return "not converged:\n" + c.describe()
	}
	var maxAcked uint64
	for op, checksum := range c.acked {
		maxAcked = max(maxAcked, op)
		if int(op) > len(c.committed) || c.committed[op-1] != checksum {
			c.fatalf("acknowledged op %d (%x) was lost", op, checksum)
		}
	}
	var ref *Replica
	for _, n := range c.nodes {
		if n.r == nil {
			continue
		}
		if n.applied < maxAcked {
			c.fatalf("r%d applied %d, below acknowledged op %d", n.id, n.applied, maxAcked)
		}
		if ref == nil {
			ref = n.r
			continue
		}
		for op := max(ref.log.base, n.r.log.base) + 1; op <= ref.log.head(); op++ {
			a, _ := ref.log.get(op)
			b, _ := n.r.log.get(op)
			if a.Checksum != b.Checksum {
				c.fatalf("r%d and r%d differ at op %d", ref.id, n.id, op)
			}
		}
	}
	return fmt.Sprintf("ok: %d ops committed, %d acknowledged, none lost", len(c.committed), len(c.acked))
}
