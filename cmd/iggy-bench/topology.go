package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

const (
	topicName = "topic"
	// requestTimeout bounds one round trip; a persisted 60 MB batch on a slow
	// disk stays well under it.
	requestTimeout = 60 * time.Second
	// clusterSettleTimeout bounds the wait for a fresh replica set to take
	// logins, retried every clusterSettleRetry.
	clusterSettleTimeout = 30 * time.Second
	clusterSettleRetry   = 200 * time.Millisecond
)

// target is one stream's topic as the server numbered them.
type target struct {
	name       string
	stream     wire.Identifier
	topic      wire.Identifier
	partitions int
}

// clientTransports maps --transport to the client's names.
var clientTransports = map[string]string{
	"tcp": client.TransportTCP, "quic": client.TransportQUIC, "websocket": client.TransportWebSocket,
}

// connect dials and logs in one connection; every actor has its own.
// An actor's connection reuses one reply buffer (actor): it is done with a
// reply before its next request, and allocating each reply would make the
// bench, not the server, what is measured on a machine both share.
func connect(p *params, addr string, actor bool) (*client.Client, error) {
	c, err := client.Dial(context.Background(), addr, clientOptions(p, actor))
	if err != nil {
		return nil, err
	}
	if _, err := c.LoginUser(p.Username, p.Password); err != nil {
		c.Close()
		return nil, fmt.Errorf("login as %s: %w", p.Username, err)
	}
	return c, nil
}

// connectAdmin is connect for the setup connection; a replica set that
// just started may refuse logins until root is replicated and a view
// established, so there it retries for up to clusterSettleTimeout.
func connectAdmin(p *params) (*client.Client, error) {
	deadline := time.Now().Add(clusterSettleTimeout)
	for {
		c, err := connect(p, p.addrs[0], false)
		if err == nil || !p.cluster() || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(clusterSettleRetry)
	}
}

func clientOptions(p *params, actor bool) client.Options {
	return client.Options{RequestTimeout: requestTimeout, ReuseReplyBuffer: actor, Transport: clientTransports[p.Transport]}
}

// actorAddr is the node an actor on t's partition 0 connects to: the only
// one, or in a replica set its partition's primary (pinned workloads have
// one partition per topic).
func actorAddr(p *params, t target) (string, error) {
	if !p.cluster() {
		return p.addrs[0], nil
	}
	k := client.NewCluster(p.addrs, p.Username, p.Password, clientOptions(p, false))
	defer k.Close()
	addr, err := k.PrimaryAddr(t.stream, t.topic, 0)
	if err != nil {
		return "", fmt.Errorf("route of %s: %w", t.name, err)
	}
	return addr, nil
}

func streamName(p *params, i int) string { return p.StreamPrefix + "-" + strconv.Itoa(i) }

// topicOptions sets the topic's durability (TOOL-14) and, when given, its
// size cap and segment size (size strings the server parses).
func topicOptions(p *params) wire.Options {
	opts := wire.Options{{Key: wire.OptDurability, Kind: wire.KindString, Value: []byte(p.Durability)}}
	if p.MaxTopicSize != "" {
		opts = append(opts, wire.Option{Key: wire.OptMaxTopicSize, Kind: wire.KindString, Value: []byte(p.MaxTopicSize)})
	}
	if p.SegmentSize != "" {
		opts = append(opts, wire.Option{Key: wire.OptSegmentSize, Kind: wire.KindString, Value: []byte(p.SegmentSize)})
	}
	return opts
}

// createFresh deletes the bench streams left by an earlier run and creates
// them again, empty.
func createFresh(admin *client.Client, p *params) ([]target, error) {
	targets := make([]target, p.Streams)
	for i := range targets {
		t, err := recreate(admin, p, streamName(p, i))
		if err != nil {
			return nil, err
		}
		targets[i] = t
	}
	return targets, nil
}

func recreate(admin *client.Client, p *params, name string) (target, error) {
	if _, found, err := admin.GetStream(wire.NamedID(name)); err != nil {
		return target{}, fmt.Errorf("get stream %s: %w", name, err)
	} else if found {
		if err := admin.DeleteStream(wire.NamedID(name)); err != nil {
			return target{}, fmt.Errorf("delete stream %s: %w", name, err)
		}
	}
	s, err := admin.CreateStream(name)
	if err != nil {
		return target{}, fmt.Errorf("create stream %s: %w", name, err)
	}
	stream := wire.NumericID(s.ID)
	d, err := admin.CreateTopic(stream, topicName, uint32(p.Partitions), topicOptions(p))
	if err != nil {
		return target{}, fmt.Errorf("create topic in %s: %w", name, err)
	}
	return target{name: name, stream: stream, topic: wire.NumericID(d.Topic.ID), partitions: p.Partitions}, nil
}

// existing returns the bench stream name when it already holds at least
// need messages in each of its partitions, so a consumer run can reuse
// what an earlier producer run wrote.
func existing(admin *client.Client, p *params, name string, need uint64) (target, bool, error) {
	s, found, err := admin.GetStream(wire.NamedID(name))
	if err != nil || !found {
		return target{}, false, err
	}
	stream := wire.NumericID(s.Stream.ID)
	d, found, err := admin.GetTopic(stream, wire.NamedID(topicName))
	if err != nil || !found || len(d.Partitions) != p.Partitions {
		return target{}, false, err
	}
	for _, part := range d.Partitions {
		if part.MessagesCount < need {
			return target{}, false, nil
		}
	}
	return target{name: name, stream: stream, topic: wire.NumericID(d.Topic.ID), partitions: p.Partitions}, true, nil
}

// prepareForReading makes every bench stream hold at least batches batches
// in each partition, writing (unmeasured) only where data is missing.
func prepareForReading(admin *client.Client, p *params, batches uint64) ([]target, error) {
	need := batches * uint64(p.MessagesPerBatch)
	targets := make([]target, p.Streams)
	var fill []target
	for i := range targets {
		t, ok, err := existing(admin, p, streamName(p, i), need)
		if err != nil {
			return nil, err
		}
		if !ok {
			if t, err = recreate(admin, p, streamName(p, i)); err != nil {
				return nil, err
			}
			fill = append(fill, t)
		}
		targets[i] = t
	}
	return targets, prefill(p, fill, batches)
}

// prefill writes batches batches into every partition of targets, one
// connection per stream, at most p.Actors at once.
func prefill(p *params, targets []target, batches uint64) error {
	if len(targets) == 0 {
		return nil
	}
	sem := make(chan struct{}, p.Actors)
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = fillOne(p, t, batches)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func fillOne(p *params, t target, batches uint64) error {
	addr, err := actorAddr(p, t)
	if err != nil {
		return err
	}
	c, err := connect(p, addr, true)
	if err != nil {
		return err
	}
	defer c.Close()
	for part := range t.partitions {
		s, err := newSender(c, p, t, wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: uint32(part)}, 0)
		if err != nil {
			return fmt.Errorf("prefill %s partition %d: %w", t.name, part, err)
		}
		for range batches {
			if _, err := s.send(); err != nil {
				return fmt.Errorf("prefill %s partition %d: %w", t.name, part, err)
			}
		}
	}
	return nil
}

// deleteStreams removes the bench streams (--cleanup).
func deleteStreams(admin *client.Client, targets []target) error {
	var errs []error
	for _, t := range targets {
		if err := admin.DeleteStream(t.stream); err != nil {
			errs = append(errs, fmt.Errorf("delete %s: %w", t.name, err))
		}
	}
	return errors.Join(errs...)
}
