package replicalink

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/iggygo/iggy/adapters/framing"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/wire/replica"
)

// writeBufferBytes is a link writer's buffer: small frames are gathered
// into one write while the queue holds more; a large one goes straight
// to the socket.
const writeBufferBytes = 64 << 10

// slot is one of a peer's links: its queue outlives the connections that
// come and go under it.
type slot struct {
	peer, link uint8
	addr       string // the peer's address, for dialling
	queue      chan node.PeerMessage
	live       atomic.Pointer[conn]
}

// conn is one established link of a slot.
type conn struct {
	b    *Bus
	s    *slot
	c    net.Conn
	addr string
	done chan struct{}
	once sync.Once
}

// install makes c the live link of s, closing one it replaces (the peer
// restarted and dialled again before we saw the old link end).
func (b *Bus) install(s *slot, c net.Conn) *conn {
	l := &conn{b: b, s: s, c: c, addr: c.RemoteAddr().String(), done: make(chan struct{})}
	if old := s.live.Swap(l); old != nil {
		old.close()
	}
	b.linked.Add(1)
	if b.ctx.Err() != nil { // Close ran while this link was in its handshake
		l.close()
	}
	b.cfg.Log.Info("replica link up", "peer", s.peer, "link", s.link, "addr", l.addr)
	return l
}

// run serves the link until it breaks: the writer on its own goroutine,
// the reader on this one.
func (l *conn) run() {
	l.b.wg.Go(l.write) // the caller is in the wait group, so Close waits for both
	err := l.b.readFrames(l.c, l.s.peer)
	select {
	case <-l.done: // closed on purpose
	default:
		var bad badFrame
		if errors.As(err, &bad) {
			l.b.malformed.Add(1)
			l.b.cfg.Log.Warn("replica link closed on a bad frame", "peer", l.s.peer, "link", l.s.link, "addr", l.addr, "reason", err)
		} else {
			l.b.cfg.Log.Info("replica link closed", "peer", l.s.peer, "link", l.s.link, "addr", l.addr, "reason", err)
		}
	}
	l.close()
}

// close ends the link once; what its queue holds is dropped, as the
// messages a broken connection had in flight are lost.
func (l *conn) close() {
	l.once.Do(func() {
		close(l.done)
		_ = l.c.Close()
		l.b.linked.Add(-1)
		if l.s.live.CompareAndSwap(l, nil) {
			for range len(l.s.queue) {
				select {
				case <-l.s.queue:
					l.b.droppedUnlinked.Add(1)
				default:
				}
			}
		}
	})
}

// write encodes queued messages into one reused buffer and writes them,
// flushing when the queue is empty.
func (l *conn) write() {
	bw := bufio.NewWriterSize(l.c, writeBufferBytes)
	var buf []byte
	for {
		var m node.PeerMessage
		select {
		case <-l.done:
			return
		case m = <-l.s.queue:
		}
		var err error
		buf, err = l.b.codec.Append(buf[:0], m)
		if err != nil { // a message over max_message_size: dropped, as a full queue drops
			l.b.droppedFull.Add(1)
			l.b.cfg.Log.Warn("replica message not sent", "peer", l.s.peer, "command", m.Msg.Command.String(), "reason", err)
			continue
		}
		_ = l.c.SetWriteDeadline(time.Now().Add(writeStallTimeout))
		if _, err = bw.Write(buf); err == nil && len(l.s.queue) == 0 {
			err = bw.Flush()
		}
		if err != nil {
			l.b.cfg.Log.Warn("replica link write failed", "peer", l.s.peer, "addr", l.addr, "reason", err)
			l.close()
			return
		}
		l.b.sent.Add(1)
		if cap(buf) > writeBufferKeepBytesMax {
			buf = nil
		}
	}
}

// badFrame is a frame that closes its link: it never reaches Deliver.
type badFrame struct{ error }

// readFrames reads consensus frames from src through a buffer of
// Config.ReadBufferSize and delivers each decoded message (FLOW-9): every
// whole frame one read brought in is decoded without another read, and a
// frame's remainder at least the buffer's size is read straight into the
// frame (bufio.Reader reads past its buffer then). Each frame gets its own
// buffer, which the core may keep. The first bad frame ends the link.
func (b *Bus) readFrames(src io.Reader, peer uint8) error {
	r := bufio.NewReaderSize(src, b.cfg.ReadBufferSize)
	var h [replica.HeaderSize]byte
	for {
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return err
		}
		hd, err := replica.CheckHeader(h[:], b.cfg.FrameSizeMax)
		if err != nil {
			return badFrame{err}
		}
		if !replica.IsMessage(hd.Command) {
			return badFrame{fmt.Errorf("frame command %d is not a consensus message", hd.Command)}
		}
		f := framing.NewBuffer(int(hd.Size))
		copy(f, h[:])
		if _, err := io.ReadFull(r, f[replica.HeaderSize:]); err != nil {
			return fmt.Errorf("reading a %d-byte frame: %w", hd.Size, err)
		}
		m, err := b.codec.Decode(f)
		if err != nil {
			return badFrame{err}
		}
		if m.Msg.From != peer || m.Msg.To != b.cfg.Self {
			return badFrame{fmt.Errorf("a frame from replica %d to %d on the link of replica %d", m.Msg.From, m.Msg.To, peer)}
		}
		b.received.Add(1)
		b.cfg.Deliver(m)
	}
}
