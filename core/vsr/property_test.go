package vsr

import (
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/iggygo/iggy/internal/testenv"
)

var (
	seeds    = flag.Int("seeds", 40, "seeds of TestRandomClusters")
	seedFrom = flag.Uint64("seed", 1, "first seed of TestRandomClusters")
)

// TestRandomClusters runs random histories, one per seed: clusters of 1 to
// 5 replicas under load, with message loss, duplication and reordering,
// power losses with torn journals and superblocks, process kills,
// restarts, partitions (some one-way) and stalled disks; then everything
// heals and restarts, and the cluster must converge. The harness checks at
// every step that no two replicas commit different prepares at one op
// (committed prefixes agree) or reach different states, that views never
// go back in memory nor in a durable superblock (also across restarts),
// that one view has one primary and that a new primary holds every op
// committed anywhere (so no acknowledged op is lost across a crash); at
// the end, that every op acknowledged as persisted is committed on every
// replica, and that repair requests never name an inverted range.
// covers VSR-1, VSR-14, VSR-15, VSR-16, VSR-22, VSR-24, VSR-25, VSR-28, VSR-29
func TestRandomClusters(t *testing.T) {
	from, n := *seedFrom, *seeds
	if testing.Short() {
		n = min(n, 10)
	}
	if seed, ok := testenv.Replay(t); ok {
		from, n = seed, 1
	}
	for seed := from; seed < from+uint64(n); seed++ {
		randomHistory(t, seed)
		if t.Failed() {
			t.Fatalf("seed %d failed (rerun: %s=%d go test ./core/vsr -run TestRandomClusters)", seed, testenv.SeedVar, seed)
		}
	}
}

func randomHistory(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0xc1a5))
	o := defaultOptions()
	o.seed = seed
	o.replicas = 1 + rng.IntN(5)
	o.window = []int{64, 256, 4096}[rng.IntN(3)]
	o.checkpoint = uint64(16 + rng.IntN(48))
	o.loss = []float64{0, 0.01, 0.05, 0.1}[rng.IntN(4)]
	o.dup = []float64{0, 0.05, 0.2}[rng.IntN(3)]
	o.delayMax = 1 + rng.IntN(8)
	o.diskOps = 1 + rng.IntN(6)
	c := newCluster(t, o)
	for range 8 + rng.IntN(8) {
		c.run(50+rng.IntN(600), rng.IntN(3))
		for _, n := range c.nodes {
			n.stalled = false // a disk stalls for one stretch of the history
		}
		id := uint8(rng.IntN(o.replicas))
		n := c.nodes[id]
		switch k := rng.IntN(10); {
		case k < 3 && n.r != nil:
			c.crash(id, rng.IntN(2) == 0)
		case k < 4 && n.r != nil:
			c.kill(id)
		case k < 7 && n.r == nil:
			c.restart(id)
		case k < 8:
			c.heal()
			var a, b []uint8
			for i := range uint8(o.replicas) {
				if rng.IntN(2) == 0 {
					a = append(a, i)
				} else {
					b = append(b, i)
				}
			}
			if rng.IntN(3) == 0 {
				c.block(a, b) // one way: b hears nothing from a
			} else {
				c.partition(a, b)
			}
		case k < 9:
			c.heal()
		default:
			n.stalled = n.r != nil
		}
	}
	c.heal()
	for _, n := range c.nodes {
		n.stalled = false
		if n.r == nil {
			c.restart(n.id)
		}
	}
	for range 30000 {
		if c.converged() {
			c.checkSurvived()
			return
		}
		c.tick()
	}
	for _, n := range c.nodes {
		if n.r != nil { // what a stuck replica waits for
			j := n.journal
			tr := n.r.transfer
			t.Logf("r%d sync %+v transfer active=%v emitted=%v %+v journal durable=%d written=%d queued=%d settled=%v",
				n.id, n.r.sync, tr.active, tr.emitted, tr.cp, j.DurableOp(), j.WrittenOp(), j.queuedOp, j.Settled())
		}
	}
	c.fatalf("seed %d did not converge (%d replicas)", seed, o.replicas)
}
