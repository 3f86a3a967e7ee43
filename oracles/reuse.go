package oracles

import (
	"cmp"
	"fmt"
	"slices"
)

// Lost stands in the read-back of a partition (History.Final) for an
// offset a bounded damage lost: the read-back went on after it.
var Lost = Msg{Batch: ^uint64(0), Index: ^uint32(0)}

// CheckNoReuse: no offset is acknowledged for two different batches while
// the first acknowledgement still holds (issue 11: a restart after a
// sealed segment was truncated at rest acknowledged new sends at offsets
// already acknowledged). The first one no longer holds after a crash its
// policy does not cover, or after unbounded damage at or before the offset
// (bit rot in the last segment: its only copy is gone, and the tail is cut).
// Durability none promises nothing past the queue, not even without a
// crash (a failed write drops it), so its acknowledgements are not held.
func CheckNoReuse(h *History) error {
	byPart := map[PartKey][]*Append{}
	for _, a := range h.Appends {
		if a.Outcome == OutcomeOK && a.Count > 0 && a.Policy != DurabilityNone {
			byPart[a.Part] = append(byPart[a.Part], a)
		}
	}
	for _, k := range sortedParts(byPart) {
		apps := byPart[k]
		slices.SortStableFunc(apps, func(a, b *Append) int { return cmp.Compare(a.Base, b.Base) })
		var open []*Append // earlier appends whose offsets reach past the current base
		for _, b := range apps {
			open = slices.DeleteFunc(open, func(a *Append) bool { return a.Base+uint64(a.Count) <= b.Base })
			for _, a := range open {
				if a.Batch != b.Batch && stillHeld(h, a, b) {
					return fmt.Errorf("%s: offset %d acknowledged for batch %d (%s) and again for batch %d (%s)",
						partName(k), b.Base, a.Batch, a.Policy, b.Batch, b.Policy)
				}
			}
			open = append(open, b)
		}
	}
	return nil
}

// stillHeld says whether the earlier of two acknowledgements of overlapping
// offsets still held when the later one was given.
func stillHeld(h *History, a, b *Append) bool {
	first, second := a, b
	if b.Return < a.Return {
		first, second = b, a
	}
	if !survives(h, first, second.Return) {
		return false
	}
	overlap := max(a.Base, b.Base)
	for _, d := range h.Damages {
		if d.Part == first.Part && d.End == 0 && d.Offset <= overlap && d.At < second.Return {
			return false
		}
	}
	return true
}
