package metadata

import (
	"sort"

	"github.com/iggygo/iggy/internal/assert"
)

// rebalanceEager clears every assignment (and pending revocation) and deals
// the partitions round-robin: partition[i] to member[i % members] in slot
// order (protocol-data.md 8.3). Used for leave, removal and resizes.
func (g *ConsumerGroup) rebalanceEager(parts []Partition) {
	for i := range g.Members {
		g.Members[i].Partitions = nil
		g.Members[i].Revoking = nil
	}
	if n := len(g.Members); n > 0 {
		for i, p := range parts {
			m := &g.Members[i%n]
			m.Partitions = append(m.Partitions, p.ID)
		}
	}
	g.Generation++
}

// rebalanceJoin runs after a member joined (with no partitions). It is
// cooperative: unassigned partitions go to the least loaded members, then
// each member above its fair share (P/M, with P%M members allowed one more)
// hands its highest movable partitions to members below theirs, lowest slot
// first. A partition listed in unsettled (ascending) is not moved at once
// but marked as a pending revocation of its owner.
//
// A member's load counts what it will own once pending moves complete. A
// member above its share only because of incoming moves keeps them; the
// next rebalance evens that out.
func (g *ConsumerGroup) rebalanceJoin(parts []Partition, unsettled []uint32) {
	n := len(g.Members)
	assert.That(n > 0, "join rebalance of an empty group")
	load := g.loads()
	g.assignOrphans(parts, load)
	target := fairShares(len(parts), load)
	for donor := range g.Members {
		for load[donor] > target[donor] {
			pid, ok := g.Members[donor].highestMovable()
			if !ok {
				break
			}
			recv := firstBelow(load, target)
			assert.That(recv >= 0, "no member below its share")
			g.move(donor, recv, pid, containsSorted(unsettled, pid))
			load[donor]--
			load[recv]++
		}
	}
	g.Generation++
}

// loads is each member's partition count once pending moves complete.
func (g *ConsumerGroup) loads() []int {
	load := make([]int, len(g.Members))
	for i, m := range g.Members {
		load[i] += len(m.Partitions) - len(m.Revoking)
		for _, r := range m.Revoking {
			if j, ok := g.memberIndex(r.Target); ok {
				load[j]++
			}
		}
	}
	return load
}

// assignOrphans gives each partition no member owns to the least loaded
// member (lowest slot on ties).
func (g *ConsumerGroup) assignOrphans(parts []Partition, load []int) {
	owned := map[uint32]bool{} // lookup only
	for _, m := range g.Members {
		for _, p := range m.Partitions {
			owned[p] = true
		}
	}
	for _, p := range parts {
		if owned[p.ID] {
			continue
		}
		j := 0
		for i := range load {
			if load[i] < load[j] {
				j = i
			}
		}
		m := &g.Members[j]
		m.Partitions = insertSorted(m.Partitions, p.ID)
		load[j]++
	}
}

// fairShares gives each member P/M, and one more to the P%M members that
// hold the most already (lowest slot on ties), so the fewest partitions move.
func fairShares(partitions int, load []int) []int {
	n := len(load)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return load[order[a]] > load[order[b]] })
	target := make([]int, n)
	for k, j := range order {
		target[j] = partitions / n
		if k < partitions%n {
			target[j]++
		}
	}
	return target
}

func firstBelow(load, target []int) int {
	for i := range load {
		if load[i] < target[i] {
			return i
		}
	}
	return -1
}

// highestMovable is the member's highest partition not already being revoked.
func (m *Member) highestMovable() (uint32, bool) {
	for i := len(m.Partitions) - 1; i >= 0; i-- {
		p := m.Partitions[i]
		if _, revoking := search(m.Revoking, p, revocationKey); !revoking {
			return p, true
		}
	}
	return 0, false
}

// move hands partition pid from member donor to member recv, or marks it as
// a pending revocation when it holds unsettled data.
func (g *ConsumerGroup) move(donor, recv int, pid uint32, pending bool) {
	d, r := &g.Members[donor], &g.Members[recv]
	if pending {
		i, _ := search(d.Revoking, pid, revocationKey)
		d.Revoking = insertAt(d.Revoking, i, Revocation{Partition: pid, Target: r.Client})
		return
	}
	d.Partitions = removeSorted(d.Partitions, pid)
	r.Partitions = insertSorted(r.Partitions, pid)
}

// completeMove finishes the pending revocation of pid; it reports whether
// there was one.
func (g *ConsumerGroup) completeMove(pid uint32) bool {
	for i := range g.Members {
		d := &g.Members[i]
		k, ok := search(d.Revoking, pid, revocationKey)
		if !ok {
			continue
		}
		target := d.Revoking[k].Target
		d.Revoking = removeAt(d.Revoking, k)
		if j, ok := g.memberIndex(target); ok {
			d.Partitions = removeSorted(d.Partitions, pid)
			g.Members[j].Partitions = insertSorted(g.Members[j].Partitions, pid)
		}
		g.Generation++
		return true
	}
	return false
}

func (g *ConsumerGroup) memberIndex(c ClientID) (int, bool) {
	for i, m := range g.Members {
		if m.Client == c {
			return i, true
		}
	}
	return 0, false
}

// Pollable is what Sync returns: the partitions the member owns, minus those
// pending revocation.
func (m *Member) Pollable() []uint32 {
	out := make([]uint32, 0, len(m.Partitions))
	for _, p := range m.Partitions {
		if _, revoking := search(m.Revoking, p, revocationKey); !revoking {
			out = append(out, p)
		}
	}
	return out
}

func containsSorted(list []uint32, v uint32) bool {
	_, ok := search(list, v, identity)
	return ok
}

func insertSorted(list []uint32, v uint32) []uint32 {
	i, ok := search(list, v, identity)
	if ok {
		assert.Failf("partition %d already in list", v)
	}
	return insertAt(list, i, v)
}

func removeSorted(list []uint32, v uint32) []uint32 {
	i, ok := search(list, v, identity)
	if !ok {
		assert.Failf("partition %d not in list", v)
	}
	return removeAt(list, i)
}
