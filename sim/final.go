package sim

import (
	"fmt"

	"github.com/iggygo/iggy/oracles"
	"github.com/iggygo/iggy/wire"
)

// finalReadFailuresMax is how often one read-back poll may fail before the
// partition is given up (damaged at rest) or the run fails.
const finalReadFailuresMax = 5

// finalRead is client 0's read-back after heal: every stream and topic,
// then every partition from offset 0 to its end. It starts once every
// other client finished, so nothing is appended meanwhile.
type finalRead struct {
	listed   bool
	topics   int // get-topics done
	parts    []oracles.PartKey
	cur      int
	acc      []oracles.Msg
	failures int
}

func (w *World) nextFinal(c *client) *op {
	for _, o := range w.clients {
		if o != c && !o.done {
			return nil
		}
	}
	if !w.hosts[0].accepting() && !w.cluster() || w.cluster() && c.final == nil && !w.converged() {
		return nil
	}
	f := c.final
	if f == nil {
		f = &finalRead{}
		if w.knobs.DataOps {
			f.parts = w.catalog.partKeys()
		}
		c.final = f
	}
	topics := w.catalog.topics()
	switch {
	case !f.listed:
		f.listed = true
		o := w.listOp()
		o.final = true
		return o
	case f.topics < len(topics):
		t := topics[f.topics]
		f.topics++
		o := w.getTopicOp(t.stream, t.name, t)
		o.final = true
		return o
	case f.cur < len(f.parts):
		if o := w.finalPoll(f); o != nil || w.stopped() {
			return o
		}
		return w.nextFinal(c) // the partition was given up
	}
	c.done = true
	w.finished = true
	return nil
}

func (w *World) finalPoll(f *finalRead) *op {
	k := f.parts[f.cur]
	t := w.catalog.topic(k.Stream, k.Topic)
	o := &op{kind: opPoll, code: wire.CmdPollMessages, part: k, topic: t, count: finalPollCount,
		offset: uint64(len(f.acc)), final: true}
	q := wire.PollMessagesRequest{
		Consumer: wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: wire.NumericID(1)},
		StreamID: wire.NamedID(k.Stream), TopicID: wire.NamedID(k.Topic),
		Partition: wire.OptionalPartition{Given: true, ID: k.Partition},
		Strategy:  wire.PollingStrategy{Kind: wire.PollOffset, Value: o.offset}, Count: o.count,
	}
	w.finalDeferred(o, q)
	f.failures++
	if f.failures > finalReadFailuresMax {
		if !w.damaged(k) {
			w.fail("final-read", fmt.Sprintf("%s/%s/%d cannot be read back at offset %d", k.Stream, k.Topic, k.Partition, o.offset))
			return nil
		}
		w.marks.Hit("sim.final.damaged_partition_skipped")
		f.cur, f.acc, f.failures = f.cur+1, nil, 0
		return nil
	}
	return o
}

// finalPolled adds a read-back poll's messages; the partition is done at
// its current offset.
func (w *World) finalPolled(o *op, r *oracles.Read) {
	f := w.clients[0].final
	if f == nil || f.cur >= len(f.parts) || f.parts[f.cur] != o.part {
		return
	}
	f.failures = 0
	f.acc = append(f.acc, r.Msgs...)
	if len(r.Msgs) == 0 || r.First+uint64(len(r.Msgs)) > r.Current {
		w.hist.Final[o.part] = f.acc
		f.cur, f.acc = f.cur+1, nil
	}
}

func (w *World) damaged(k oracles.PartKey) bool {
	if w.clusterDamaged[k] {
		return true
	}
	for _, d := range w.hist.Damages {
		if d.Part == k {
			return true
		}
	}
	return false
}
