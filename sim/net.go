package sim

import (
	"math"

	"github.com/iggygo/iggy/io/bus"
)

// linksMax bounds the connections a run opens (clients reconnect after
// every reset, timeout and crash).
const linksMax = 1 << 20

// delivery is one thing in flight on a link: a frame, or the link's open
// or close as the node sees them.
type delivery struct {
	at    uint64
	frame []byte
	open  bool
	close bool
	att   *attempt // the attempt a frame carries
}

// link is one client connection: two FIFO queues with delays (TCP keeps
// order), belonging to one node epoch. Loss is modelled as a reset: the
// link breaks, what was in flight is gone, and both ends learn it later.
// The network never duplicates: a duplicate request is a client retry.
type link struct {
	id       bus.ConnID
	client   *client
	host     *host
	epoch    int
	toNode   []delivery
	toClient []delivery
	lastNode uint64 // delivery tick of the last thing queued to the node
	lastCli  uint64 // and to the client
	// att is the request in flight on this link, kept after the client
	// abandons it, so a late reply still tells the oracles the outcome.
	att *attempt
	// clientGone: the client closed or saw a reset; replies are only captured.
	clientGone bool
	// nodeGone: the node was told the link closed (or died with it).
	nodeGone bool
	// resetAt is when the client learns the link broke (0: it did not).
	resetAt uint64
}

// delay draws an exponential network delay in ticks; exponential delays
// reorder messages of different links, never of one link.
func (w *World) delay() uint64 {
	mean := w.knobs.NetDelayMeanTicks
	if mean == 0 {
		return 0
	}
	return uint64(math.Round(w.rng.ExpFloat64() * mean))
}

// dial opens a link for c to the node it targets; false when nothing
// listens there.
func (w *World) dial(c *client) (*link, bool) {
	h := w.hosts[c.target]
	if !h.accepting() || len(w.links) >= linksMax {
		return nil, false
	}
	w.lastConn++
	l := &link{id: bus.ConnID(w.lastConn), client: c, host: h, epoch: h.epoch}
	w.links = append(w.links, l)
	l.queueToNode(w, delivery{open: true})
	return l, true
}

func (l *link) queueToNode(w *World, d delivery) {
	d.at = max(l.lastNode, w.tick+w.delay())
	l.lastNode = d.at
	l.toNode = append(l.toNode, d)
}

// send queues a request frame to the node, or resets the link.
func (w *World) send(l *link, a *attempt) {
	l.att = a
	if w.faulty() && w.chance(w.knobs.ResetPerMillion) {
		w.reset(l)
		return
	}
	l.queueToNode(w, delivery{frame: a.frame, att: a})
}

// reset breaks a link: frames not yet delivered are lost, the node sees
// the close and the client the reset after a delay.
func (w *World) reset(l *link) {
	if l.resetAt != 0 || l.clientGone {
		return
	}
	w.marks.Hit("sim.net.reset")
	for _, d := range l.toNode {
		if d.att != nil {
			w.undelivered(d.att)
		}
	}
	l.toNode = nil
	w.captureInFlight(l)
	l.toClient = nil
	if !l.nodeGone {
		l.queueToNode(w, delivery{close: true})
	}
	l.resetAt = w.tick + 1 + w.delay()
}

// hangUp is the client closing its end: frames already sent still arrive
// (TCP delivers them before the FIN), then the node sees the close.
func (w *World) hangUp(l *link) {
	l.clientGone = true
	if !l.nodeGone && l.resetAt == 0 {
		l.queueToNode(w, delivery{close: true})
	}
}

// reply queues a node reply for the link's client; a Close reply also
// closes the link at the node's side at once, as the adapter does.
func (w *World) reply(l *link, frame []byte, closing bool) {
	if len(frame) > 0 {
		at := max(l.lastCli, w.tick+w.delay())
		l.lastCli = at
		l.toClient = append(l.toClient, delivery{at: at, frame: frame})
	}
	if closing {
		at := max(l.lastCli, w.tick+w.delay())
		l.lastCli = at
		l.toClient = append(l.toClient, delivery{at: at, close: true})
		l.nodeGone = true
		l.host.closed = append(l.host.closed, l.id)
	}
}

// captureInFlight reads, for the oracles, the replies a broken link loses:
// the node sent them, so they are what happened.
func (w *World) captureInFlight(l *link) {
	for _, d := range l.toClient {
		if len(d.frame) > 0 {
			w.capture(l, d.frame)
		}
	}
}
