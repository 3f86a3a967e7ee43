// Package tcp serves the binary protocol over TCP (and TLS): a reader per
// connection that cuts frames, and a writer that sends replies with one
// vectored write each.
package tcp

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// Server accepts connections and feeds their frames to the hub.
type Server struct {
	ln           net.Listener // a transport.Listener, under TLS when configured
	hub          *transport.Hub
	frameSizeMax uint32
	log          *slog.Logger
	wg           sync.WaitGroup
}

// Listen binds addr, with TLS when tlsCfg is not nil.
func Listen(addr string, tlsCfg *tls.Config, hub *transport.Hub, frameSizeMax uint32, log *slog.Logger) (*Server, error) {
	raw, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("tcp listen on %s: %w", addr, err)
	}
	var ln net.Listener = transport.NewListener(raw, "tcp", hub.Gate(), log)
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

// Serve accepts until Close. The listener retries the accept failures that
// leave it sound (out of descriptors, an aborted handshake); any other
// error ends the listener, loudly.
func (s *Server) Serve() {
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.log.Error("tcp listener stopped: accept failed", "err", err)
			}
			return
		}
		// TCP_NODELAY (protocol-framing.md 1.1) is Go's default for every
		// TCP connection; nc may be wrapped (the gate, TLS), so it is not
		// set here again.
		c := &conn{nc: nc}
		c.q.Init(s.hub.Limits(), func() { _ = nc.Close() })
		c.id, c.adm = s.hub.Open(c, bus.TransportTCP, nc.RemoteAddr().String())
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
	r := frameReader{conn: c.nc, adm: c.adm, limits: s.hub.Limits(), sizeMax: s.frameSizeMax}
	for {
		frame, err := r.next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				s.log.Debug("tcp connection closed", "conn", c.id, "err", err)
			}
			return
		}
		s.hub.Frame(c.id, frame)
	}
}

type conn struct {
	id  bus.ConnID
	nc  net.Conn
	adm *transport.Admission
	q   transport.ReplyQueue
}

var _ transport.WriteReporter = (*conn)(nil)

func (c *conn) Send(r bus.Reply) bool { return c.q.Put(r, nil) }

func (c *conn) SendThen(r bus.Reply, written func()) bool { return c.q.Put(r, written) }

func (c *conn) Close() { c.q.End() }

// writeBatchRepliesMax bounds the queued replies joined into one vectored
// write: one writev per burst instead of one per reply.
const writeBatchRepliesMax = 64

// writeLoop writes what is queued, each burst of replies with one vectored
// write, and then reports them written (after writev returns the kernel has
// copied the bytes, so the buffers may be reused, whatever the outcome). A
// client that stops reading blocks the write until the queue's stall timer
// closes the socket (FLOW-4).
func (c *conn) writeLoop() {
	var parts [][]byte
	var written []func()
	for {
		o, ok := c.q.Next()
		if !ok {
			return
		}
		size := o.Size()
		parts, written = queue(parts[:0], written[:0], o)
		for range writeBatchRepliesMax - 1 {
			more, ok := c.q.TryNext()
			if !ok {
				break
			}
			size += more.Size()
			parts, written = queue(parts, written, more)
		}
		bufs := net.Buffers(parts)
		_, err := bufs.WriteTo(c.nc)
		c.q.Sent(size)
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

func queue(parts [][]byte, written []func(), o transport.Outgoing) ([][]byte, []func()) {
	parts = append(parts, o.Reply.Parts...)
	if o.Written != nil {
		written = append(written, o.Written)
	}
	return parts, written
}
