package oracles

import "fmt"

// OffsetStore is one StoreConsumerOffset of a consumer (one client owns
// each consumer, so a consumer's stores are sequential).
type OffsetStore struct {
	Part         PartKey
	Consumer     int
	Value        uint64
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

// CheckConsumerOffsets: with no crash since the consumer's last
// acknowledged store, a read sees that store or one issued after it; a
// consumer that never stored and never crashed has nothing stored or a
// value it is storing; across a crash the value may go back (an unsynced
// write lost) or be clamped to a shorter log, but never past a value the
// consumer stored. (CGRP-9, CGRP-12)
func CheckConsumerOffsets(h *History) error {
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
		if err := checkGet(h, g, stores[ck{g.Part, g.Consumer}]); err != nil {
			return err
		}
	}
	return nil
}

func checkGet(h *History, g *OffsetGet, stores []*OffsetStore) error {
	var last *OffsetStore // the last store acknowledged before g
	for _, s := range stores {
		if s.Outcome == OutcomeOK && s.Return < g.Call && (last == nil || s.Return > last.Return) {
			last = s
		}
	}
	from := Time(-1)
	if last != nil {
		from = last.Return
	}
	crashed := false
	for _, c := range h.Crashes {
		if c.At > from && c.At < g.Call {
			crashed = true
		}
	}
	allowed := map[uint64]bool{}
	highest, any := uint64(0), false
	for _, s := range stores {
		if s.Outcome == OutcomeFailed || s.Call > g.Return {
			continue
		}
		highest, any = max(highest, s.Value), true
		if s == last || s.Call > from {
			allowed[s.Value] = true
		}
	}
	who := fmt.Sprintf("%s consumer %d", partName(g.Part), g.Consumer)
	switch {
	case crashed:
		if g.Found && (!any || g.Value > highest) {
			return fmt.Errorf("%s: offset %d read after a crash was never stored (highest stored %d)", who, g.Value, highest)
		}
	case !g.Found:
		if last != nil {
			return fmt.Errorf("%s: nothing stored, but %d was acknowledged", who, last.Value)
		}
	case !allowed[g.Value]:
		return fmt.Errorf("%s: read %d, but the last acknowledged store was %s and no crash happened since", who, g.Value, describeStore(last))
	}
	return nil
}

func describeStore(s *OffsetStore) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprint(s.Value)
}
