package main

import (
	"fmt"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/cmd/iggy-bench/stats"
	"github.com/iggygo/iggy/wire"
)

const groupName = "bench-group"

// bench is a prepared run: its actors, their connections and what to clean up.
type bench struct {
	actors  []*actor
	conns   []*client.Client
	targets []target
}

func (b *bench) close() {
	for _, c := range b.conns {
		c.Close()
	}
}

// add connects one actor to the node serving t; build makes its worker on
// that connection.
func (b *bench) add(p *params, t target, kind string, id int, rateShare int, build func(c *client.Client) (worker, error)) error {
	addr, err := actorAddr(p, t)
	if err != nil {
		return err
	}
	c, err := connect(p, addr, true)
	if err != nil {
		return err
	}
	b.conns = append(b.conns, c)
	w, err := build(c)
	if err != nil {
		return err
	}
	a := &actor{w: w, st: stats.NewActor(kind, id), batchBytes: p.batchBytes()}
	if p.RateLimitMBps > 0 && rateShare > 0 {
		a.bytesPerSec = p.RateLimitMBps * stats.BytesPerMB / float64(rateShare)
	}
	b.actors = append(b.actors, a)
	return nil
}

// prepare creates the topology of p.Workload and connects its actors.
func prepare(admin *client.Client, p *params) (*bench, error) {
	b := &bench{}
	var err error
	switch p.Workload {
	case workloadPinnedProducer, workloadBalancedProducer:
		err = b.producers(admin, p)
	case workloadPinnedConsumer:
		err = b.pinnedConsumers(admin, p)
	case workloadPinnedProducerConsumer:
		err = b.pairs(admin, p)
	case workloadConsumerGroup:
		err = b.groupConsumers(admin, p)
	default:
		err = fmt.Errorf("unknown workload %q", p.Workload)
	}
	if err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *bench) producers(admin *client.Client, p *params) error {
	var err error
	if b.targets, err = createFresh(admin, p); err != nil {
		return err
	}
	balanced := p.Workload == workloadBalancedProducer
	for i := range p.Actors {
		t := b.targets[i%len(b.targets)]
		err := b.add(p, t, "producer", i, p.Actors, func(c *client.Client) (worker, error) {
			return newProducer(c, p, t, i, balanced)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) pinnedConsumers(admin *client.Client, p *params) error {
	var err error
	batches := p.prefillBatchesPerPartition(p.Actors * p.Partitions)
	if b.targets, err = prepareForReading(admin, p, batches); err != nil {
		return err
	}
	target := p.messagesPerConsumer()
	for i := range p.Actors {
		err := b.add(p, b.targets[i], "consumer", i, p.Actors, func(c *client.Client) (worker, error) {
			return newConsumer(c, p, b.targets[i], i, false, target), nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// pairs gives every stream a producer and a consumer that follows it; the
// rate limit applies to the producers.
func (b *bench) pairs(admin *client.Client, p *params) error {
	var err error
	if b.targets, err = createFresh(admin, p); err != nil {
		return err
	}
	target := p.messagesPerConsumer()
	for i := range p.Actors {
		t := b.targets[i]
		if err := b.add(p, t, "producer", i, p.Actors, func(c *client.Client) (worker, error) {
			return newProducer(c, p, t, i, false)
		}); err != nil {
			return err
		}
		if err := b.add(p, t, "consumer", i, 0, func(c *client.Client) (worker, error) {
			return newConsumer(c, p, t, i, true, target), nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// groupConsumers gives every stream's topic a fresh group; the actors join
// the groups in turn and read until the group has read what was written.
func (b *bench) groupConsumers(admin *client.Client, p *params) error {
	var err error
	batches := p.prefillBatchesPerPartition(p.Streams * p.Partitions)
	if b.targets, err = prepareForReading(admin, p, batches); err != nil {
		return err
	}
	groups := make([]wire.Identifier, len(b.targets))
	shared := make([]groupShared, len(b.targets))
	for i, t := range b.targets {
		if groups[i], err = freshGroup(admin, t); err != nil {
			return err
		}
	}
	total := batches * uint64(p.MessagesPerBatch) * uint64(p.Partitions)
	for i := range p.Actors {
		s := i % len(b.targets)
		err := b.add(p, b.targets[s], "consumer", i, p.Actors, func(c *client.Client) (worker, error) {
			if err := c.JoinConsumerGroup(b.targets[s].stream, b.targets[s].topic, groups[s]); err != nil {
				return nil, fmt.Errorf("join %s of %s: %w", groupName, b.targets[s].name, err)
			}
			return &groupConsumer{c: c, p: p, t: b.targets[s], group: groups[s], next: map[uint32]uint64{},
				shared: &shared[s], total: total}, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// freshGroup deletes the bench group of t (and its stored offsets) if an
// earlier run left it, and creates it again.
func freshGroup(admin *client.Client, t target) (wire.Identifier, error) {
	if _, found, err := admin.GetConsumerGroup(t.stream, t.topic, wire.NamedID(groupName)); err != nil {
		return wire.Identifier{}, fmt.Errorf("get group of %s: %w", t.name, err)
	} else if found {
		if err := admin.DeleteConsumerGroup(t.stream, t.topic, wire.NamedID(groupName)); err != nil {
			return wire.Identifier{}, fmt.Errorf("delete group of %s: %w", t.name, err)
		}
	}
	g, err := admin.CreateConsumerGroup(t.stream, t.topic, groupName)
	if err != nil {
		return wire.Identifier{}, fmt.Errorf("create group on %s: %w", t.name, err)
	}
	return wire.NumericID(g.ID), nil
}
