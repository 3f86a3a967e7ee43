package sim

import (
	"slices"

	"github.com/iggygo/iggy/oracles"
)

// topicInfo is what the clients know of one topic whose create was
// acknowledged: its policies and how many partitions it surely has.
type topicInfo struct {
	stream, name   string
	id             uint32
	idKnown        bool
	partitions     uint32 // acknowledged at least this many
	policy         oracles.Durability
	offsetPolicy   oracles.Durability
	partitionsBusy bool // a CreatePartitions of it is in flight
}

// streamInfo is one acknowledged stream.
type streamInfo struct {
	name    string
	id      uint32
	idKnown bool
	topics  []*topicInfo
}

// catalog is the clients' shared knowledge of acknowledged metadata, in
// creation order (never map order), plus per-partition bookkeeping.
type catalog struct {
	streams []*streamInfo
	parts   map[oracles.PartKey]*partInfo
}

// partInfo counts what was recorded for one partition.
type partInfo struct {
	ops     int    // history operations recorded (bounded by PartitionOpsMax)
	highest uint64 // the highest current offset a reply reported
	known   bool   // highest is set
	// incarnation is the last a deferred poll's reply reported; later
	// deferred polls send it, as a continuation does (MSG-6).
	incarnation uint64
}

func newCatalog() *catalog { return &catalog{parts: map[oracles.PartKey]*partInfo{}} }

func (c *catalog) stream(name string) *streamInfo {
	for _, s := range c.streams {
		if s.name == name {
			return s
		}
	}
	return nil
}

func (c *catalog) addStream(name string, id uint32, idKnown bool) *streamInfo {
	if s := c.stream(name); s != nil {
		if idKnown {
			s.id, s.idKnown = id, true
		}
		return s
	}
	s := &streamInfo{name: name, id: id, idKnown: idKnown}
	c.streams = append(c.streams, s)
	return s
}

func (c *catalog) topic(stream, name string) *topicInfo {
	s := c.stream(stream)
	if s == nil {
		return nil
	}
	for _, t := range s.topics {
		if t.name == name {
			return t
		}
	}
	return nil
}

func (c *catalog) addTopic(t *topicInfo) {
	s := c.addStream(t.stream, 0, false)
	if old := c.topic(t.stream, t.name); old != nil {
		old.partitions = max(old.partitions, t.partitions)
		if t.idKnown {
			old.id, old.idKnown = t.id, true
		}
		return
	}
	s.topics = append(s.topics, t)
}

func (c *catalog) topics() []*topicInfo {
	var out []*topicInfo
	for _, s := range c.streams {
		out = append(out, s.topics...)
	}
	return out
}

func (c *catalog) part(k oracles.PartKey) *partInfo {
	p := c.parts[k]
	if p == nil {
		p = &partInfo{}
		c.parts[k] = p
	}
	return p
}

// partKeys lists every acknowledged partition in creation order.
func (c *catalog) partKeys() []oracles.PartKey {
	var out []oracles.PartKey
	for _, t := range c.topics() {
		for p := range t.partitions {
			out = append(out, oracles.PartKey{Stream: t.stream, Topic: t.name, Partition: p})
		}
	}
	return out
}

// byIDs finds the topic a data path names (for damage at rest).
func (c *catalog) byIDs(stream, topic uint32) *topicInfo {
	for _, s := range c.streams {
		if !s.idKnown || s.id != stream {
			continue
		}
		i := slices.IndexFunc(s.topics, func(t *topicInfo) bool { return t.idKnown && t.id == topic })
		if i >= 0 {
			return s.topics[i]
		}
	}
	return nil
}
