package sim

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/replica"
)

// peerPathMessagesMax bounds what one directed path holds in flight; a
// message sent past it is dropped, as a full socket buffer or a congested
// switch drops it.
const peerPathMessagesMax = 512

// peerCodec frames every replica message as a real link does; the stamp is
// any fixed pair, the simulation has one cluster of one release.
var peerCodec = replica.Codec{Cluster: wire.U128{Lo: 0x51, Hi: 0x1997}, Release: 1}

// PeerKnobs are the replica network's fault knobs (drawn per seed).
type PeerKnobs struct {
	DelayMeanTicks      float64 // exponential delay per message (reorders)
	LossPerMillion      int     // per message
	DupPerMillion       int     // per message: delivered twice, each copy delayed alone
	ClogPerMillion      int     // per tick: one path holds everything for a while
	ClogTicksMax        uint64
	PartitionPerMillion int    // per tick, while no partition is on
	PartitionTicksMax   uint64 // a partition heals after 1..this ticks
}

// partitionKind is the shape of a network partition.
type partitionKind uint8

const (
	partitionSymmetric  partitionKind = iota + 1 // two sides, cut both ways
	partitionAsymmetric                          // two sides, one direction cut
	partitionIsolate                             // one replica cut off both ways
)

var partitionNames = [...]string{partitionSymmetric: "symmetric", partitionAsymmetric: "asymmetric", partitionIsolate: "isolate"}

// envelope is one message on a path: due at tick at; seq breaks ties so
// delivery order never depends on anything but the PRNG.
type envelope struct {
	at, seq uint64
	msg     node.PeerMessage
}

// peerPath is one direction between two replicas.
type peerPath struct {
	queue     []envelope
	clogUntil uint64 // nothing is delivered before this tick
	cut       bool   // a partition drops what crosses it
}

// peerNet is the replica-to-replica network: datagram-like (messages
// reorder, get lost and duplicated), bounded per path, with clogs and
// partitions. It draws every decision from the world's PRNG, so a seed
// replays it exactly; it knows nothing of nodes beyond their messages.
type peerNet struct {
	rng       *rand.Rand
	k         PeerKnobs
	n         int
	paths     []peerPath // from*n + to
	seq       uint64
	healed    bool
	partUntil uint64 // the partition on heals at this tick (0: none)
	marks     mark.Sink
	event     func(format string, args ...any)
	lost      uint64 // messages dropped: lost, cut, over capacity, or to a dead process
}

func newPeerNet(rng *rand.Rand, n int, k PeerKnobs, marks mark.Sink, event func(string, ...any)) *peerNet {
	return &peerNet{rng: rng, k: k, n: n, paths: make([]peerPath, n*n), marks: marks, event: event}
}

func (p *peerNet) path(from, to int) *peerPath { return &p.paths[from*p.n+to] }

func (p *peerNet) chance(ppm int) bool { return ppm > 0 && p.rng.IntN(1_000_000) < ppm }

func (p *peerNet) delay() uint64 {
	if p.k.DelayMeanTicks == 0 {
		return 0
	}
	return uint64(math.Round(p.rng.ExpFloat64() * p.k.DelayMeanTicks))
}

// send puts m on its path, unless the network loses it; it may duplicate.
// What travels is m encoded as a replica frame and decoded again, as a
// real link carries it, so a codec bug shows in a sweep.
func (p *peerNet) send(tick uint64, m node.PeerMessage) {
	from, to := int(m.Msg.From), int(m.Msg.To)
	if from >= p.n || to >= p.n || from == to {
		panic(fmt.Sprintf("sim: peer message from %d to %d in a set of %d", from, to, p.n))
	}
	m, ok := p.frame(m)
	if !ok {
		return
	}
	copies := 1
	if !p.healed {
		if p.chance(p.k.LossPerMillion) {
			p.lost++
			p.marks.Hit("sim.peer.lost")
			return
		}
		if p.chance(p.k.DupPerMillion) {
			p.marks.Hit("sim.peer.duplicated")
			copies = 2
		}
	}
	pa := p.path(from, to)
	for range copies {
		if pa.cut {
			p.lost++
			p.marks.Hit("sim.peer.partitioned")
			return
		}
		if len(pa.queue) >= peerPathMessagesMax {
			p.lost++
			p.marks.Hit("sim.peer.path_full")
			return
		}
		p.seq++
		pa.queue = append(pa.queue, envelope{at: tick + 1 + p.delay(), seq: p.seq, msg: m})
	}
}

// frame encodes m and decodes the frame. A message over the frame bound is
// dropped (a link drops it too); one that does not decode is a codec bug.
func (p *peerNet) frame(m node.PeerMessage) (node.PeerMessage, bool) {
	f, err := peerCodec.Append(nil, m)
	if err != nil {
		p.lost++
		p.marks.Hit("sim.peer.oversize")
		p.event("network: %s from %d to %d not sent: %v", m.Msg.Command, m.Msg.From, m.Msg.To, err)
		return m, false
	}
	got, err := peerCodec.Decode(f)
	if err != nil {
		panic(fmt.Sprintf("sim: replica frame of %s does not decode: %v", m.Msg.Command, err))
	}
	return got, true
}

// receive takes every message due for replica to by tick, in (due, seq)
// order. A cut path drops what is in flight; a clogged one holds it.
func (p *peerNet) receive(tick uint64, to int) []node.PeerMessage {
	var due []envelope
	for from := range p.n {
		pa := p.path(from, to)
		if pa.cut {
			p.lost += uint64(len(pa.queue))
			pa.queue = pa.queue[:0]
			continue
		}
		if tick < pa.clogUntil || len(pa.queue) == 0 {
			continue
		}
		n := 0
		for _, e := range pa.queue {
			if e.at <= tick {
				due = append(due, e)
				continue
			}
			pa.queue[n] = e
			n++
		}
		clear(pa.queue[n:])
		pa.queue = pa.queue[:n]
	}
	slices.SortFunc(due, func(a, b envelope) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq))
	})
	out := make([]node.PeerMessage, len(due))
	for i, e := range due {
		out[i] = e.msg
	}
	return out
}

// drop loses everything in flight to replica to: its process is gone, and
// a new one does not receive what was sent to the old one.
func (p *peerNet) drop(to int) {
	for from := range p.n {
		pa := p.path(from, to)
		p.lost += uint64(len(pa.queue))
		clear(pa.queue)
		pa.queue = pa.queue[:0]
	}
}

// inFlight counts the messages on every path.
func (p *peerNet) inFlight() int {
	n := 0
	for i := range p.paths {
		n += len(p.paths[i].queue)
	}
	return n
}

// faults draws this tick's clogs and partitions, and heals a partition
// whose time is up.
func (p *peerNet) faults(tick uint64) {
	if p.healed || p.n < 2 {
		return
	}
	if p.partUntil != 0 && tick >= p.partUntil {
		p.uncut()
		p.event("network: partition healed")
		p.marks.Hit("sim.peer.partition_healed")
	}
	if p.partUntil == 0 && p.chance(p.k.PartitionPerMillion) {
		p.partition(tick)
	}
	if p.chance(p.k.ClogPerMillion) {
		from := p.rng.IntN(p.n)
		to := (from + 1 + p.rng.IntN(p.n-1)) % p.n
		pa := p.path(from, to)
		pa.clogUntil = max(pa.clogUntil, tick+1+p.rng.Uint64N(p.k.ClogTicksMax))
		p.marks.Hit("sim.peer.clogged")
		p.event("network: path %d->%d clogged until tick %d", from, to, pa.clogUntil)
	}
}

// partition cuts the network by a kind drawn from the PRNG.
func (p *peerNet) partition(tick uint64) {
	kind := partitionKind(1 + p.rng.IntN(3))
	side := make([]bool, p.n) // true: side A
	if kind == partitionIsolate {
		side[p.rng.IntN(p.n)] = true
	} else {
		for !slices.Contains(side, true) || !slices.Contains(side, false) {
			for i := range side {
				side[i] = p.rng.IntN(2) == 0
			}
		}
	}
	for from := range p.n {
		for to := range p.n {
			crosses := side[from] != side[to]
			if crosses && (kind != partitionAsymmetric || side[from]) {
				p.path(from, to).cut = true
			}
		}
	}
	p.partUntil = tick + 1 + p.rng.Uint64N(p.k.PartitionTicksMax)
	p.marks.Hit("sim.peer.partition_" + partitionNames[kind])
	p.event("network: %s partition %v until tick %d", partitionNames[kind], side, p.partUntil)
}

func (p *peerNet) uncut() {
	for i := range p.paths {
		p.paths[i].cut = false
	}
	p.partUntil = 0
}

// heal ends every fault for good: partitions and clogs are lifted, no
// message is lost or duplicated from now on (capacity still bounds paths).
func (p *peerNet) heal() {
	p.healed = true
	p.uncut()
	for i := range p.paths {
		p.paths[i].clogUntil = 0
	}
}

// String prints the knobs, for the knob line.
func (k PeerKnobs) String() string {
	return fmt.Sprintf("peer_delay_mean_ticks=%g peer_loss_ppm=%d peer_dup_ppm=%d clog_ppm=%d clog_ticks_max=%d partition_ppm=%d partition_ticks_max=%d",
		k.DelayMeanTicks, k.LossPerMillion, k.DupPerMillion, k.ClogPerMillion, k.ClogTicksMax, k.PartitionPerMillion, k.PartitionTicksMax)
}
