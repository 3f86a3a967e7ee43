package oracles

import (
	"fmt"

	"github.com/iggygo/iggy/core/mark"
)

// OffsetStore is one StoreConsumerOffset of a consumer (one client owns
// each consumer, so a consumer's stores are sequential). Policy is the
// topic's consumer_offset_durability.
type OffsetStore struct {
	Part         PartKey
	Consumer     int
	Value        uint64
	Policy       Durability
	Outcome      Outcome
	Call, Return Time
}

// OffsetGet is what a GetConsumerOffset answered, or what a poll by the
// stored offset (next) revealed: it started at the stored offset + 1.
type OffsetGet struct {
	Part         PartKey
	Consumer     int
	Found        bool
	Value        uint64
	Call, Return Time
}

// Marks of the cases CheckConsumerOffsets judged, a read after a crash
// since the last acknowledged store (CGRP-9, CGRP-12): a persisted store,
// which every crash keeps; a replicated one across kills only, which keep
// it too; and one a crash may have lost (replicated across a power loss,
// or none).
const (
	MarkOffsetPersistedCrash = "oracle.consumer_offsets.persisted_across_crash"
	MarkOffsetReplicatedKill = "oracle.consumer_offsets.replicated_across_kill"
	MarkOffsetUncoveredCrash = "oracle.consumer_offsets.uncovered_crash"
)

// CheckConsumerOffsets judges every offset read against the consumer's
// stores, and hits a mark for each kind of case it judged:
//   - No crash since the consumer's last acknowledged store: the read sees
//     that store or one issued after it. (A replica set records no crash:
//     a quorum commits every offset write before its reply, so this is
//     the rule there, the Quorum case.)
//   - A crash since, every one covered by the store's policy: the offset
//     was recovered, and then clamped only to the log's recovered head
//     (CGRP-9), which holds every message whose acknowledgement survived
//     the crash. So it is found, and not below the store's value or that
//     head's lower bound, whichever is less, unless a store issued since
//     put the lower value. A partition that may have come back empty
//     deletes the offset instead.
//   - A crash the policy does not cover: the store may be lost, so the
//     read sees any value the consumer stored, a clamp to a recovered
//     head, or nothing; never a value that was not stored and lies below
//     every head a recovery can have found.
//
// In every case the value is never above the highest value stored.
func CheckConsumerOffsets(h *History, marks mark.Sink) error {
	type ck struct {
		part     PartKey
		consumer int
	}
	stores := map[ck][]*OffsetStore{}
	for _, s := range h.Stores {
		k := ck{s.Part, s.Consumer}
		stores[k] = append(stores[k], s)
	}
	for _, g := range h.Gets {
		if err := checkGet(h, g, stores[ck{g.Part, g.Consumer}], marks); err != nil {
			return err
		}
	}
	return nil
}

// offsetCase is what a read can see given the stores before it.
type offsetCase struct {
	last    *OffsetStore    // the last store acknowledged before the read
	crashes []Crash         // the crashes since last returned
	allowed map[uint64]bool // last's value and the values of stores issued since
	stored  map[uint64]bool // every value that may have been stored
	highest uint64
	any     bool // some store may have taken effect
}

func newOffsetCase(h *History, g *OffsetGet, stores []*OffsetStore) offsetCase {
	var c offsetCase
	for _, s := range stores {
		if s.Outcome == OutcomeOK && s.Return < g.Call && (c.last == nil || s.Return > c.last.Return) {
			c.last = s
		}
	}
	from := Time(-1)
	if c.last != nil {
		from = c.last.Return
	}
	for _, cr := range h.Crashes {
		if cr.At > from && cr.At < g.Call {
			c.crashes = append(c.crashes, cr)
		}
	}
	c.allowed, c.stored = map[uint64]bool{}, map[uint64]bool{}
	for _, s := range stores {
		if s.Outcome == OutcomeFailed || s.Call > g.Return {
			continue
		}
		c.highest, c.any = max(c.highest, s.Value), true
		c.stored[s.Value] = true
		if s == c.last || s.Call > from {
			c.allowed[s.Value] = true
		}
	}
	return c
}

// covered says whether every crash since the last store is one its policy
// survives.
func (c offsetCase) covered() bool {
	if c.last == nil {
		return false
	}
	for _, cr := range c.crashes {
		if !c.last.Policy.Covers(cr.Kind) {
			return false
		}
	}
	return true
}

func checkGet(h *History, g *OffsetGet, stores []*OffsetStore, marks mark.Sink) error {
	c := newOffsetCase(h, g, stores)
	who := fmt.Sprintf("%s consumer %d", partName(g.Part), g.Consumer)
	if g.Found && (!c.any || g.Value > c.highest) {
		return fmt.Errorf("%s: offset %d read was never stored (highest stored %d)", who, g.Value, c.highest)
	}
	if len(c.crashes) == 0 {
		switch {
		case !g.Found && c.last != nil:
			return fmt.Errorf("%s: nothing stored, but %d was acknowledged", who, c.last.Value)
		case g.Found && !c.allowed[g.Value]:
			return fmt.Errorf("%s: read %d, but the last acknowledged store was %s and no crash happened since", who, g.Value, describeStore(c.last))
		}
		return nil
	}
	head, nonEmpty := headFloor(h, g.Part, c.crashes)
	if c.covered() {
		if c.last.Policy == DurabilityPersisted {
			marks.Hit(MarkOffsetPersistedCrash)
		} else {
			marks.Hit(MarkOffsetReplicatedKill)
		}
		if !nonEmpty {
			return nil // the partition may have come back empty: the offset deleted
		}
		bound := min(c.last.Value, head)
		switch {
		case !g.Found:
			return fmt.Errorf("%s: nothing stored after a crash that %s offsets survive, but %d was acknowledged", who, c.last.Policy, c.last.Value)
		case g.Value < bound && !c.allowed[g.Value]:
			return fmt.Errorf("%s: read %d after a crash that %s offsets survive; the acknowledged store was %d and the log kept offset %d", who, g.Value, c.last.Policy, c.last.Value, head)
		}
		return nil
	}
	marks.Hit(MarkOffsetUncoveredCrash)
	if g.Found && !c.stored[g.Value] && nonEmpty && g.Value < head {
		return fmt.Errorf("%s: offset %d read after a crash was neither stored nor a recovered head", who, g.Value)
	}
	return nil
}

// headFloor is the lowest of the lower bounds of the head each crash's
// recovery found in partition k: the last offset of an acknowledged append
// whose acknowledgement survived every crash up to that one. nonEmpty is
// false when some recovery may have found the partition empty.
func headFloor(h *History, k PartKey, crashes []Crash) (uint64, bool) {
	floor := uint64(0)
	for i, cr := range crashes {
		f, ok := survivingHead(h, k, cr.At)
		if !ok {
			return 0, false
		}
		if i == 0 || f < floor {
			floor = f
		}
	}
	return floor, true
}

// survivingHead is the highest last offset of an append to k whose
// acknowledgement promises it is still there at crash time at.
func survivingHead(h *History, k PartKey, at Time) (uint64, bool) {
	head, ok := uint64(0), false
	for _, a := range h.Appends {
		if a.Part != k || a.Outcome != OutcomeOK || a.Count == 0 || !survives(h, a, at) {
			continue
		}
		head, ok = max(head, a.Base+uint64(a.Count)-1), true
	}
	return head, ok
}

func describeStore(s *OffsetStore) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprint(s.Value)
}
