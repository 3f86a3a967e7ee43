package node

import (
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// handleFrame decodes a frame's header and routes it by operation. Every path
// ends in exactly one reply, eviction or silent drop, or marks c busy until
// a commit, disk read or append answers it.
func (n *Node) handleFrame(c *conn, frame []byte) {
	h, ok := n.decodeHeader(c, frame)
	if !ok {
		return
	}
	c.busy = true
	body := frame[wire.HeaderSize:]
	if !wire.RequestChecksumValid(h, body) {
		n.deny(c, h, wire.InvalidFormat)
		return
	}
	switch op := h.Operation; {
	case op == wire.OpRegister:
		n.register(c, h, body)
	case op == wire.OpNonReplicated:
		n.nonReplicated(c, h, body)
	case op == wire.OpLogout:
		n.logout(c, h)
	case !c.bound:
		n.evict(c, h, wire.EvictNoSession)
	case !wire.OperationClientAllowed(op):
		n.evict(c, h, wire.EvictInvalidRequestOperation)
	case op.Metadata():
		n.metadataRequest(c, h, body)
	case op.Partition():
		if !n.denyWithoutEvidence(c, h) {
			n.partitionRequest(c, h, body)
		}
	default:
		n.evict(c, h, wire.EvictInvalidRequestOperation)
	}
}

// decodeHeader decodes frame's header; false when the frame is answered
// by closing the connection (done here) or by no reply at all
// (protocol-framing.md 4.9).
func (n *Node) decodeHeader(c *conn, frame []byte) (wire.RequestHeader, bool) {
	h, verdict := wire.DecodeRequestHeader(frame)
	switch verdict {
	case wire.VerdictClose:
		n.ready.Replies = append(n.ready.Replies, bus.Reply{Conn: c.id, Close: true})
		return h, false
	case wire.VerdictDrop, wire.VerdictSkip:
		return h, false
	}
	return h, true
}

// replyHeader starts a reply to h with the node's commit position.
func (n *Node) replyHeader(h wire.RequestHeader, op uint64) wire.ReplyHeader {
	r := wire.ReplyTo(h)
	r.Op = op
	if n.mg.Replica() != nil {
		r.Commit = n.mg.Replica().Commit()
	}
	return r
}

// deny answers with a header status and no body (shape A).
func (n *Node) deny(c *conn, h wire.RequestHeader, code wire.Code) {
	n.reply(c, n.denialFrame(h, code))
}

func (n *Node) denialFrame(h wire.RequestHeader, code wire.Code) []byte {
	r := n.replyHeader(h, 0)
	if h.Operation == wire.OpNonReplicated {
		r.Op = h.Session
	}
	return wire.DenialFrame(r, code)
}

// reject answers a result-framed operation with one result entry (shape B).
func (n *Node) reject(c *conn, h wire.RequestHeader, code wire.Code) {
	n.reply(c, wire.RejectionFrame(n.replyHeader(h, 0), code))
}

// raw answers with status 0 and the payload as the body (shape C).
func (n *Node) raw(c *conn, h wire.RequestHeader, payload ...[]byte) {
	n.reply(c, wire.RawFrame(n.replyHeader(h, h.Session), payload...)...)
}

// framed answers with status 0, an empty result section and the payload (shape B).
func (n *Node) framed(c *conn, h wire.RequestHeader, op uint64, payload ...[]byte) {
	n.reply(c, wire.ResultFrame(n.replyHeader(h, op), payload...)...)
}

// evict ends the session with reason; the SDK closes the socket itself.
func (n *Node) evict(c *conn, h wire.RequestHeader, reason wire.EvictionReason) {
	e := wire.Eviction{Client: h.Client, Reason: reason}
	if reason == wire.EvictIncompatibleProtocol {
		e = wire.IncompatibleProtocolEviction(h.Client)
	}
	n.reply(c, e.Bytes())
}
