package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/iggygo/iggy/core/mark"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
)

func testNet(seed uint64, n int, k PeerKnobs) (*peerNet, mark.Counts) {
	marks := mark.Counts{}
	return newPeerNet(rand.New(rand.NewPCG(seed, 1)), n, k, marks, func(string, ...any) {}), marks
}

func msg(from, to uint8, op uint64) node.PeerMessage {
	return node.PeerMessage{Msg: vsr.Message{Command: vsr.CmdCommit, From: from, To: to, Op: op}}
}

// drain receives everything for replica to over ticks a..b.
func drain(p *peerNet, to int, a, b uint64) []uint64 {
	var ops []uint64
	for t := a; t <= b; t++ {
		for _, m := range p.receive(t, to) {
			ops = append(ops, m.Msg.Op)
		}
	}
	return ops
}

// Exponential delays reorder messages of one path; every message arrives
// once when nothing is lost or duplicated; the same seed delivers the same
// order. (checks the simulated network of the replica sets, not the server)
func TestPeerNetDelayReorders(t *testing.T) {
	run := func(seed uint64) []uint64 {
		p, _ := testNet(seed, 3, PeerKnobs{DelayMeanTicks: 5})
		for op := uint64(1); op <= 100; op++ {
			p.send(0, msg(0, 1, op))
		}
		return drain(p, 1, 0, 1000)
	}
	a, b := run(7), run(7)
	if len(a) != 100 {
		t.Fatalf("%d of 100 delivered", len(a))
	}
	reordered := false
	seen := map[uint64]bool{}
	for i, op := range a {
		if op != b[i] {
			t.Fatal("one seed, two delivery orders")
		}
		if seen[op] {
			t.Fatalf("op %d delivered twice", op)
		}
		seen[op] = true
		if i > 0 && op < a[i-1] {
			reordered = true
		}
	}
	if !reordered {
		t.Fatal("exponential delays never reordered")
	}
}

// Loss drops, duplication delivers twice, both only before heal.
func TestPeerNetLossAndDuplication(t *testing.T) {
	p, marks := testNet(1, 2, PeerKnobs{LossPerMillion: 200_000, DupPerMillion: 200_000})
	for op := uint64(1); op <= 200; op++ {
		p.send(0, msg(0, 1, op))
	}
	got := drain(p, 1, 0, 10)
	count := map[uint64]int{}
	for _, op := range got {
		count[op]++
	}
	if marks["sim.peer.lost"] == 0 || marks["sim.peer.duplicated"] == 0 || len(count) == 200 {
		t.Fatalf("marks %v, %d distinct delivered", marks, len(count))
	}
	p.heal()
	for op := uint64(1); op <= 100; op++ {
		p.send(20, msg(1, 0, op))
	}
	if got := drain(p, 0, 20, 30); len(got) != 100 {
		t.Fatalf("after heal %d of 100 delivered", len(got))
	}
}

// A path holds at most peerPathMessagesMax messages; more are dropped.
func TestPeerNetCapacity(t *testing.T) {
	p, marks := testNet(1, 2, PeerKnobs{})
	for op := range uint64(peerPathMessagesMax + 10) {
		p.send(0, msg(0, 1, op))
	}
	if p.inFlight() != peerPathMessagesMax || marks["sim.peer.path_full"] != 10 {
		t.Fatalf("in flight %d, dropped %d", p.inFlight(), marks["sim.peer.path_full"])
	}
}

// A partition cuts paths by its kind until it heals; an isolated replica
// neither sends nor receives; an asymmetric one cuts one direction only.
func TestPeerNetPartitions(t *testing.T) {
	kinds := map[string]bool{}
	for seed := uint64(0); seed < 40; seed++ {
		p, marks := testNet(seed, 3, PeerKnobs{PartitionPerMillion: 1_000_000, PartitionTicksMax: 50})
		p.faults(1)
		cut, oneWay := 0, 0
		for from := range 3 {
			for to := range 3 {
				if p.path(from, to).cut {
					cut++
					if !p.path(to, from).cut {
						oneWay++
					}
				}
			}
		}
		switch {
		case marks["sim.peer.partition_isolate"] > 0 || marks["sim.peer.partition_symmetric"] > 0:
			if cut == 0 || oneWay != 0 {
				t.Fatalf("seed %d: symmetric cut %d paths, %d one way", seed, cut, oneWay)
			}
		case marks["sim.peer.partition_asymmetric"] > 0:
			if cut == 0 || oneWay != cut {
				t.Fatalf("seed %d: asymmetric cut %d paths, %d one way", seed, cut, oneWay)
			}
		}
		p.send(1, msg(0, 1, 1))
		p.send(1, msg(1, 0, 2))
		p.send(1, msg(0, 2, 3))
		if sent := 3 - int(p.lost); sent+cut < 3 {
			t.Fatalf("seed %d: %d lost with %d cut paths", seed, p.lost, cut)
		}
		p.heal()
		for i := range p.paths {
			if p.paths[i].cut {
				t.Fatalf("seed %d: healed network still cuts", seed)
			}
		}
		p2, marks2 := testNet(seed, 3, PeerKnobs{PartitionPerMillion: 1_000_000, PartitionTicksMax: 50})
		for tick := uint64(1); tick <= 60; tick++ {
			p2.faults(tick)
		}
		for _, m := range []mark.Counts{marks, marks2} {
			for n := range m {
				kinds[n] = true
			}
		}
	}
	for _, k := range []string{"sim.peer.partition_isolate", "sim.peer.partition_symmetric", "sim.peer.partition_asymmetric", "sim.peer.partition_healed"} {
		if !kinds[k] {
			t.Fatalf("never drew %s", k)
		}
	}
}

// A clogged path delivers nothing until the clog ends, then everything.
func TestPeerNetClog(t *testing.T) {
	p, _ := testNet(3, 2, PeerKnobs{ClogPerMillion: 1_000_000, ClogTicksMax: 100})
	p.faults(1)
	var from, to int
	for f := range 2 {
		if p.path(f, 1-f).clogUntil > 0 {
			from, to = f, 1-f
		}
	}
	until := p.path(from, to).clogUntil
	p.send(1, msg(uint8(from), uint8(to), 9))
	if got := drain(p, to, 2, until-1); len(got) != 0 {
		t.Fatalf("clogged path delivered %v", got)
	}
	if got := drain(p, to, until, until); len(got) != 1 {
		t.Fatalf("after the clog: %v", got)
	}
}

// A crashed replica receives nothing that was sent to its old process.
func TestPeerNetDrop(t *testing.T) {
	p, _ := testNet(1, 3, PeerKnobs{DelayMeanTicks: 3})
	p.send(0, msg(0, 2, 1))
	p.send(0, msg(1, 2, 2))
	p.drop(2)
	if got := drain(p, 2, 0, 100); len(got) != 0 {
		t.Fatalf("dropped messages delivered: %v", got)
	}
}

// A peer message survives the trace encoding, prepares included.
func TestPeerCodec(t *testing.T) {
	p := vsr.Prepare{Op: 7, View: 2, Timestamp: 99, ClientLo: 1, ClientHi: 2, Request: 3, UserID: 4,
		Kind: vsr.KindCommand, Operation: 128, Body: []byte("body")}
	vsr.Seal(&p)
	m := node.PeerMessage{Group: node.GroupID{Stream: 1}, Msg: vsr.Message{Command: vsr.CmdStartView, From: 2, To: 1,
		View: 3, LogView: 3, Op: 7, Checksum: p.Checksum, Commit: 6, Parent: 5, Untrusted: true,
		Prepares: []vsr.Prepare{p}, Checkpoint: vsr.Checkpoint{Op: 4, Size: 10}, Offset: 8, Data: []byte{1, 2}}}
	got, err := decodePeer(encodePeer(m))
	if err != nil {
		t.Fatal(err)
	}
	if string(encodePeer(got)) != string(encodePeer(m)) || got.Msg.Prepares[0].Checksum != p.Checksum ||
		string(got.Msg.Prepares[0].Body) != "body" {
		t.Fatalf("round trip: %+v", got)
	}
	if _, err := decodePeer([]byte{1, 2}); err == nil {
		t.Fatal("a short message decoded")
	}
}

// A peer message crosses the network as a replica frame: what arrives is
// a decoded copy (its prepares no longer share the sender's memory) equal
// to what was sent.
func TestPeerNetCarriesFrames(t *testing.T) {
	p := vsr.Prepare{Op: 7, View: 2, Kind: vsr.KindAppend, Body: []byte("a batch")}
	vsr.Seal(&p)
	sent := node.PeerMessage{Group: node.GroupID{IsPartition: true, Stream: 1, Revision: 3},
		Msg: vsr.Message{Command: vsr.CmdStartView, From: 0, To: 1, View: 2, Op: 7, Prepares: []vsr.Prepare{p}}}
	net, _ := testNet(1, 2, PeerKnobs{})
	net.send(0, sent)
	got := net.receive(1, 1)
	if len(got) != 1 || string(encodePeer(got[0])) != string(encodePeer(sent)) {
		t.Fatalf("received %+v", got)
	}
	if &got[0].Msg.Prepares[0].Body[0] == &p.Body[0] {
		t.Fatal("the receiver got the sender's memory, not a decoded frame")
	}
}
