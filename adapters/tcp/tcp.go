// Package tcp serves the binary protocol over TCP (and TLS): a reader per
// connection that cuts frames, and a writer that sends replies with one
// vectored write each.
package tcp

import (
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"

	"github.com/iggygo/iggy/adapters/framing"
	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// replyQueueCapacity bounds the replies waiting for a slow reader; past it the
// connection is closed rather than letting memory grow.
const replyQueueCapacity = 1024

// Server accepts connections and feeds their frames to the hub.
type Server struct {
	ln           net.Listener
	hub          *transport.Hub
	frameSizeMax uint32
	log          *slog.Logger
	wg           sync.WaitGroup
}

// Listen binds addr, with TLS when tlsCfg is not nil.
func Listen(addr string, tlsCfg *tls.Config, hub *transport.Hub, frameSizeMax uint32, log *slog.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("tcp listen on %s: %w", addr, err)
	}
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	if frameSizeMax == 0 || frameSizeMax > wire.FrameSizeMax {
		frameSizeMax = wire.FrameSizeMax
	}
	return &Server{ln: ln, hub: hub, frameSizeMax: frameSizeMax, log: log}, nil
}

// Addr is the bound address (useful with port 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve accepts until Close.
func (s *Server) Serve() {
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.log.Warn("tcp accept failed", "err", err)
			}
			return
		}
		if tc, ok := nc.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
		c := &conn{nc: nc, out: make(chan outgoing, replyQueueCapacity), done: make(chan struct{})}
		c.id = s.hub.Open(c, bus.TransportTCP, nc.RemoteAddr().String())
		s.wg.Add(2)
		go func() { defer s.wg.Done(); c.writeLoop() }()
		go func() { defer s.wg.Done(); s.readLoop(c) }()
	}
}

// Close stops accepting; open connections are closed by the hub.
func (s *Server) Close() error { return s.ln.Close() }

func (s *Server) readLoop(c *conn) {
	defer func() {
		c.Close()
		s.hub.Closed(c.id)
	}()
	var header [wire.HeaderSize]byte
	for {
		if _, err := io.ReadFull(c.nc, header[:]); err != nil {
			return
		}
		size := binary.LittleEndian.Uint32(header[48:])
		if size < wire.HeaderSize || size > s.frameSizeMax {
			return // protocol-framing.md 1.1: a bad size closes the connection
		}
		// Not zeroed: the header and the body below fill every byte, and a
		// frame that fails to arrive whole is dropped.
		frame := framing.NewBuffer(int(size))
		copy(frame, header[:])
		if _, err := io.ReadFull(c.nc, frame[wire.HeaderSize:]); err != nil {
			return
		}
		s.hub.Frame(c.id, frame)
	}
}

type conn struct {
	id   bus.ConnID
	nc   net.Conn
	out  chan outgoing
	once sync.Once
	done chan struct{}
}

// outgoing is one queued reply and what to call once it is written.
type outgoing struct {
	reply   bus.Reply
	written func() // nil: nobody waits
}

var _ transport.WriteReporter = (*conn)(nil)

func (c *conn) Send(r bus.Reply) bool { return c.SendThen(r, nil) }

func (c *conn) SendThen(r bus.Reply, written func()) bool {
	select {
	case <-c.done:
		return true
	case c.out <- outgoing{reply: r, written: written}:
		return true
	default:
		return false
	}
}

func (c *conn) Close() {
	c.once.Do(func() {
		close(c.done)
		_ = c.nc.Close()
	})
}

// writeBatchRepliesMax bounds the queued replies joined into one vectored
// write: one writev per burst instead of one per reply.
const writeBatchRepliesMax = 64

// writeLoop writes what is queued, each burst of replies with one vectored
// write, and then reports them written (after writev returns the kernel has
// copied the bytes, so the buffers may be reused, whatever the outcome).
func (c *conn) writeLoop() {
	var parts [][]byte
	var written []func()
	for {
		select {
		case <-c.done:
			return
		case o := <-c.out:
			parts, written = queue(parts[:0], written[:0], o)
			for range writeBatchRepliesMax - 1 {
				more, ok := c.next()
				if !ok {
					break
				}
				parts, written = queue(parts, written, more)
			}
			bufs := net.Buffers(parts)
			_, err := bufs.WriteTo(c.nc)
			for _, w := range written {
				w()
			}
			clear(parts) // keep no reply bytes alive until the next burst
			clear(written)
			if err != nil {
				c.Close()
				return
			}
		}
	}
}

// next takes a queued reply without waiting.
func (c *conn) next() (outgoing, bool) {
	select {
	case o := <-c.out:
		return o, true
	default:
		return outgoing{}, false
	}
}

func queue(parts [][]byte, written []func(), o outgoing) ([][]byte, []func()) {
	parts = append(parts, o.reply.Parts...)
	if o.written != nil {
		written = append(written, o.written)
	}
	return parts, written
}
