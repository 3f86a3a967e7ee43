package main

import (
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// Shape of the workload.
const (
	batchMessages     = 10                     // messages per acknowledged send
	payloadBytes      = 100                    // bytes per message
	errorPause        = 100 * time.Millisecond // after a failed call, before the next
	consumerPause     = 20 * time.Millisecond  // between a consumer's polls
	verifyChunk       = 1000                   // messages per verification poll
	consumerID        = 7                      // the consumer whose offsets must never go back
	requestTimeout    = 5 * time.Second
	transientBudget   = 10 * time.Second
	settleTimeout     = 60 * time.Second // the set serves again after the last restart
	settlePollPeriod  = 200 * time.Millisecond
	ackedBatchesLimit = 1 << 20 // bound on recorded batches per partition
)

// ackedBatch is a send the set acknowledged: its first offset and the
// message ids it carried.
type ackedBatch struct {
	offset uint64
	ids    [][16]byte
}

// workload runs one producer and one consumer per partition through
// routing clients of the set.
type workload struct {
	addrs          []string
	stream, topic  wire.Identifier
	partitions     uint32
	acked          [][]ackedBatch // by partition
	mu             sync.Mutex
	sendErrors     atomic.Uint64
	offsetBackward atomic.Uint64
	offsetStores   atomic.Uint64
}

func newClusterClient(addrs []string) *client.Cluster {
	return client.NewCluster(addrs, "iggy", "iggy", client.Options{RequestTimeout: requestTimeout, TransientBudget: transientBudget})
}

// setUp creates the stream and topic, retrying while the set settles.
func (w *workload) setUp() error {
	k := newClusterClient(w.addrs)
	defer k.Close()
	deadline := time.Now().Add(settleTimeout)
	for {
		err := k.Any(func(c *client.Client) error {
			s, err := c.CreateStream("chaos")
			if err != nil {
				return err
			}
			d, err := c.CreateTopic(wire.NumericID(s.ID), "chaos", w.partitions, nil)
			w.stream, w.topic = wire.NumericID(s.ID), wire.NumericID(d.Topic.ID)
			return err
		})
		if err == nil {
			w.acked = make([][]ackedBatch, w.partitions)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("create the stream and topic: %w", err)
		}
		time.Sleep(settlePollPeriod)
	}
}

// run produces and consumes until stop is closed.
func (w *workload) run(stop <-chan struct{}) {
	var wg sync.WaitGroup
	for p := range w.partitions {
		wg.Go(func() { w.produce(p, stop) })
		wg.Go(func() { w.consume(p, stop) })
	}
	wg.Wait()
}

func (w *workload) produce(partition uint32, stop <-chan struct{}) {
	k := newClusterClient(w.addrs)
	defer k.Close()
	for seq := uint64(0); ; seq++ {
		select {
		case <-stop:
			return
		default:
		}
		msgs := make([]client.Message, batchMessages)
		ids := make([][16]byte, batchMessages)
		for i := range msgs {
			binary.LittleEndian.PutUint32(ids[i][0:], partition)
			binary.LittleEndian.PutUint64(ids[i][8:], seq*batchMessages+uint64(i)+1)
			msgs[i] = client.Message{ID: ids[i], Payload: make([]byte, payloadBytes)}
		}
		offset, err := k.SendMessages(w.stream, w.topic, partition, msgs)
		if err != nil {
			w.sendErrors.Add(1)
			time.Sleep(errorPause)
			continue
		}
		w.mu.Lock()
		if len(w.acked[partition]) < ackedBatchesLimit {
			w.acked[partition] = append(w.acked[partition], ackedBatch{offset: offset, ids: ids})
		}
		w.mu.Unlock()
	}
}

// consume reads the partition in order, stores its progress with quorum
// acknowledgement, and checks that the stored offset it reads back never
// falls below one the set acknowledged.
func (w *workload) consume(partition uint32, stop <-chan struct{}) {
	k := newClusterClient(w.addrs)
	defer k.Close()
	var next, stored uint64
	var hasStored bool
	for {
		select {
		case <-stop:
			return
		case <-time.After(consumerPause):
		}
		err := k.OnPartition(w.stream, w.topic, partition, func(c *client.Client) error {
			o, found, err := c.GetOffset(client.Consumer(consumerID), w.stream, w.topic, partition)
			if err != nil {
				return err
			}
			if hasStored && (!found || o.StoredOffset < stored) {
				w.offsetBackward.Add(1)
			}
			_, msgs, err := c.PollMessages(client.Consumer(consumerID), w.stream, w.topic, &partition, wire.PollOffset, next, verifyChunk, false)
			if err != nil || len(msgs) == 0 {
				return err
			}
			last := msgs[len(msgs)-1].Offset
			if err := c.StoreOffset(client.Consumer(consumerID), w.stream, w.topic, partition, last); err != nil {
				return err
			}
			next, stored, hasStored = last+1, last, true
			w.offsetStores.Add(1)
			return nil
		})
		if err != nil {
			time.Sleep(errorPause)
		}
	}
}

// verification is what the end of a run found.
type verification struct {
	acked, present, lost uint64
	firstLoss            string
}

// verify reads every partition through the set and looks for every
// acknowledged message at its acknowledged offset.
func (w *workload) verify() (verification, error) {
	k := newClusterClient(w.addrs)
	defer k.Close()
	var v verification
	for p := range w.partitions {
		got, err := w.readAll(k, p)
		if err != nil {
			return v, err
		}
		for _, b := range w.acked[p] {
			for i, id := range b.ids {
				v.acked++
				at := b.offset + uint64(i)
				if at < uint64(len(got)) && got[at] == id {
					v.present++
					continue
				}
				v.lost++
				if v.firstLoss == "" {
					v.firstLoss = fmt.Sprintf("partition %d offset %d (the partition holds %d messages)", p, at, len(got))
				}
			}
		}
	}
	return v, nil
}

// readAll is the ids of a partition's messages by offset, retried while
// the set settles.
func (w *workload) readAll(k *client.Cluster, partition uint32) ([][16]byte, error) {
	deadline := time.Now().Add(settleTimeout)
	var ids [][16]byte
	for {
		_, msgs, err := k.PollMessages(client.Consumer(consumerID+1), w.stream, w.topic, partition, wire.PollOffset, uint64(len(ids)), verifyChunk, false)
		switch {
		case err != nil && time.Now().After(deadline):
			return nil, fmt.Errorf("read partition %d from offset %d: %w", partition, len(ids), err)
		case err != nil:
			time.Sleep(settlePollPeriod)
		case len(msgs) == 0:
			return ids, nil
		default:
			for _, m := range msgs {
				if m.Offset != uint64(len(ids)) {
					return nil, fmt.Errorf("partition %d: offset %d where %d was due", partition, m.Offset, len(ids))
				}
				ids = append(ids, m.ID)
			}
		}
	}
}
