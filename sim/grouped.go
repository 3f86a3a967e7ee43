package sim

import (
	"fmt"

	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
)

// Grouped fetches in the workload (DEFP-16..18): on a standalone node a
// share of the deferred polls of a topic with several partitions read up
// to groupedPartsMax of them in one grouped fetch. Its oracle: the reply
// has one section per partition asked, in order; all of them together
// hold at most count messages, and fewer than min_count only after the
// wait; every section is judged as a poll by offset would be (records,
// positions), and those with messages join the linearizability history.
const (
	groupedOneIn    = 3
	groupedPartsMax = 3
)

// Marks of the grouped fetch oracle.
const (
	markFetchSection = "sim.fetch.section_read"
	markFetchEmpty   = "sim.fetch.section_empty"
)

// groupedRequired are the grouped fetch marks a standalone sweep must hit.
var groupedRequired = []string{"node.fetch.parked", markFetchSection, markFetchEmpty}

// fetchAsk is what a grouped fetch asked for: each partition from an offset.
type fetchAsk struct {
	parts   []oracles.PartKey
	offsets []uint64
}

// maybeGrouped turns a deferred poll o (body q) into a grouped fetch of
// its partition and up to groupedPartsMax-1 others of its topic.
func (w *World) maybeGrouped(o *op, q wire.PollMessagesRequest) {
	if w.knobs.Replicas > 1 || o.topic == nil || o.topic.partitions < 2 || w.rng.IntN(groupedOneIn) != 0 {
		return
	}
	f := &fetchAsk{parts: []oracles.PartKey{o.part}, offsets: []uint64{o.offset}}
	req := wire.GroupedFetchRequest{Consumer: q.Consumer, StreamID: q.StreamID, TopicID: q.TopicID, Count: o.count,
		WaitMicros: o.deferred.waitTicks * tickMicros, MinCount: o.deferred.minCount}
	req.Partitions = append(req.Partitions, wire.FetchPartition{PartitionID: o.part.Partition, Strategy: q.Strategy})
	for range groupedPartsMax - 1 {
		k := o.part
		k.Partition = w.rng.Uint32N(o.topic.partitions)
		if containsPart(f.parts, k) {
			continue
		}
		off := w.rng.Uint64N(w.catalog.part(k).highest + 3)
		f.parts, f.offsets = append(f.parts, k), append(f.offsets, off)
		req.Partitions = append(req.Partitions, wire.FetchPartition{PartitionID: k.Partition,
			Strategy: wire.PollingStrategy{Kind: wire.PollOffset, Value: off}})
	}
	o.deferred.incarnation = 0 // the sections' positions are judged, not sent
	o.fetch, o.code, o.body = f, wire.CmdGroupedDeferredFetch, encode(req.Encode)
}

func containsPart(parts []oracles.PartKey, k oracles.PartKey) bool {
	for _, p := range parts {
		if p == k {
			return true
		}
	}
	return false
}

// settleFetch judges a grouped fetch's reply and records its sections.
func (w *World) settleFetch(a *attempt, o *op, payload []byte) {
	sections, code := wire.DecodeGroupedFetchReply(payload)
	if code != wire.OK || len(sections) != len(o.fetch.parts) {
		w.fail("wrong-data", fmt.Sprintf("%s: a grouped reply of %d sections for %d partitions (%s)",
			o, len(sections), len(o.fetch.parts), code.Name()))
		return
	}
	var reads []*oracles.Read
	total, served := 0, false
	for i, s := range sections {
		served = served || s.Status == wire.OK
		r, err := w.fetchSection(o, i, s)
		if err != nil {
			w.fail("wrong-data", fmt.Sprintf("%s: section %d: %v", o, i, err))
			return
		}
		if r != nil {
			total += len(r.Msgs)
			reads = append(reads, r)
		}
	}
	if total > int(o.count) {
		w.fail("wrong-data", fmt.Sprintf("%s: %d messages for a count of %d", o, total, o.count))
		return
	}
	if served {
		w.checkDeferred(a, o, total) // with no partition left to read it answers at once
	}
	// Each section is a read of its own partition, within the fetch's call.
	for _, r := range reads {
		so := *o
		so.part = r.Part
		w.recordRead(a, &so, r)
	}
}

// fetchSection judges section i: its partition, its records and positions.
// It returns the section's read if it holds messages.
func (w *World) fetchSection(o *op, i int, s wire.FetchSection) (*oracles.Read, error) {
	k := o.fetch.parts[i]
	switch {
	case s.PartitionID != k.Partition:
		return nil, fmt.Errorf("names partition %d, asked %d", s.PartitionID, k.Partition)
	case s.Status == wire.TransientNotAccepted || s.Status == wire.CannotReadMessage || s.Status == wire.SegmentNotFound:
		w.marks.Hit(fmt.Sprintf("sim.fetch.section_refused_%d", uint32(s.Status)))
		return nil, nil
	case s.Status != wire.OK:
		return nil, fmt.Errorf("status %d %s", uint32(s.Status), s.Status.Name())
	}
	so := *o
	so.part, so.offset, so.fetch = k, o.fetch.offsets[i], nil
	r, err := decodeRecords(&so, s.Polled)
	if err != nil {
		return nil, err
	}
	pos := s.Positions
	if len(r.Msgs) == 0 {
		w.marks.Hit(markFetchEmpty)
		if pos.Checkpoint != wire.NoCheckpoint || pos.Continuation < so.offset || pos.Incarnation == 0 {
			return nil, fmt.Errorf("no message from offset %d: positions %+v", so.offset, pos)
		}
		return nil, nil // maybe cut by the whole reply's count: not a read the log model can judge
	}
	w.marks.Hit(markFetchSection)
	last := r.First + uint64(len(r.Msgs)) - 1
	if pos.Checkpoint != last || pos.Continuation != last+1 || pos.Incarnation == 0 {
		return nil, fmt.Errorf("last offset %d: positions %+v", last, pos)
	}
	return r, nil
}
