package oracles

import (
	"cmp"
	"fmt"
	"slices"
)

// CheckOffsets is the O(n) oracle over messages: one message per offset
// within a node epoch, no message that was never sent, no duplicate beyond
// the attempts that reached the node, whole batches in the final log, no
// acknowledged write lost, and current offsets that never go back within
// an epoch. (MSG-10, MSG-13, STOR-45, RES-38, VSR-28)
func CheckOffsets(h *History) error {
	sent := sentBatches(h)
	if err := checkEpochOffsets(h, sent); err != nil {
		return err
	}
	if err := checkCurrentMonotonic(h); err != nil {
		return err
	}
	for _, k := range sortedParts(h.Final) {
		if err := checkFinal(h, k, h.Final[k], sent); err != nil {
			return err
		}
	}
	if err := checkAcknowledged(h); err != nil {
		return err
	}
	return CheckNoReuse(h)
}

type batchKey struct {
	part  PartKey
	batch uint64
}

// sentInfo is what the appends of one batch to one partition say.
type sentInfo struct {
	count    uint32
	attempts int // appends that may have reached the node
}

func sentBatches(h *History) map[batchKey]*sentInfo {
	out := map[batchKey]*sentInfo{}
	for _, a := range h.Appends {
		if a.Outcome == OutcomeFailed {
			continue
		}
		k := batchKey{a.Part, a.Batch}
		s := out[k]
		if s == nil {
			s = &sentInfo{count: a.Count}
			out[k] = s
		}
		s.attempts++
	}
	return out
}

type epochOffset struct {
	part   PartKey
	epoch  int
	offset uint64
}

func checkEpochOffsets(h *History, sent map[batchKey]*sentInfo) error {
	seen := map[epochOffset]Msg{}
	for _, r := range h.Reads {
		for i, m := range r.Msgs {
			s := sent[batchKey{r.Part, m.Batch}]
			if s == nil || m.Index >= s.count {
				return fmt.Errorf("%s: offset %d holds message %d#%d, which was never sent there", partName(r.Part), r.First+uint64(i), m.Batch, m.Index)
			}
			k := epochOffset{r.Part, r.Epoch, r.First + uint64(i)}
			if prev, ok := seen[k]; ok && prev != m {
				return fmt.Errorf("%s: offset %d held %d#%d and then %d#%d in epoch %d", partName(r.Part), k.offset,
					prev.Batch, prev.Index, m.Batch, m.Index, r.Epoch)
			}
			seen[k] = m
		}
	}
	return nil
}

// checkCurrentMonotonic: within one epoch, a read that starts after another
// returned never reports a lower current offset.
func checkCurrentMonotonic(h *History) error {
	type group struct {
		part  PartKey
		epoch int
	}
	groups := map[group][]*Read{}
	var order []group // first-seen order, so the violation reported does not depend on map order
	for _, r := range h.Reads {
		g := group{r.Part, r.Epoch}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], r)
	}
	for _, g := range order {
		rs := groups[g]
		byReturn := slices.Clone(rs)
		slices.SortFunc(byReturn, func(a, b *Read) int { return cmp.Compare(a.Return, b.Return) })
		byCall := slices.Clone(rs)
		slices.SortFunc(byCall, func(a, b *Read) int { return cmp.Compare(a.Call, b.Call) })
		var best *Read
		i := 0
		for _, r := range byCall {
			for i < len(byReturn) && byReturn[i].Return < r.Call {
				if best == nil || byReturn[i].Current > best.Current {
					best = byReturn[i]
				}
				i++
			}
			if best != nil && r.Current < best.Current {
				return fmt.Errorf("%s: current offset went back from %d to %d within epoch %d", partName(r.Part), best.Current, r.Current, r.Epoch)
			}
		}
	}
	return nil
}

// checkFinal walks the log read back after heal: whole batches only, and
// no batch more often than its attempts.
func checkFinal(h *History, k PartKey, log []Msg, sent map[batchKey]*sentInfo) error {
	copies := map[uint64]int{}
	for o := 0; o < len(log); {
		m := log[o]
		if m == Lost {
			o++ // a bounded damage lost it; the read-back went on after it
			continue
		}
		s := sent[batchKey{k, m.Batch}]
		if s == nil || m.Index != 0 {
			return fmt.Errorf("%s: offset %d holds %d#%d, not the start of a batch sent there", partName(k), o, m.Batch, m.Index)
		}
		for i := uint32(0); i < s.count; i++ {
			if o+int(i) >= len(log) || log[o+int(i)] != (Msg{m.Batch, i}) {
				return fmt.Errorf("%s: batch %d starting at offset %d is not whole", partName(k), m.Batch, o)
			}
		}
		copies[m.Batch]++
		if copies[m.Batch] > s.attempts {
			return fmt.Errorf("%s: batch %d appears %d times, sent %d times", partName(k), m.Batch, copies[m.Batch], s.attempts)
		}
		o += int(s.count)
	}
	return nil
}

// checkAcknowledged: every acknowledged append whose policy covered every
// crash since is in the final log at the offset its acknowledgement gave,
// unless damage at rest exempts it.
func checkAcknowledged(h *History) error {
	for _, a := range h.Appends {
		log, read := h.Final[a.Part]
		if !read || a.Outcome != OutcomeOK || !survives(h, a, Never-1) || damaged(h, a) || lostToWriteFault(h, a) {
			continue
		}
		for i := range a.Count {
			o := a.Base + uint64(i)
			if o >= uint64(len(log)) || log[o] != (Msg{a.Batch, i}) {
				return fmt.Errorf("%s: batch %d acknowledged at offset %d (%s) is lost: offset %d %s",
					partName(a.Part), a.Batch, a.Base, a.Policy, o, describeAt(log, o))
			}
		}
	}
	return nil
}

// lostToWriteFault: an append acknowledged under durability none (when
// queued) that a failed write of its partition may have dropped.
func lostToWriteFault(h *History, a *Append) bool {
	for _, f := range h.WriteFaults {
		if a.Policy == DurabilityNone && f.Part == a.Part && f.At > a.Call {
			return true
		}
	}
	return false
}

func damaged(h *History, a *Append) bool {
	for _, d := range h.Damages {
		if d.Part == a.Part && d.Offset < a.Base+uint64(a.Count) && (d.End == 0 || a.Base < d.End) {
			return true
		}
	}
	return false
}

func describeAt(log []Msg, o uint64) string {
	if o >= uint64(len(log)) {
		return fmt.Sprintf("is past the end (%d messages)", len(log))
	}
	return fmt.Sprintf("holds %d#%d", log[o].Batch, log[o].Index)
}

func partName(k PartKey) string {
	return fmt.Sprintf("partition %s/%s/%d", k.Stream, k.Topic, k.Partition)
}

func (d Durability) String() string {
	switch d {
	case DurabilityNone:
		return "none"
	case DurabilityReplicated:
		return "replicated"
	case DurabilityPersisted:
		return "persisted"
	}
	return fmt.Sprintf("durability(%d)", d)
}
