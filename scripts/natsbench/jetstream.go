package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Headers of JetStream atomic batch publishing (ADR-50).
const (
	hdrBatchID       = "Nats-Batch-Id"
	hdrBatchSequence = "Nats-Batch-Sequence"
	hdrBatchCommit   = "Nats-Batch-Commit"
)

func streamName(i int) string { return "bench-" + strconv.Itoa(i) }
func subject(i int) string    { return "bench." + strconv.Itoa(i) }

type conn struct {
	nc *nats.Conn
	js jetstream.JetStream
}

func dial(p *params) (conn, error) {
	nc, err := nats.Connect(p.URL, nats.Timeout(requestTimeout))
	if err != nil {
		return conn{}, err
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(2*p.MessagesPerBatch))
	if err != nil {
		nc.Close()
		return conn{}, err
	}
	return conn{nc: nc, js: js}, nil
}

// freshStream deletes stream i if it exists and creates it: file storage,
// one replica, atomic batches allowed.
func freshStream(c conn, i int) (jetstream.Stream, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	if err := c.js.DeleteStream(ctx, streamName(i)); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("delete stream: %w", err)
	}
	return c.js.CreateStream(ctx, jetstream.StreamConfig{Name: streamName(i), Subjects: []string{subject(i)},
		Storage: jetstream.FileStorage, Replicas: 1, AllowAtomicPublish: true})
}

// producer publishes batches to its own stream and checks that the stream
// sequences it gets back are contiguous.
type producer struct {
	c       conn
	p       *params
	actor   int
	payload []byte
	futures []jetstream.PubAckFuture
	next    uint64 // the stream sequence the next message must get
	batches uint64
}

func newProducer(p *params, i int) (*producer, error) {
	c, err := dial(p)
	if err != nil {
		return nil, err
	}
	if _, err := freshStream(c, i); err != nil {
		c.nc.Close()
		return nil, err
	}
	payload := make([]byte, p.MessageSize)
	for j := range payload {
		payload[j] = byte('a' + (i+j)%26)
	}
	return &producer{c: c, p: p, actor: i, payload: payload, next: 1}, nil
}

func (pr *producer) close() { pr.c.nc.Close() }

func (pr *producer) step() (uint64, error) {
	pr.batches++
	if pr.p.Atomic {
		return pr.atomicBatch()
	}
	return pr.asyncBatch()
}

// asyncBatch publishes the batch with every message in flight at once and
// waits for all acknowledgements: the default JetStream way to stream.
func (pr *producer) asyncBatch() (uint64, error) {
	pr.futures = pr.futures[:0]
	for range pr.p.MessagesPerBatch {
		f, err := pr.c.js.PublishMsgAsync(&nats.Msg{Subject: subject(pr.actor), Data: pr.payload})
		if err != nil {
			return 0, err
		}
		pr.futures = append(pr.futures, f)
	}
	for _, f := range pr.futures {
		select {
		case ack := <-f.Ok():
			if ack.Sequence != pr.next {
				return 0, fmt.Errorf("stream sequence %d, want %d", ack.Sequence, pr.next)
			}
			pr.next++
		case err := <-f.Err():
			return 0, err
		case <-time.After(requestTimeout):
			return 0, errors.New("no publish acknowledgement")
		}
	}
	return uint64(len(pr.futures)), nil
}

// atomicBatch publishes the batch as one atomic batch: the first message as
// a request (the server answers an empty ack or an error), the middle ones
// without a reply, the last one with the commit header, answered by the
// batch's publish acknowledgement.
func (pr *producer) atomicBatch() (uint64, error) {
	n := pr.p.MessagesPerBatch
	id := strconv.Itoa(pr.actor) + "-" + strconv.FormatUint(pr.batches, 10)
	for seq := 1; seq <= n; seq++ {
		m := nats.NewMsg(subject(pr.actor))
		m.Data = pr.payload
		m.Header.Set(hdrBatchID, id)
		m.Header.Set(hdrBatchSequence, strconv.Itoa(seq))
		switch {
		case seq == n:
			m.Header.Set(hdrBatchCommit, "1")
			return uint64(n), pr.commit(m)
		case seq == 1:
			reply, err := pr.c.nc.RequestMsg(m, requestTimeout)
			if err != nil {
				return 0, fmt.Errorf("batch start: %w", err)
			}
			if len(reply.Data) > 0 {
				return 0, fmt.Errorf("batch start refused: %s", reply.Data)
			}
		default:
			if err := pr.c.nc.PublishMsg(m); err != nil {
				return 0, err
			}
		}
	}
	return 0, errors.New("empty batch")
}

// batchAck is the publish acknowledgement of a committed batch.
type batchAck struct {
	Stream string `json:"stream"`
	Seq    uint64 `json:"seq"`
	Count  uint64 `json:"count"`
	Error  *struct {
		Code        int    `json:"code"`
		ErrCode     int    `json:"err_code"`
		Description string `json:"description"`
	} `json:"error"`
}

func (pr *producer) commit(m *nats.Msg) error {
	reply, err := pr.c.nc.RequestMsg(m, requestTimeout)
	if err != nil {
		return fmt.Errorf("batch commit: %w", err)
	}
	var ack batchAck
	if err := json.Unmarshal(reply.Data, &ack); err != nil {
		return fmt.Errorf("batch commit reply %q: %w", reply.Data, err)
	}
	if ack.Error != nil {
		return fmt.Errorf("batch commit refused: %d %s", ack.Error.ErrCode, ack.Error.Description)
	}
	n := uint64(pr.p.MessagesPerBatch)
	if ack.Count != n || ack.Seq != pr.next+n-1 {
		return fmt.Errorf("batch committed %d messages ending at %d, want %d ending at %d", ack.Count, ack.Seq, n, pr.next+n-1)
	}
	pr.next += n
	return nil
}

// consumer reads its own prefilled stream from the start with an ordered
// (ephemeral, unacknowledged) consumer, a batch per fetch, checking that
// sequences are contiguous and payloads are what was written; at the end it
// starts over, so the data stays warm as in iggy-bench.
type consumer struct {
	c      conn
	p      *params
	stream jetstream.Stream
	cons   jetstream.Consumer
	total  uint64 // messages in the stream
	next   uint64 // the stream sequence the next message must have
}

func newConsumer(p *params, i int) (*consumer, error) {
	c, err := dial(p)
	if err != nil {
		return nil, err
	}
	cs := &consumer{c: c, p: p}
	if err := cs.prepare(i); err != nil {
		c.nc.Close()
		return nil, err
	}
	return cs, cs.rewind()
}

// prepare reuses stream i when it already holds enough messages, otherwise
// writes them (unmeasured).
func (cs *consumer) prepare(i int) error {
	need := uint64(cs.p.PrefillBatches) * uint64(cs.p.MessagesPerBatch)
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	if s, err := cs.c.js.Stream(ctx, streamName(i)); err == nil {
		if info, err := s.Info(ctx); err == nil && info.State.Msgs >= need && info.State.FirstSeq == 1 {
			cs.stream, cs.total = s, info.State.Msgs
			return nil
		}
	}
	pr, err := newProducer(cs.p, i)
	if err != nil {
		return err
	}
	defer pr.close()
	for range cs.p.PrefillBatches {
		if _, err := pr.asyncBatch(); err != nil {
			return fmt.Errorf("prefill: %w", err)
		}
	}
	s, err := cs.c.js.Stream(ctx, streamName(i))
	cs.stream, cs.total = s, need
	return err
}

func (cs *consumer) rewind() error {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	cons, err := cs.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return err
	}
	cs.cons, cs.next = cons, 1
	return nil
}

func (cs *consumer) close() { cs.c.nc.Close() }

func (cs *consumer) step() (uint64, error) {
	if cs.next > cs.total {
		if err := cs.rewind(); err != nil {
			return 0, err
		}
	}
	want := min(uint64(cs.p.MessagesPerBatch), cs.total-cs.next+1)
	batch, err := cs.cons.Fetch(int(want), jetstream.FetchMaxWait(requestTimeout))
	if err != nil {
		return 0, err
	}
	got := uint64(0)
	for m := range batch.Messages() {
		meta, err := m.Metadata()
		if err != nil {
			return 0, err
		}
		if meta.Sequence.Stream != cs.next {
			return 0, fmt.Errorf("stream sequence %d, want %d", meta.Sequence.Stream, cs.next)
		}
		if len(m.Data()) != cs.p.MessageSize {
			return 0, fmt.Errorf("sequence %d: %d payload bytes, want %d", cs.next, len(m.Data()), cs.p.MessageSize)
		}
		cs.next++
		got++
	}
	if err := batch.Error(); err != nil {
		return 0, err
	}
	if got != want {
		return 0, fmt.Errorf("fetched %d messages, want %d", got, want)
	}
	return got, nil
}
