package oracles

import (
	"errors"
	"fmt"
)

// MetaKind is what a metadata create made.
type MetaKind uint8

const (
	CreateStream MetaKind = iota + 1
	CreateTopic
	CreatePartitions
)

// MetaCreate is one create attempt. Names are unique per run, so an
// "already exists" answer confirms an earlier attempt of the same create.
type MetaCreate struct {
	Kind    MetaKind
	Stream  string
	Topic   string
	Count   uint32 // partitions of a new topic, or partitions added
	Outcome Outcome
	Exists  bool // answered "already exists" (counts as confirmed)
	Retried bool // sent more than once: an earlier attempt may have executed
	// Delivered counts the attempts that reached the node: without the
	// duplicate table's help (a new session after a lost connection) each
	// may execute.
	Delivered    int
	Call, Return Time
}

// MetaList is a GetStreams answer: the names it listed.
type MetaList struct {
	Streams      []string
	Call, Return Time
}

// MetaTopic is a GetTopic answer.
type MetaTopic struct {
	Stream, Topic string
	Found         bool
	Partitions    uint32
	Call, Return  Time
}

// Unrecoverable is a violation the fault atlas allows: data whose only
// copy was damaged at rest. The run is classified, not failed.
type Unrecoverable struct {
	Rule   string
	Reason string
}

func (u *Unrecoverable) Error() string { return "unrecoverable (" + u.Rule + "): " + u.Reason }

// CheckMetadata: a stream or topic whose create was acknowledged is listed
// by every later read, across every restart (metadata ops are persisted
// before they are acknowledged); nothing is listed that nobody tried to
// create; partition counts stay between what was acknowledged and what was
// attempted. After metadata damaged at rest a violation is Unrecoverable.
// (STOR-7)
func CheckMetadata(h *History) error {
	err := checkMetadata(h)
	if err == nil {
		return nil
	}
	for _, d := range h.MetaDamages {
		return &Unrecoverable{Rule: "metadata-damaged",
			Reason: fmt.Sprintf("%s was damaged at rest on the only replica, then: %v", d.File, err)}
	}
	return err
}

func checkMetadata(h *History) error {
	for _, c := range h.Creates {
		if c.Exists && !c.Retried && firstAttempt(h, c) {
			return fmt.Errorf("%s: first create answered \"already exists\"", c.name())
		}
	}
	for _, l := range h.Lists {
		if err := checkList(h, l); err != nil {
			return err
		}
	}
	for _, t := range h.Topics {
		if err := checkTopic(h, t); err != nil {
			return err
		}
	}
	return nil
}

func (c *MetaCreate) name() string {
	switch c.Kind {
	case CreateStream:
		return "stream " + c.Stream
	case CreateTopic:
		return "topic " + c.Stream + "/" + c.Topic
	}
	return "partitions of " + c.Stream + "/" + c.Topic
}

func firstAttempt(h *History, c *MetaCreate) bool {
	for _, o := range h.Creates {
		if o != c && o.Kind == c.Kind && o.Stream == c.Stream && o.Topic == c.Topic && o.Call < c.Call {
			return false
		}
	}
	return true
}

func confirmed(c *MetaCreate) bool { return c.Outcome == OutcomeOK || c.Exists }

func checkList(h *History, l *MetaList) error {
	listed := map[string]bool{}
	for _, s := range l.Streams {
		listed[s] = true
		if !attempted(h, CreateStream, s, "", l.Return) {
			return fmt.Errorf("stream %s is listed but was never created", s)
		}
	}
	for _, c := range h.Creates {
		if c.Kind == CreateStream && confirmed(c) && c.Return < l.Call && !listed[c.Stream] {
			return fmt.Errorf("stream %s was acknowledged, then missing from a later listing", c.Stream)
		}
	}
	return nil
}

func attempted(h *History, kind MetaKind, stream, topic string, before Time) bool {
	for _, c := range h.Creates {
		if c.Kind == kind && c.Stream == stream && c.Topic == topic && c.Call < before {
			return true
		}
	}
	return false
}

func checkTopic(h *History, t *MetaTopic) error {
	var created *MetaCreate
	var lo, hi uint32
	for _, c := range h.Creates {
		if c.Stream != t.Stream || c.Topic != t.Topic || c.Call > t.Return || c.Outcome == OutcomeFailed && !c.Exists {
			continue
		}
		switch {
		case c.Kind == CreateTopic:
			if created == nil || confirmed(c) && !confirmed(created) {
				created = c
			}
		case c.Kind == CreatePartitions:
			hi += c.Count * uint32(max(c.Delivered, 1))
			if confirmed(c) && c.Return < t.Call {
				lo += c.Count
			}
		}
	}
	name := "topic " + t.Stream + "/" + t.Topic
	switch {
	case created == nil && t.Found:
		return errors.New(name + " is found but was never created")
	case created == nil:
		return nil
	case !t.Found:
		if confirmed(created) && created.Return < t.Call {
			return errors.New(name + " was acknowledged, then not found")
		}
		return nil
	}
	if !confirmed(created) || created.Return > t.Call {
		lo = 0 // the topic's own create may be what a partition create raced
	}
	lo += created.Count
	hi += created.Count
	if t.Partitions < lo || t.Partitions > hi {
		return fmt.Errorf("%s has %d partitions, acknowledged %d, attempted %d", name, t.Partitions, lo, hi)
	}
	return nil
}
