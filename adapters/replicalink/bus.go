package replicalink

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire/replica"
)

// Bus is one node's replica plane: its listener, its dialers and the
// links to every peer.
type Bus struct {
	cfg        Config
	keys       keys
	codec      replica.Codec
	ln         net.Listener
	slots      map[uint8][]*slot // by peer, LinksPerPeer each
	handshakes chan struct{}     // a slot per accepted connection in its handshake
	ctx        context.Context
	cancel     context.CancelFunc
	wg         sync.WaitGroup

	mu      sync.Mutex
	pending map[net.Conn]struct{} // connections in their handshake, closed by Close

	sent, received, droppedFull, droppedUnlinked, refused, malformed atomic.Uint64
	linked                                                           atomic.Int64
}

// Stats are the bus's counters since it started.
type Stats struct {
	Sent, Received  uint64
	DroppedFull     uint64 // Send found the link's queue full (or the frame over max_message_size)
	DroppedUnlinked uint64 // Send found no link up, or a link broke with messages queued
	Refused         uint64 // handshakes that failed, either side
	Malformed       uint64 // links closed on a bad frame
	Links           int    // links up now
}

// New starts a node's replica plane: it listens on Listen (or uses
// listener when not nil, which the bus then owns), and dials every link of
// every peer with a higher replica id; peers with a lower one dial us.
func New(cfg Config, listener net.Listener) (*Bus, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if listener == nil {
		ln, err := net.Listen("tcp", cfg.Listen)
		if err != nil {
			return nil, fmt.Errorf("replica links: listen on %s: %w", cfg.Listen, err)
		}
		listener = ln
	}
	b := &Bus{cfg: cfg, keys: deriveKeys(cfg.Secret, cfg.PreviousSecret), ln: listener,
		codec: replica.Codec{Cluster: cfg.Cluster, Release: cfg.Identity.stamp(), SizeMax: cfg.FrameSizeMax},
		slots: map[uint8][]*slot{}, handshakes: make(chan struct{}, handshakesMax),
		pending: map[net.Conn]struct{}{}}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	for _, p := range cfg.Peers {
		for i := range cfg.LinksPerPeer {
			b.slots[p.ID] = append(b.slots[p.ID], &slot{peer: p.ID, link: uint8(i), addr: p.Addr,
				queue: make(chan node.PeerMessage, cfg.QueueCapacity)})
		}
	}
	b.wg.Go(b.acceptLoop)
	for _, p := range cfg.Peers {
		if p.ID > cfg.Self {
			for _, s := range b.slots[p.ID] {
				b.wg.Go(func() { b.dialLoop(s) })
			}
		}
	}
	return b, nil
}

// Addr is the listener's address.
func (b *Bus) Addr() net.Addr { return b.ln.Addr() }

func (b *Bus) slot(peer, link uint8) *slot {
	if ss := b.slots[peer]; int(link) < len(ss) {
		return ss[link]
	}
	return nil
}

// linkOf spreads groups over a peer's links; one group always takes the
// same link, so its messages keep their order.
func (b *Bus) linkOf(g node.GroupID) uint8 {
	if !g.IsPartition || b.cfg.LinksPerPeer == 1 {
		return 0
	}
	var k [20]byte
	for i, v := range []uint32{g.Stream, g.Topic, g.Partition, uint32(g.Revision), uint32(g.Revision >> 32)} {
		k[4*i], k[4*i+1], k[4*i+2], k[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	return uint8(xxh3.Hash(k[:]) % uint64(b.cfg.LinksPerPeer))
}

// Send queues m for its peer without blocking: false (and counted) when
// no link to the peer is up or the link's queue is full. The message's
// prepares and data must stay unchanged until it is written.
func (b *Bus) Send(m node.PeerMessage) bool {
	if m.Msg.From != b.cfg.Self {
		assert.Failf("replica links of %d: a message from %d", b.cfg.Self, m.Msg.From)
	}
	s := b.slot(m.Msg.To, b.linkOf(m.Group))
	if s == nil || s.live.Load() == nil {
		b.droppedUnlinked.Add(1)
		return false
	}
	select {
	case s.queue <- m:
		return true
	default:
		b.droppedFull.Add(1)
		return false
	}
}

// Linked is how many links to peer are up.
func (b *Bus) Linked(peer uint8) int {
	n := 0
	for _, s := range b.slots[peer] {
		if s.live.Load() != nil {
			n++
		}
	}
	return n
}

// Stats reads the counters.
func (b *Bus) Stats() Stats {
	return Stats{Sent: b.sent.Load(), Received: b.received.Load(), DroppedFull: b.droppedFull.Load(),
		DroppedUnlinked: b.droppedUnlinked.Load(), Refused: b.refused.Load(), Malformed: b.malformed.Load(),
		Links: int(b.linked.Load())}
}

// Close stops listening and dialling, closes every link and waits for
// their goroutines.
func (b *Bus) Close() error {
	b.cancel()
	err := b.ln.Close()
	b.mu.Lock()
	for c := range b.pending {
		_ = c.Close()
	}
	b.mu.Unlock()
	for _, ss := range b.slots {
		for _, s := range ss {
			if l := s.live.Load(); l != nil {
				l.close()
			}
		}
	}
	b.wg.Wait()
	return err
}

// track registers a connection in its handshake so Close can end it; false
// when the bus is closing.
func (b *Bus) track(c net.Conn, on bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !on {
		delete(b.pending, c)
		return true
	}
	if b.ctx.Err() != nil {
		return false
	}
	b.pending[c] = struct{}{}
	return true
}

func (b *Bus) acceptLoop() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			if b.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			b.cfg.Log.Warn("replica listener", "reason", err)
			time.Sleep(reconnectDelayMin)
			continue
		}
		select {
		case b.handshakes <- struct{}{}:
		default:
			b.refusal(c.RemoteAddr().String(), fmt.Errorf("%d connections already in their handshake", handshakesMax))
			_ = c.Close()
			continue
		}
		b.wg.Go(func() { b.accept(c) })
	}
}

// accept admits one connection (TLS, preamble and handshake within
// handshake_grace, holding a handshake slot), then runs the link here
// until it breaks.
func (b *Bus) accept(raw net.Conn) {
	s, c, err := b.admit(raw)
	<-b.handshakes
	if err != nil {
		b.refusal(raw.RemoteAddr().String(), err)
		_ = raw.Close()
		return
	}
	b.install(s, c).run()
}

func (b *Bus) admit(raw net.Conn) (*slot, net.Conn, error) {
	if !b.track(raw, true) {
		return nil, nil, errors.New("replica links closing")
	}
	defer b.track(raw, false)
	deadline(raw, b.cfg.HandshakeGrace)
	c, err := b.withTLS(raw, "")
	if err != nil {
		return nil, nil, err
	}
	s, err := b.acceptHandshake(c)
	if err != nil {
		return nil, nil, err
	}
	deadline(raw, 0)
	return s, c, nil
}

// refusal logs and counts a handshake that failed.
func (b *Bus) refusal(addr string, err error) {
	b.refused.Add(1)
	b.cfg.Log.Warn("replica link refused", "addr", addr, "reason", err)
}

// dialLoop keeps slot s linked: dial, handshake, run until the link
// breaks, then redial after a delay that doubles from reconnectDelayMin up
// to reconnect_period (with jitter), reset by a link that came up.
func (b *Bus) dialLoop(s *slot) {
	delay := reconnectDelayMin
	for b.ctx.Err() == nil {
		if b.dial(s) {
			delay = reconnectDelayMin
		}
		wait := delay/2 + rand.N(delay/2+1)
		select {
		case <-b.ctx.Done():
			return
		case <-time.After(wait):
		}
		delay = min(2*delay, b.cfg.ReconnectPeriod)
	}
}

// dial makes one attempt; true when the link came up (it has ended when
// dial returns).
func (b *Bus) dial(s *slot) bool {
	d := net.Dialer{Timeout: b.cfg.HandshakeGrace}
	raw, err := d.DialContext(b.ctx, "tcp", s.addr)
	if err != nil {
		b.cfg.Log.Debug("replica dial", "peer", s.peer, "addr", s.addr, "reason", err)
		return false
	}
	if !b.track(raw, true) {
		_ = raw.Close()
		return false
	}
	deadline(raw, b.cfg.HandshakeGrace)
	c, err := b.withTLS(raw, s.addr)
	if err == nil {
		err = b.dialHandshake(c, s)
	}
	b.track(raw, false)
	if err != nil {
		b.refusal(s.addr, err)
		_ = raw.Close()
		return false
	}
	deadline(raw, 0)
	b.install(s, c).run()
	return true
}
