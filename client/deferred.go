package client

import (
	"fmt"
	"sync"
	"time"

	"github.com/iggygo/iggy/wire"
)

// DeferredPoll is a deferred poll (code 106): the server answers when
// minCount messages are there, the reply reaches maxBytes (0: no cap) or
// wait runs out, with whatever arrived. When cancel is closed before the
// reply, CancelDeferredPoll (108) goes out on the same connection: the
// server answers the poll at once and then the cancel, whose reply is read
// here too.
func (c *Client) DeferredPoll(cancel <-chan struct{}, q wire.PollMessagesRequest, wait time.Duration,
	minCount, maxBytes uint32) (uint64, []ReceivedMessage, error) {
	if err := checkIDs(q.Consumer.ID, q.StreamID, q.TopicID); err != nil {
		return 0, nil, err
	}
	body := encode(wire.DeferredPollRequest{Poll: q, WaitMicros: uint64(wait / time.Microsecond),
		MinCount: minCount, MaxBytes: maxBytes}.Encode)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return 0, nil, ErrClosed
	}
	h, err := c.stampLocked(wire.OpNonReplicated, wire.CmdDeferredPoll)
	if err != nil {
		return 0, nil, err
	}
	if err := c.conn.SetDeadline(time.Now().Add(wait + c.opts.RequestTimeout)); err != nil {
		c.closeLocked()
		return 0, nil, fmt.Errorf("iggy: set deadline: %w", err)
	}
	if err := writeRequest(c.conn, newRequest(h, body)); err != nil {
		c.closeLocked()
		return 0, nil, fmt.Errorf("iggy: write request: %w", err)
	}
	cancelled, r, err := c.awaitDeferred(cancel, h)
	if err != nil {
		c.closeLocked()
		return 0, nil, err
	}
	if cancelled {
		if bw, ok := c.conn.(besideWriter); ok {
			bw.NextReply()
		}
		if cr, err := readFrame(c.conn, nil); err != nil || cr.evicted != nil {
			c.closeLocked()
			return 0, nil, fmt.Errorf("iggy: reading the cancel's reply: %v", err)
		}
	}
	if r.evicted != nil {
		c.closeLocked()
		return 0, nil, r.evicted
	}
	if err := checkEcho(h, r.header); err != nil {
		c.closeLocked()
		return 0, nil, err
	}
	rb, code := wire.SplitReplyBody(r.header, r.body)
	if code != wire.OK {
		c.closeLocked()
		return 0, nil, fmt.Errorf("%w: malformed deferred poll reply", ErrProtocol)
	}
	if rb.Result != wire.OK {
		return 0, nil, &Error{Code: rb.Result}
	}
	return decodePoll(rb.Payload)
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
