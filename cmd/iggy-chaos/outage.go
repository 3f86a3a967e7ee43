package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// The outage mode (-outage D): instead of killing a random node every few
// seconds, it stops the last node for D, longer than rebalancing's 5 s
// stability window, so its partitions fail over and the others rebalance,
// then restarts it and waits until every node leads its share again
// (PLACE-14). It prints the primaries each node leads before, every
// second during and after, and the time from the restart to an even
// spread.

// Pacing of the outage mode.
const (
	sampleEvery      = time.Second
	evenTimeout      = 5 * time.Minute // for an even spread, before and after
	outageRestartGap = time.Second
)

// outageReport is what the outage mode saw.
type outageReport struct {
	lines     []string
	rebalance time.Duration
	even      bool
}

// primariesPer counts the partitions each node says it leads (its
// PartitionRoutes naming itself); an unreachable node counts -1. One
// client k serves the samples until a node fails (logins are metadata
// writes); then the caller makes a new one, which dials again.
func primariesPer(k *client.Cluster, nodes int, stream, topic wire.Identifier) []int {
	out := make([]int, nodes)
	for i := range nodes {
		c, err := k.Node(i)
		if err != nil {
			out[i] = -1
			continue
		}
		routes, err := c.PartitionRoutes(stream, topic)
		if err != nil {
			out[i] = -1
			continue
		}
		for _, rt := range routes {
			if int(rt.Primary) == i {
				out[i]++
			}
		}
	}
	return out
}

// even: every node is up and leads partitions/nodes, give or take one.
func even(counts []int, partitions int) bool {
	share := partitions / len(counts)
	for _, c := range counts {
		if c < share || c > share+1 {
			return false
		}
	}
	return slices.Max(counts) >= 0
}

// outage stops the last node for o.outage and brings it back.
func outage(nodes []*node, w *workload, o options) (outageReport, error) {
	var rep outageReport
	start := time.Now()
	k := newClusterClient(w.addrs)
	defer func() { k.Close() }()
	sample := func(phase string) []int {
		got := primariesPer(k, len(w.addrs), w.stream, w.topic)
		if slices.Min(got) < 0 {
			k.Close()
			k = newClusterClient(w.addrs)
		}
		rep.lines = append(rep.lines, fmt.Sprintf("  %-7s +%5.1fs  primaries per node %v", phase, time.Since(start).Seconds(), got))
		return got
	}
	waitEven := func(phase string) (time.Duration, bool) {
		from := time.Now()
		for time.Since(from) < evenTimeout {
			if even(sample(phase), int(w.partitions)) {
				return time.Since(from), true
			}
			time.Sleep(sampleEvery)
		}
		return time.Since(from), false
	}
	if _, ok := waitEven("before"); !ok {
		return rep, fmt.Errorf("the primaries never spread evenly before the outage")
	}
	victim := nodes[len(nodes)-1]
	victim.kill()
	rep.lines = append(rep.lines, fmt.Sprintf("  stopped node %d at +%.1fs for %v", victim.id, time.Since(start).Seconds(), o.outage))
	for down := time.Now(); time.Since(down) < o.outage; time.Sleep(sampleEvery) {
		sample("during")
	}
	if err := victim.start(); err != nil {
		return rep, err
	}
	rep.lines = append(rep.lines, fmt.Sprintf("  restarted node %d at +%.1fs", victim.id, time.Since(start).Seconds()))
	time.Sleep(outageRestartGap)
	rep.rebalance, rep.even = waitEven("after")
	return rep, nil
}

func (r outageReport) String() string {
	verdict := "every node leads its share"
	if !r.even {
		verdict = "NOT even"
	}
	return fmt.Sprintf("%s\n  rebalanced %.1fs after the restart: %s", strings.Join(r.lines, "\n"), r.rebalance.Seconds(), verdict)
}
