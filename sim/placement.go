package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/oracles"
)

// Placement in the cluster profile (PLACE-1..19): some seeds give their
// topics a replication factor below the replica count, some give the
// roster racks, and the kills of the profile take nodes away for up to 15
// s and bring them back, longer than rebalancing's 5 s stability window.
// After heal, the convergence check also requires that every partition
// group has one primary among its live members (PLACE-19) and that the
// primaries are spread evenly (oracles.CheckBalanced, PLACE-9, PLACE-14).

// drawPlacement draws the placement knobs of a cluster seed.
func drawPlacement(r *rand.Rand, k *Knobs) {
	if coin(r) {
		// At least two: a group of one that loses its log's tail to a
		// torn write has no peer to fetch it from (open, see DESIGN.md).
		k.ReplicationFactor = between(r, 2, k.Replicas)
	}
	if r.IntN(3) == 0 {
		racks := max(2, k.Replicas/2)
		k.WithRacks = true
		for i := range k.Replicas {
			k.Racks[i] = uint8(r.IntN(racks))
		}
	}
	if k.ReplicationFactor > 0 || r.IntN(3) == 0 {
		// More partitions, so that primaries have somewhere to move.
		k.PartitionsMax = between(r, 3, 6)
	}
}

// rackList is the replicas' racks as node.Config takes them, or nil.
func (k *Knobs) rackList() []uint8 {
	if !k.WithRacks {
		return nil
	}
	return k.Racks[:k.Replicas]
}

// racksField is the trace's form of a rack list: "-" for none.
func racksField(racks []uint8) string {
	if len(racks) == 0 {
		return "-"
	}
	parts := make([]string, len(racks))
	for i, r := range racks {
		parts[i] = strconv.Itoa(int(r))
	}
	return strings.Join(parts, ",")
}

func parseRacks(s string) ([]uint8, error) {
	if s == "" || s == "-" {
		return nil, nil
	}
	var out []uint8
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(f, 10, 8)
		if err != nil {
			return nil, fmt.Errorf("bad rack %q", f)
		}
		out = append(out, uint8(v))
	}
	return out, nil
}

// placementErr says why the live replicas' partition primaries are not
// settled: a group without exactly one primary among its live members,
// or primaries not spread evenly.
func (w *World) placementErr() error {
	var parts []oracles.PartitionPrimary
	index := map[oracles.GroupKey]int{}
	live := uint32(0)
	for _, h := range w.hosts {
		if h.retired {
			continue
		}
		live |= 1 << h.idx
		for _, g := range h.node.Groups()[1:] {
			k := groupKey(g.Group)
			i, ok := index[k]
			if !ok {
				i = len(parts)
				index[k] = i
				parts = append(parts, oracles.PartitionPrimary{Name: fmt.Sprint(k), Members: g.Members})
			}
			if g.Primary && g.Status == vsr.StatusNormal {
				parts[i].Primaries = append(parts[i].Primaries, uint8(h.idx))
			}
		}
	}
	for i := range parts {
		if parts[i].Members == nil {
			parts[i].Members = allReplicas(len(w.hosts))
		}
	}
	err := oracles.CheckBalanced(parts, live)
	if err == nil && slices.ContainsFunc(parts, func(p oracles.PartitionPrimary) bool { return len(p.Members) > 1 }) {
		w.marks.Hit(oracles.MarkBalanced)
	}
	return err
}

func allReplicas(n int) []uint8 {
	out := make([]uint8, n)
	for i := range out {
		out[i] = uint8(i)
	}
	return out
}
