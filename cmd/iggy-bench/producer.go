package main

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// Transient results are replayed like the SDK does, a bounded number of times.
const (
	transientRetriesMax    = 200
	transientRetryInterval = 50 * time.Millisecond
)

// sender sends one prebuilt batch again and again. Building the record once
// keeps the client's CPU off the measurement on a machine the server shares;
// the server stamps offsets and timestamps into its own copy, and message ids
// are not deduplicated, so a repeated batch is as good as a fresh one.
type sender struct {
	c    *client.Client
	body []byte // an encoded SendMessagesRequest
	// next is the offset the next pinned send must get (checked when pinned).
	next   uint64
	pinned bool
	count  uint64
	// idempotent: body is a SendProducerMessages body whose first_sequence
	// (seqAt) advances by count per send (--idempotent).
	idempotent bool
	seq        uint64
}

// seqAt is where first_sequence sits in a SendProducerMessages body.
const seqAt = 8 + 4

// newSender builds the batch: messageSize bytes of a pattern that names the
// actor, so a reader can tell the data is ours.
func newSender(c *client.Client, p *params, t target, part wire.Partitioning, actor int) (*sender, error) {
	msgs := make([]batch.Message, p.MessagesPerBatch)
	payload := make([]byte, p.MessageSize)
	for i := range payload {
		payload[i] = byte('a' + (actor+i)%26)
	}
	now := uint64(time.Now().UnixMicro())
	for i := range msgs {
		var id [16]byte
		binary.LittleEndian.PutUint64(id[0:], uint64(actor)+1)
		binary.LittleEndian.PutUint64(id[8:], uint64(i)+1)
		msgs[i] = batch.Message{ID: id, OriginTimestamp: now, Payload: payload}
	}
	rec, code := batch.Build(msgs)
	if code != wire.OK {
		// params.validate bounds the batch, so this is a bug here.
		panic(fmt.Sprintf("building a batch of %d x %d bytes: %s", p.MessagesPerBatch, p.MessageSize, code.Name()))
	}
	req := wire.SendMessagesRequest{StreamID: t.stream, TopicID: t.topic, Partitioning: part,
		MessagesCount: uint32(len(msgs)), Batch: rec}
	s := &sender{c: c, count: uint64(len(msgs)), pinned: part.Kind == wire.PartitioningPartitionID}
	var w wire.Writer
	if !p.Idempotent {
		req.Encode(&w)
		s.body = w.Buf
		return s, nil
	}
	id, err := c.NextProducerID(t.stream, t.topic)
	if err != nil {
		return nil, fmt.Errorf("producer id: %w", err)
	}
	wire.SendProducerMessagesRequest{ProducerID: id.ID, Epoch: id.Epoch, Send: req}.Encode(&w)
	s.body, s.idempotent = w.Buf, true
	return s, nil
}

// op and code are the operation and command of the sender's requests.
func (s *sender) op() (wire.Operation, wire.Command) {
	if s.idempotent {
		return wire.OpSendProducerMessages, wire.CmdSendProducerMessages
	}
	return wire.OpSendMessages, wire.CmdSendMessages
}

// send sends the batch once and returns the partition it landed in; an
// idempotent sender numbers it after the previous one.
func (s *sender) send() (uint32, error) {
	if s.idempotent {
		binary.LittleEndian.PutUint64(s.body[seqAt:], s.seq)
		s.seq += s.count
	}
	op, code := s.op()
	for range transientRetriesMax {
		h, body, err := s.c.Do(op, code, s.body)
		if err != nil {
			return 0, err
		}
		rb, code := wire.SplitReplyBody(h, body)
		if code != wire.OK {
			return 0, fmt.Errorf("malformed send reply")
		}
		if rb.Result == wire.TransientNotCommitted || rb.Result == wire.TransientNotAccepted {
			time.Sleep(transientRetryInterval)
			continue
		}
		if rb.Result != wire.OK {
			return 0, &client.Error{Code: rb.Result}
		}
		return s.confirm(rb.Payload)
	}
	return 0, fmt.Errorf("send still transient after %d replays", transientRetriesMax)
}

// confirm checks the confirmation: a pinned producer is its partition's only
// writer, so its batches must get contiguous offsets.
func (s *sender) confirm(payload []byte) (uint32, error) {
	confs, code := wire.DecodeSendConfirmations(payload)
	if code != wire.OK || len(confs) == 0 {
		return 0, fmt.Errorf("send reply without a confirmation")
	}
	c := confs[0]
	if s.pinned {
		if s.next != 0 && c.BaseOffset != s.next {
			return 0, fmt.Errorf("partition %d: batch got offset %d, want %d", c.PartitionID, c.BaseOffset, s.next)
		}
		s.next = c.BaseOffset + s.count
	}
	return c.PartitionID, nil
}

// producer is one producing actor: pinned ones cycle over their stream's
// partitions, balanced ones let the server pick.
type producer struct {
	senders []*sender
	turn    int
	p       *params
	batches uint64 // measured batches sent, for --total-messages
	target  uint64 // batches to send when counting; 0 with --duration
}

func newProducer(c *client.Client, p *params, t target, actor int, balanced bool) (*producer, error) {
	pr := &producer{p: p}
	parts := []wire.Partitioning{{Kind: wire.PartitioningBalanced}}
	if !balanced {
		parts = parts[:0]
		for part := range t.partitions {
			parts = append(parts, wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: uint32(part)})
		}
	}
	for _, part := range parts {
		s, err := newSender(c, p, t, part, actor)
		if err != nil {
			return nil, err
		}
		pr.senders = append(pr.senders, s)
	}
	if p.TotalMessages > 0 {
		pr.target = p.batchesPerActor()
	}
	return pr, nil
}

func (pr *producer) step() (uint64, error) {
	s := pr.senders[pr.turn]
	pr.turn = (pr.turn + 1) % len(pr.senders)
	if _, err := s.send(); err != nil {
		return 0, err
	}
	return s.count, nil
}

func (pr *producer) measured(uint64) { pr.batches++ }
func (pr *producer) rewind() error   { return nil }
func (pr *producer) finished() bool  { return pr.target > 0 && pr.batches >= pr.target }
