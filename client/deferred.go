package client

import (
	"fmt"
	"sync"
	"time"

	"github.com/iggygo/iggy/wire"
)

// PollOptions are a read's limits and commit policy (MSG-7, MSG-8): the
// server answers when MinCount messages are there, the reply reaches
// MaxBytes (0: no cap) or Wait runs out (0: at once), with whatever
// arrived. Incarnation, when not 0, is the partition incarnation the start
// belongs to (a Continuation's); the server refuses another with 4111.
type PollOptions struct {
	Wait        time.Duration
	MinCount    uint32
	MaxBytes    uint32
	Commit      wire.CommitPolicy
	Incarnation uint64
}

// Polled is the answer to a poll with PollOptions.
type Polled struct {
	CurrentOffset uint64
	Messages      []ReceivedMessage
	Positions     wire.PollPositions
}

// Continuation is where the next poll of the partition starts: poll from
// offset Continuation with Incarnation set (MSG-3, MSG-5).
func (p Polled) Continuation() (offset, incarnation uint64) {
	return p.Positions.Continuation, p.Positions.Incarnation
}

// Checkpoint is the offset to commit for what p holds and its incarnation,
// for StoreCheckpoint; ok is false when p holds no message (MSG-4).
func (p Polled) Checkpoint() (offset, incarnation uint64, ok bool) {
	return p.Positions.Checkpoint, p.Positions.Incarnation, p.Positions.Checkpoint != wire.NoCheckpoint
}

// DeferredPoll is a deferred poll (code 106) under the Manual policy; see
// Poll.
func (c *Client) DeferredPoll(cancel <-chan struct{}, q wire.PollMessagesRequest, wait time.Duration,
	minCount, maxBytes uint32) (uint64, []ReceivedMessage, error) {
	commit := wire.CommitManual
	if q.AutoCommit {
		commit = wire.CommitOnRead
	}
	p, err := c.Poll(cancel, q, PollOptions{Wait: wait, MinCount: minCount, MaxBytes: maxBytes, Commit: commit})
	return p.CurrentOffset, p.Messages, err
}

// Poll reads q with options o (code 106; q.AutoCommit is replaced by
// o.Commit). When cancel is closed before the reply, CancelDeferredPoll
// (108) goes out on the same connection: the server answers the poll at
// once and then the cancel, whose reply is read here too.
func (c *Client) Poll(cancel <-chan struct{}, q wire.PollMessagesRequest, o PollOptions) (Polled, error) {
	if err := checkIDs(q.Consumer.ID, q.StreamID, q.TopicID); err != nil {
		return Polled{}, err
	}
	q.AutoCommit = o.Commit == wire.CommitOnRead
	body := encode(wire.DeferredPollRequest{Poll: q, WaitMicros: uint64(o.Wait / time.Microsecond),
		MinCount: o.MinCount, MaxBytes: o.MaxBytes, Incarnation: o.Incarnation}.Encode)
	payload, err := c.callDeferred(cancel, wire.CmdDeferredPoll, body, o.Wait)
	if err != nil {
		return Polled{}, err
	}
	polled, pos, code := wire.DecodePolledWithPositions(payload)
	if code != wire.OK {
		return Polled{}, decodeFailed("DeferredPoll", code)
	}
	msgs, err := verifiedMessages(polled, len(payload))
	if err != nil {
		return Polled{}, err
	}
	return Polled{CurrentOffset: polled.Prefix.CurrentOffset, Messages: msgs, Positions: pos}, nil
}

// callDeferred sends a request that the server may park up to wait and
// returns its reply's payload, cancelling it (108) if cancel closes first.
func (c *Client) callDeferred(cancel <-chan struct{}, code wire.Command, body []byte, wait time.Duration) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return nil, ErrClosed
	}
	h, err := c.stampLocked(wire.OpNonReplicated, code)
	if err != nil {
		return nil, err
	}
	if err := c.conn.SetDeadline(time.Now().Add(wait + c.opts.RequestTimeout)); err != nil {
		c.closeLocked()
		return nil, fmt.Errorf("iggy: set deadline: %w", err)
	}
	if err := writeRequest(c.conn, newRequest(h, body)); err != nil {
		c.closeLocked()
		return nil, fmt.Errorf("iggy: write request: %w", err)
	}
	cancelled, r, err := c.awaitDeferred(cancel, h)
	if err != nil {
		c.closeLocked()
		return nil, err
	}
	if cancelled {
		if bw, ok := c.conn.(besideWriter); ok {
			bw.NextReply()
		}
		if cr, err := readFrame(c.conn, nil); err != nil || cr.evicted != nil {
			c.closeLocked()
			return nil, fmt.Errorf("iggy: reading the cancel's reply: %v", err)
		}
	}
	if r.evicted != nil {
		c.closeLocked()
		return nil, r.evicted
	}
	if err := checkEcho(h, r.header); err != nil {
		c.closeLocked()
		return nil, err
	}
	rb, rc := wire.SplitReplyBody(r.header, r.body)
	if rc != wire.OK {
		c.closeLocked()
		return nil, fmt.Errorf("%w: malformed reply to %s", ErrProtocol, code.Name())
	}
	if rb.Result != wire.OK {
		return nil, &Error{Code: rb.Result}
	}
	return rb.Payload, nil
}

// besideWriter is a transport that sends each request on a stream of its
// own (QUIC): a cancel goes beside the poll, and its reply is read next.
type besideWriter interface {
	WriteBeside(frame []byte) error
	NextReply()
}

// awaitDeferred reads the poll's reply while a watcher sends the cancel if
// cancel closes first; cancelled says whether it did.
func (c *Client) awaitDeferred(cancel <-chan struct{}, h wire.RequestHeader) (bool, reply, error) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var cancelled bool
	var werr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-cancel:
			ch := h
			ch.NRCode = wire.CmdCancelDeferredPoll
			cancelled = true
			req := newRequest(ch, encode(wire.CancelDeferredPollRequest{Request: h.Request}.Encode))
			if bw, ok := c.conn.(besideWriter); ok {
				werr = bw.WriteBeside(append(req.head, req.body...))
			} else {
				werr = writeRequest(c.conn, req)
			}
		case <-done:
		}
	}()
	r, err := readFrame(c.conn, nil)
	close(done)
	wg.Wait()
	if err == nil && werr != nil {
		err = fmt.Errorf("iggy: write cancel: %w", werr)
	}
	return cancelled, r, err
}

// FetchedSection is one partition's part of a grouped fetch: its status,
// and for status 0 what it read and its positions.
type FetchedSection struct {
	PartitionID uint32
	Status      wire.Code
	Polled      Polled
}

// GroupedFetch reads many partitions of one topic in one request (code
// 109, DEFP-16): q's count, min_count and max_bytes bound the whole reply,
// and each partition answers in its own section, with its own status
// (DEFP-18). Like Poll, closing cancel before the reply cancels it (108).
func (c *Client) GroupedFetch(cancel <-chan struct{}, q wire.GroupedFetchRequest) ([]FetchedSection, error) {
	if err := checkIDs(q.Consumer.ID, q.StreamID, q.TopicID); err != nil {
		return nil, err
	}
	payload, err := c.callDeferred(cancel, wire.CmdGroupedDeferredFetch, encode(q.Encode),
		time.Duration(q.WaitMicros)*time.Microsecond)
	if err != nil {
		return nil, err
	}
	sections, code := wire.DecodeGroupedFetchReply(payload)
	if code != wire.OK {
		return nil, decodeFailed("GroupedDeferredFetch", code)
	}
	out := make([]FetchedSection, 0, len(sections))
	for _, s := range sections {
		f := FetchedSection{PartitionID: s.PartitionID, Status: s.Status}
		if s.Status == wire.OK {
			msgs, err := verifiedMessages(s.Polled, len(payload))
			if err != nil {
				return nil, fmt.Errorf("partition %d: %w", s.PartitionID, err)
			}
			f.Polled = Polled{CurrentOffset: s.Polled.Prefix.CurrentOffset, Messages: msgs, Positions: s.Positions}
		}
		out = append(out, f)
	}
	return out, nil
}
