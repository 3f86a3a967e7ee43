package oracles

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// PartitionOpsMax bounds the operations of one partition's history that the
// simulator may record: porcupine's search grows quickly with concurrent
// indefinite operations, so histories stay near a thousand operations.
const PartitionOpsMax = 1000

// checkTimeout bounds the search of one partition's history. Porcupine's
// search is exponential in the operations pending at once (indefinite
// appends under crashes), so a rare history of under a hundred operations
// can take minutes (swarm seed 904612166: 87 operations, over 60 s). A
// timeout proves nothing either way: the partition is reported unchecked
// (Unknown, and the simulator's mark oracle.porcupine.timed_out), the
// other partitions are still checked, and the run does not fail. A sweep
// stays bounded in time, and how often a check was cut is counted rather
// than hidden.
const checkTimeout = 10 * time.Second

// losable is an append acknowledged under durability none that a failed
// write of its partition may have dropped (lostToWriteFault).
type losable struct{ *Append }

// crashOp is a crash as the model sees it: every log prefix that still
// holds the first minEnd messages may survive it.
type crashOp struct{ minEnd uint64 }

// partitionModel is the sequential specification of one partition log:
// append returns its base offset, reads by offset return the messages
// stored there and the current offset, a crash may cut the log back to any
// batch boundary at or past what every acknowledgement it covers promised.
var partitionModel = porcupine.NondeterministicModel{
	Init: func() []interface{} { return []interface{}{(*plog)(nil)} },
	Step: func(state, input, _ interface{}) []interface{} {
		l := state.(*plog)
		switch in := input.(type) {
		case *Append:
			return stepAppend(l, in)
		case losable:
			// Acknowledged when queued, then a failed write may have
			// dropped it: at its offset, or not at all.
			out := []interface{}{l}
			if l.length() == in.Base {
				out = append(out, l.push(in.Batch, in.Count))
			}
			return out
		case *Read:
			if readMatches(l, in) {
				return []interface{}{l}
			}
			return nil
		case crashOp:
			var out []interface{}
			for _, p := range l.prefixesFrom(in.minEnd) {
				out = append(out, p)
			}
			return out
		}
		panic(fmt.Sprintf("oracles: unknown partition op %T", input))
	},
	Equal: func(a, b interface{}) bool { return a.(*plog).equal(b.(*plog)) },
	Hash:  func(s interface{}) uint64 { return s.(*plog).hashOf() },
}

var partitionChecker = partitionModel.ToModel()

func stepAppend(l *plog, a *Append) []interface{} {
	switch a.Outcome {
	case OutcomeOK:
		if l.length() != a.Base {
			return nil
		}
		return []interface{}{l.push(a.Batch, a.Count)}
	case OutcomeUnknown:
		return []interface{}{l.push(a.Batch, a.Count), l}
	}
	return []interface{}{l}
}

// readMatches checks a poll's answer against the log at its linearization.
func readMatches(l *plog, r *Read) bool {
	n := l.length()
	if r.Current != max(n, 1)-1 {
		return false
	}
	if len(r.Msgs) == 0 {
		return !r.ByOffset || r.Offset >= n
	}
	if (r.ByOffset && r.First != r.Offset) || uint64(len(r.Msgs)) > uint64(r.Count) {
		return false
	}
	for i, m := range r.Msgs {
		got, ok := l.at(r.First + uint64(i))
		if !ok || got != m {
			return false
		}
	}
	return true
}

// LinearizabilityStats says how much a check covered.
type LinearizabilityStats struct {
	// Failed is the partition whose history is not linearizable.
	Failed *PartKey
	// Unknown are the partitions whose check timed out (checkTimeout).
	Unknown    []PartKey
	Partitions int
	Ops        int
	Reads      int // reads that returned at least one message
	Elapsed    time.Duration
}

// CheckLinearizable checks every partition's history with porcupine.
// Indefinite appends return at Never (or at the crash that bounds them) and
// may or may not have taken effect; an acknowledgement under durability
// none bounds nothing, as the reply precedes the commit.
func CheckLinearizable(h *History) (LinearizabilityStats, error) {
	start := time.Now()
	var st LinearizabilityStats
	byPart := map[PartKey][]porcupine.Operation{}
	for _, a := range h.Appends {
		if a.Outcome == OutcomeFailed {
			continue
		}
		ret := a.Return
		if a.Outcome == OutcomeOK && a.Policy == DurabilityNone {
			ret = boundByCrash(h, a.Call)
		}
		var in interface{} = a
		if a.Outcome == OutcomeOK && lostToWriteFault(h, a) {
			in = losable{a}
		}
		byPart[a.Part] = append(byPart[a.Part], porcupine.Operation{ClientId: a.Client, Input: in, Call: a.Call, Return: ret})
	}
	for _, r := range h.Reads {
		byPart[r.Part] = append(byPart[r.Part], porcupine.Operation{ClientId: r.Client, Input: r, Call: r.Call, Return: r.Return})
		if len(r.Msgs) > 0 {
			st.Reads++
		}
	}
	keys := sortedParts(byPart)
	for _, k := range keys {
		ops := byPart[k]
		for _, c := range h.Crashes {
			ops = append(ops, porcupine.Operation{ClientId: -1, Input: crashOp{minEnd: minEndAt(h, k, c)}, Call: c.At, Return: c.At})
		}
		st.Partitions++
		st.Ops += len(ops)
		switch porcupine.CheckOperationsTimeout(partitionChecker, ops, checkTimeout) {
		case porcupine.Illegal:
			st.Elapsed, st.Failed = time.Since(start), &k
			return st, fmt.Errorf("partition %s/%s/%d: history of %d operations is not linearizable", k.Stream, k.Topic, k.Partition, len(ops))
		case porcupine.Unknown:
			st.Unknown = append(st.Unknown, k)
		}
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// boundByCrash is just before the first crash after t, or Never.
func boundByCrash(h *History, t Time) Time {
	for _, c := range h.Crashes {
		if c.At > t {
			return c.At - 1
		}
	}
	return Never
}

// minEndAt is how much of partition k crash c must keep: the end of every
// append acknowledged before it under a policy that covers its kind, but
// no further than the first record damaged at rest before it. (A damage
// exempts every append ending past it for good: a boot may cut the damaged
// record only later, taking the appends after it along.)
func minEndAt(h *History, k PartKey, c Crash) uint64 {
	var minEnd uint64
	for _, a := range h.Appends {
		if a.Part == k && a.Outcome == OutcomeOK && survives(h, a, c.At) {
			minEnd = max(minEnd, a.Base+uint64(a.Count))
		}
	}
	for _, d := range h.Damages {
		if d.Part == k && d.At < c.At && d.End == 0 {
			minEnd = min(minEnd, d.Offset)
		}
	}
	return minEnd
}

func sortedParts[V any](m map[PartKey]V) []PartKey {
	keys := make([]PartKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b PartKey) int {
		return cmp.Or(cmp.Compare(a.Stream, b.Stream), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return keys
}

// survives says whether a's acknowledgement promises it is still there at
// time t: it was acknowledged before t and its policy covers every crash
// between its acknowledgement and t.
func survives(h *History, a *Append, t Time) bool {
	if a.Return >= t {
		return false
	}
	for _, c := range h.Crashes {
		if c.At > a.Return && c.At <= t && !a.Policy.Covers(c.Kind) {
			return false
		}
	}
	return true
}

// DescribePartition lists the history of one partition in call order, for
// a failure report.
func DescribePartition(h *History, k PartKey) string {
	type line struct {
		at   Time
		text string
	}
	var lines []line
	for _, a := range h.Appends {
		if a.Part == k {
			lines = append(lines, line{a.Call, fmt.Sprintf("[%d,%s] client %d append batch %d x%d %s outcome=%d base=%d resend=%t",
				a.Call, timeText(a.Return), a.Client, a.Batch, a.Count, a.Policy, a.Outcome, a.Base, a.Resend)})
		}
	}
	for _, r := range h.Reads {
		if r.Part == k {
			lines = append(lines, line{r.Call, fmt.Sprintf("[%d,%d] client %d read by_offset=%t offset=%d count=%d -> first=%d msgs=%v current=%d epoch=%d",
				r.Call, r.Return, r.Client, r.ByOffset, r.Offset, r.Count, r.First, r.Msgs, r.Current, r.Epoch)})
		}
	}
	for _, c := range h.Crashes {
		lines = append(lines, line{c.At, fmt.Sprintf("[%d] crash kind=%d ends epoch %d, keeps >= %d", c.At, c.Kind, c.Epoch, minEndAt(h, k, c))})
	}
	for _, d := range h.Damages {
		if d.Part == k {
			lines = append(lines, line{d.At, fmt.Sprintf("[%d] damage at offset %d (end %d, 0: unbounded)", d.At, d.Offset, d.End)})
		}
	}
	slices.SortStableFunc(lines, func(a, b line) int { return cmp.Compare(a.at, b.at) })
	var b []byte
	for _, l := range lines {
		b = append(b, l.text...)
		b = append(b, '\n')
	}
	return string(b)
}

func timeText(t Time) string {
	if t == Never {
		return "never"
	}
	return fmt.Sprint(t)
}
