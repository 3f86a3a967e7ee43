package server

import (
	"sync"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/internal/assert"
)

// The replica plane of a node of a replica set: the links
// (adapters/replicalink) hand every message they decode to a PeerInbox
// from their reader goroutines; the front loop steps them as it steps
// client input, and hands what its node sends (Ready.Peers) to the bus,
// which queues without blocking.

// peerInboxCapacity bounds the decoded peer messages waiting for the loop.
// A full inbox holds the link readers back (TCP then pushes back on the
// peer) rather than dropping: a dropped prepare costs a repair round trip.
const peerInboxCapacity = 4096

// PeerBus sends a node's messages to its peers without blocking; it may
// drop one (a link down or its queue full), as the network may.
type PeerBus interface {
	Send(m node.PeerMessage) bool
}

// PeerInbox is the bounded queue between the replica links and the loop.
type PeerInbox struct {
	ch     chan node.PeerMessage
	closed chan struct{}
	once   sync.Once
}

// NewPeerInbox makes an empty inbox.
func NewPeerInbox() *PeerInbox {
	return &PeerInbox{ch: make(chan node.PeerMessage, peerInboxCapacity), closed: make(chan struct{})}
}

// Deliver queues m for the loop, waiting while the inbox is full; once the
// inbox is closed (the loop ended) it drops m, so a link reader never
// waits for good.
func (p *PeerInbox) Deliver(m node.PeerMessage) {
	select {
	case p.ch <- m:
	case <-p.closed:
	}
}

// Close releases every Deliver waiting now and later.
func (p *PeerInbox) Close() { p.once.Do(func() { close(p.closed) }) }

// AttachPeers makes the front loop a replica of a set: it steps what in
// receives and sends its node's peer messages through bus.
func (l *Loop) AttachPeers(in *PeerInbox, bus PeerBus) {
	assert.That(l.jobs != nil, "peers attach to the front loop only")
	l.peerIn, l.peerBus = in.ch, bus
}

// sendPeers hands a Ready's peer messages to the bus.
func (l *Loop) sendPeers(msgs []node.PeerMessage) {
	if l.peerBus == nil {
		if len(msgs) != 0 {
			assert.Failf("a node outside a replica set sent %d peer messages", len(msgs))
		}
		return
	}
	for _, m := range msgs {
		l.peerBus.Send(m) // a drop is a lost packet: the protocol retransmits
	}
}
