package main

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// verifyMessages checks what one poll returned: every message of the
// configured size, offsets contiguous from want (checksums were checked by
// the client). It returns the offset after the last message.
func verifyMessages(msgs []client.ReceivedMessage, partition uint32, want uint64, size int) (uint64, error) {
	for _, m := range msgs {
		if m.Partition != partition {
			return 0, fmt.Errorf("message from partition %d in a poll of partition %d", m.Partition, partition)
		}
		if m.Offset != want {
			return 0, fmt.Errorf("partition %d: offset %d, want %d", partition, m.Offset, want)
		}
		if len(m.Payload) != size {
			return 0, fmt.Errorf("partition %d offset %d: %d payload bytes, want %d", partition, m.Offset, len(m.Payload), size)
		}
		want++
	}
	return want, nil
}

// consumer is one pinned consuming actor: it reads its stream's partitions
// in turn by offset. When reading a prefilled topic it starts again at 0 at
// the end (the data stays warm); when following a producer it waits.
type consumer struct {
	c      *client.Client
	p      *params
	t      target
	id     uint32
	next   []uint64 // per partition
	turn   int
	follow bool   // reading behind a live producer
	read   uint64 // measured messages, for --total-messages
	target uint64 // messages to read when counting; 0 with --duration
}

func newConsumer(c *client.Client, p *params, t target, actor int, follow bool, target uint64) *consumer {
	return &consumer{c: c, p: p, t: t, id: uint32(actor) + 1, next: make([]uint64, t.partitions), follow: follow, target: target}
}

func (cs *consumer) step() (uint64, error) {
	part := uint32(cs.turn)
	cs.turn = (cs.turn + 1) % len(cs.next)
	_, msgs, err := cs.c.PollMessages(client.Consumer(cs.id), cs.t.stream, cs.t.topic, &part,
		wire.PollOffset, cs.next[part], uint32(cs.p.MessagesPerBatch), false)
	if err != nil {
		return 0, err
	}
	if len(msgs) == 0 {
		if !cs.follow && cs.next[part] > 0 {
			cs.next[part] = 0 // the end of a prefilled partition: read it again
		}
		return 0, nil
	}
	next, err := verifyMessages(msgs, part, cs.next[part], cs.p.MessageSize)
	if err != nil {
		return 0, err
	}
	cs.next[part] = next
	return uint64(len(msgs)), nil
}

func (cs *consumer) measured(messages uint64) { cs.read += messages }

// rewind starts a pinned consumer over after the warm-up (TOOL-12); one
// following a producer keeps its place.
func (cs *consumer) rewind() error {
	if !cs.follow {
		clear(cs.next)
	}
	return nil
}

func (cs *consumer) finished() bool { return cs.target > 0 && cs.read >= cs.target }

// groupConsumer is a member of the bench's consumer group. Like the SDK it
// polls the partitions of its assignment in turn, naming each, with
// auto-commit, and syncs its assignment again after an empty poll (the
// server's answer to a partition that moved is an empty poll).
type groupConsumer struct {
	c          *client.Client
	p          *params
	t          target
	group      wire.Identifier
	assignment []uint32
	turn       int
	stale      bool // sync before the next poll
	// next is, per partition, the offset after the last message this member
	// read; a partition it has not read yet may start anywhere.
	next   map[uint32]uint64
	shared *groupShared
	total  uint64
}

// groupShared is what the members of one group share: the messages the
// whole group read (it is done when they reach total), started over once
// by the first member to rewind.
type groupShared struct {
	consumed atomic.Uint64
	reset    sync.Once
}

func (g *groupConsumer) sync() error {
	a, member, err := g.c.SyncConsumerGroup(g.t.stream, g.t.topic, g.group)
	if err != nil {
		return err
	}
	if !member {
		return fmt.Errorf("not a member of %s on %s", groupName, g.t.name)
	}
	g.assignment, g.turn, g.stale = a.Partitions, 0, false
	return nil
}

func (g *groupConsumer) step() (uint64, error) {
	if g.stale || len(g.assignment) == 0 {
		if err := g.sync(); err != nil || len(g.assignment) == 0 {
			return 0, err
		}
	}
	part := g.assignment[g.turn%len(g.assignment)]
	g.turn++
	_, msgs, err := g.c.PollMessages(client.GroupConsumer(g.group), g.t.stream, g.t.topic, &part,
		wire.PollNext, 0, uint32(g.p.MessagesPerBatch), true)
	if err != nil {
		return 0, err
	}
	if len(msgs) == 0 {
		g.stale = true
		return 0, nil
	}
	want, seen := g.next[part]
	if !seen {
		want = msgs[0].Offset
	}
	next, err := verifyMessages(msgs, part, want, g.p.MessageSize)
	if err != nil {
		return 0, err
	}
	g.next[part] = next
	g.shared.consumed.Add(uint64(len(msgs)))
	return uint64(len(msgs)), nil
}

func (g *groupConsumer) measured(uint64) {}
func (g *groupConsumer) finished() bool  { return g.shared.consumed.Load() >= g.total }

// rewind starts the group over after the warm-up (TOOL-12): the group's
// count restarts, and each member deletes the group's offsets of the
// partitions it owns, so the next polls read them from the start.
func (g *groupConsumer) rewind() error {
	g.shared.reset.Do(func() { g.shared.consumed.Store(0) })
	if err := g.sync(); err != nil {
		return err
	}
	for _, part := range g.assignment {
		err := g.c.DeleteOffset(client.GroupConsumer(g.group), g.t.stream, g.t.topic, part)
		if err != nil && !client.IsCode(err, wire.ConsumerOffsetNotFound) {
			return fmt.Errorf("delete the group's offset of partition %d: %w", part, err)
		}
	}
	clear(g.next)
	return nil
}
