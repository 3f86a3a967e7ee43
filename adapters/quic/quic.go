// Package quic serves the binary protocol over QUIC. Each request travels on
// its own bidirectional stream: one request frame in, one reply frame out,
// then the stream is finished (protocol-framing.md 1.1). A QUIC connection
// is one hub connection, so a session binds per QUIC connection, and frames
// reach the node through the hub like TCP's; nothing here knows a command.
//
// ALPN: none. The reference server's QUIC listener and the Rust SDK's QUIC
// client (the official SDK that speaks QUIC) both leave the TLS ALPN list
// empty, and Go's TLS refuses a QUIC client that offers no ALPN when the
// server lists any (RFC 9001 8.1), so the server must list none too.
package quic

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/iggygo/iggy/adapters/framing"
	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// streamsWaitingMax bounds the request streams of one connection waiting
// for their replies (the node's own per-connection queue has the same
// bound). The stream limit keeps a client far below it; a client that
// resets streams to get around the limit is closed when it gets there.
const streamsWaitingMax = 1024

// idleTimeoutDisabled stands for max_idle_timeout = 0 ("disabled"):
// quic-go reads 0 as its 30 s default, so a day is as close as it gets.
const idleTimeoutDisabled = 24 * time.Hour

// Application error codes sent when the server closes a connection.
const (
	closeNormal   quic.ApplicationErrorCode = 0
	closeBadFrame quic.ApplicationErrorCode = 1
	// streamAborted resets a stream whose request will get no reply.
	streamAborted quic.StreamErrorCode = 0
)

// Options map config.md [quic] onto the listener.
type Options struct {
	// FrameSizeMax caps one frame; 0 or above 64 MiB means 64 MiB.
	FrameSizeMax uint32
	// StreamsConcurrentMax is max_concurrent_bidi_streams (at least 1).
	StreamsConcurrentMax uint64
	// InitialPacketSizeBytes is initial_mtu; 0 is quic-go's default.
	InitialPacketSizeBytes uint16
	// ReceiveWindowBytes and StreamReceiveWindowBytes cap the flow-control windows.
	ReceiveWindowBytes       uint64
	StreamReceiveWindowBytes uint64
	// KeepAlivePeriod is keep_alive_interval; 0 sends no keep-alives.
	KeepAlivePeriod time.Duration
	// IdleTimeout is max_idle_timeout; 0 disables it.
	IdleTimeout time.Duration
	// HandshakeTimeout is message_bus.handshake_grace; 0 is quic-go's default.
	HandshakeTimeout time.Duration
}

func (o Options) quicConfig() *quic.Config {
	idle := o.IdleTimeout
	if idle == 0 {
		idle = idleTimeoutDisabled
	}
	return &quic.Config{
		HandshakeIdleTimeout:       o.HandshakeTimeout,
		MaxIdleTimeout:             idle,
		MaxStreamReceiveWindow:     o.StreamReceiveWindowBytes,
		MaxConnectionReceiveWindow: o.ReceiveWindowBytes,
		MaxIncomingStreams:         int64(o.StreamsConcurrentMax),
		MaxIncomingUniStreams:      -1, // the protocol uses bidirectional streams only
		KeepAlivePeriod:            o.KeepAlivePeriod,
		InitialPacketSize:          o.InitialPacketSizeBytes,
	}
}

// Server accepts QUIC connections and feeds their request streams to the hub.
type Server struct {
	ln   *quic.Listener
	hub  *transport.Hub
	opts Options
	log  *slog.Logger
}

// Listen binds addr (UDP). tlsCfg must hold a certificate; TLS 1.3 is forced.
func Listen(addr string, tlsCfg *tls.Config, hub *transport.Hub, opts Options, log *slog.Logger) (*Server, error) {
	if opts.FrameSizeMax == 0 || opts.FrameSizeMax > wire.FrameSizeMax {
		opts.FrameSizeMax = wire.FrameSizeMax
	}
	opts.StreamsConcurrentMax = min(max(opts.StreamsConcurrentMax, 1), streamsWaitingMax)
	tlsCfg = tlsCfg.Clone()
	tlsCfg.MinVersion = tls.VersionTLS13
	ln, err := quic.ListenAddr(addr, tlsCfg, opts.quicConfig())
	if err != nil {
		return nil, fmt.Errorf("quic listen on %s: %w", addr, err)
	}
	return &Server{ln: ln, hub: hub, opts: opts, log: log}, nil
}

// Addr is the bound address (useful with port 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve accepts until Close.
func (s *Server) Serve() {
	for {
		qc, err := s.ln.Accept(context.Background())
		if err != nil {
			if !errors.Is(err, quic.ErrServerClosed) {
				s.log.Warn("quic accept failed", "err", err)
			}
			return
		}
		go s.serveConn(qc)
	}
}

// Close stops accepting and closes the UDP socket, which ends every connection.
func (s *Server) Close() error { return s.ln.Close() }

// serveConn reads the connection's request streams in the order the client
// opened them, so the node sees requests in the client's order.
func (s *Server) serveConn(qc *quic.Conn) {
	c := newConn(qc, s.hub.Limits())
	c.id, c.adm = s.hub.Open(c, bus.TransportQUIC, qc.RemoteAddr().String())
	go c.writeLoop()
	defer func() {
		c.Close()
		s.hub.Closed(c.id)
	}()
	for {
		st, err := qc.AcceptStream(context.Background())
		if err != nil {
			return // the connection is gone
		}
		if err := s.readRequest(c, st); err != nil {
			s.log.Debug("quic request refused", "conn", c.id, "err", err)
			c.closeCode.Store(uint64(closeBadFrame))
			return
		}
	}
}

// readRequest hands the stream's frame to the node, then checks the stream
// ends there. A bad size, a frame the pre-login budget cannot hold, data
// after the frame or too many waiting streams is an error that closes the
// connection; a stream the client resets, or that does not deliver its
// frame by the deadline, is dropped alone.
func (s *Server) readRequest(c *conn, st stream) error {
	sizeMax := c.adm.FrameSizeMax(s.opts.FrameSizeMax)
	// The stream opened with its first bytes: the whole frame, at most
	// sizeMax, must follow by its deadline (a zero time sets none).
	_ = st.SetReadDeadline(s.hub.Limits().FrameDeadline(time.Now(), int(sizeMax)))
	frame, err := framing.Read(st, sizeMax, c.adm.Hold)
	if errors.Is(err, framing.ErrSize) || errors.Is(err, framing.ErrHeld) {
		return err
	}
	if err != nil {
		st.CancelWrite(streamAborted)
		return nil
	}
	if !c.admit(st, frame) {
		return fmt.Errorf("more than %d request streams waiting for replies", streamsWaitingMax)
	}
	s.hub.Frame(c.id, frame)
	if err := framing.End(st); errors.Is(err, framing.ErrTrailing) {
		return err
	}
	// Any other end (a reset after the frame) leaves the request standing;
	// writing its reply then fails on the stream alone.
	return nil
}
