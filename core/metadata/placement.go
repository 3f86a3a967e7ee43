package metadata

import (
	"slices"

	"github.com/iggygo/iggy/wire"
)

// Placement (PLACE-1..7, 15..17). Which replicas hold a new partition and
// which of them leads it first are decided here, at apply, from the
// committed state and the Placement the metadata primary stamped on the
// create when it proposed it (its roster, the replicas it found ready and
// the primaries it counts per replica). Every replica applies the same op
// to the same state, so every replica stores the same members and primary.

// Placement is what the metadata primary knew when it proposed a create.
type Placement struct {
	// Nodes is the roster's size; 0 only in commands of older tests and
	// tools, which place every partition on every replica led by replica 0.
	Nodes uint8
	// Racks is each roster entry's rack, numbered in roster order, or
	// empty when the roster names none.
	Racks []uint8
	// Eligible is the set of replicas that may get new primaries (bit per
	// replica id): the ready ones once readiness probes identified them
	// (PLACE-4, PLACE-6), or every replica before that (PLACE-5).
	Eligible uint32
	// Loads is how many partitions each replica leads as the proposer
	// counts them: the last observed primary of each partition or its
	// committed primary before any observation (PLACE-2), plus the
	// assignments of creates still in flight (PLACE-3). Empty: counted
	// from the committed primaries alone.
	Loads []uint32
}

// placed is one new partition's placement.
type placed struct {
	members []uint8 // ascending replica ids; nil: every replica
	primary uint8
}

// checkPlacement gives the committed refusal of a create's placement, or
// OK: a factor above the roster is 2018 (RES-31).
func checkPlacement(p *Placement, factor uint8) wire.Code {
	if p.Nodes > replicationFactorMax || len(p.Racks) != 0 && len(p.Racks) != int(p.Nodes) ||
		len(p.Loads) != 0 && len(p.Loads) != int(p.Nodes) || p.Nodes < 32 && p.Eligible>>p.Nodes != 0 {
		return wire.InvalidCommand
	}
	if p.Nodes > 0 && factor > p.Nodes {
		return wire.InvalidReplicationFactor
	}
	return wire.OK
}

// placePartitions places count new partitions of a topic of the given
// factor, the first of id first, after the state's committed placements.
func (s *State) placePartitions(ctx Ctx, p *Placement, factor uint8, first, count uint32) []placed {
	out := make([]placed, count)
	if p.Nodes == 0 {
		return out // every replica, led by replica 0
	}
	primaries := PlanPrimaries(p, s.primaryLoads(p), ctx.Op, first, count)
	held := s.memberLoads(p.Nodes)
	for i, primary := range primaries {
		out[i] = placed{primary: primary, members: chooseMembers(p, held, factor, primary)}
	}
	return out
}

// PlanPrimaries gives count new partitions, the first of id first, created
// by op, their primaries: each the eligible replica that leads the fewest
// (loads, which it updates), ties to the first after a start that rotates
// with op and id. The metadata primary runs it too, to count a create's
// assignments while it is in flight (PLACE-3).
func PlanPrimaries(p *Placement, loads []uint32, op uint64, first, count uint32) []uint8 {
	out := make([]uint8, count)
	if p.Nodes == 0 || len(loads) != int(p.Nodes) {
		return out
	}
	for i := range out {
		start := uint8((op + uint64(first) + uint64(i)) % uint64(p.Nodes))
		out[i] = leastLoaded(loads, eligible(p), start)
		loads[out[i]]++
	}
	return out
}

// primaryLoads is the proposer's count, or the committed primaries.
func (s *State) primaryLoads(p *Placement) []uint32 {
	if len(p.Loads) == int(p.Nodes) {
		return slices.Clone(p.Loads)
	}
	loads := make([]uint32, p.Nodes)
	s.eachPartition(func(part *Partition) {
		if int(part.Primary) < len(loads) {
			loads[part.Primary]++
		}
	})
	return loads
}

// memberLoads counts the partitions each replica holds as one of fewer
// than all members, so followers spread over the replicas.
func (s *State) memberLoads(nodes uint8) []uint32 {
	held := make([]uint32, nodes)
	s.eachPartition(func(part *Partition) {
		for _, m := range part.Members {
			if int(m) < len(held) {
				held[m]++
			}
		}
	})
	return held
}

func (s *State) eachPartition(f func(*Partition)) {
	for _, st := range s.streams {
		for _, t := range st.Topics {
			for i := range t.Partitions {
				f(&t.Partitions[i])
			}
		}
	}
}

// eligible is the set of replicas that may lead new partitions.
func eligible(p *Placement) uint32 {
	all := uint32(1)<<p.Nodes - 1
	if p.Nodes == 32 {
		all = ^uint32(0)
	}
	if p.Eligible&all == 0 {
		return all
	}
	return p.Eligible & all
}

// leastLoaded is the replica of set with the lowest load; ties go to the
// first after start in id order, so equal loads still rotate.
func leastLoaded(loads []uint32, set uint32, start uint8) uint8 {
	n := uint8(len(loads))
	best, found := uint8(0), false
	for k := range n {
		r := (start + k) % n
		if set&(1<<r) != 0 && (!found || loads[r] < loads[best]) {
			best, found = r, true
		}
	}
	return best
}

// chooseMembers picks factor replicas, primary first: each follower from
// racks the partition does not use yet when the roster names racks
// (PLACE-17), then the replica holding the fewest partitions, ties to the
// first after the primary. A factor of 0 or the roster's size is every
// replica (nil).
func chooseMembers(p *Placement, held []uint32, factor, primary uint8) []uint8 {
	if factor == 0 || factor >= p.Nodes {
		return nil
	}
	members := []uint8{primary}
	held[primary]++
	for len(members) < int(factor) {
		var set uint32
		for r := range p.Nodes {
			if !slices.Contains(members, r) && !rackUsed(p, members, r) {
				set |= 1 << r
			}
		}
		if set == 0 { // fewer racks than members: any replica not chosen
			for r := range p.Nodes {
				if !slices.Contains(members, r) {
					set |= 1 << r
				}
			}
		}
		m := leastLoaded(held, set, (primary+1)%p.Nodes)
		held[m]++
		members = append(members, m)
	}
	slices.Sort(members)
	return members
}

func rackUsed(p *Placement, members []uint8, r uint8) bool {
	if len(p.Racks) == 0 {
		return false
	}
	for _, m := range members {
		if p.Racks[m] == p.Racks[r] {
			return true
		}
	}
	return false
}

// IsMember reports whether replica r holds the partition.
func (p *Partition) IsMember(r uint8) bool {
	return p.Members == nil || slices.Contains(p.Members, r)
}

// MemberIndex is r's place among the members (its replica index in the
// partition's group), or false. nodes is the roster's size.
func (p *Partition) MemberIndex(r uint8, nodes uint8) (uint8, bool) {
	if p.Members == nil {
		return r, r < nodes
	}
	i := slices.Index(p.Members, r)
	return uint8(i), i >= 0
}
