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
	rf             uint8          // replication_factor; 0: the default
	workers        uint32         // producers (and consumers); 0: one per partition
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
			var opts wire.Options
			if w.rf > 0 {
				opts = wire.Options{{Key: wire.OptReplicationFactor, Kind: wire.KindUint8, Value: []byte{w.rf}}}
			}
			d, err := c.CreateTopic(wire.NumericID(s.ID), "chaos", w.partitions, opts)
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
	workers := w.workers
	if workers == 0 || workers > w.partitions {
		workers = w.partitions
	}
	var wg sync.WaitGroup
	for i := range workers {
		var mine []uint32 // partitions i, i+workers, ...
		for p := i; p < w.partitions; p += workers {
			mine = append(mine, p)
		}
		wg.Go(func() { w.produce(mine, stop) })
		wg.Go(func() { w.consumeAll(mine, stop) })
	}
	wg.Wait()
}

// produce sends batches to its partitions in turn.
func (w *workload) produce(parts []uint32, stop <-chan struct{}) {
	k := newClusterClient(w.addrs)
	defer k.Close()
	for seq := uint64(0); ; seq++ {
		select {
		case <-stop:
			return
		default:
		}
		partition := parts[seq%uint64(len(parts))]
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

// consumeAll runs one consumer over its partitions in turn.
func (w *workload) consumeAll(parts []uint32, stop <-chan struct{}) {
	k := newClusterClient(w.addrs)
	defer k.Close()
	cs := make([]consumerState, len(parts))
	for i := 0; ; i = (i + 1) % len(parts) {
		select {
		case <-stop:
			return
		case <-time.After(consumerPause):
		}
		if err := w.consume(k, parts[i], &cs[i]); err != nil {
			time.Sleep(errorPause)
		}
	}
}

// consumerState is one partition's consumer progress.
type consumerState struct {
	next, stored uint64
	hasStored    bool
}

// consume reads the partition in order from where s got to, stores its
// progress with quorum acknowledgement, and checks that the stored offset
// it reads back never falls below one the set acknowledged.
func (w *workload) consume(k *client.Cluster, partition uint32, s *consumerState) error {
	return k.OnPartition(w.stream, w.topic, partition, func(c *client.Client) error {
		o, found, err := c.GetOffset(client.Consumer(consumerID), w.stream, w.topic, partition)
		if err != nil {
			return err
		}
		if s.hasStored && (!found || o.StoredOffset < s.stored) {
			w.offsetBackward.Add(1)
		}
		_, msgs, err := c.PollMessages(client.Consumer(consumerID), w.stream, w.topic, &partition, wire.PollOffset, s.next, verifyChunk, false)
		if err != nil || len(msgs) == 0 {
			return err
		}
		last := msgs[len(msgs)-1].Offset
		if err := c.StoreOffset(client.Consumer(consumerID), w.stream, w.topic, partition, last); err != nil {
			return err
		}
		s.next, s.stored, s.hasStored = last+1, last, true
		w.offsetStores.Add(1)
		return nil
	})
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
