// Package websocket serves the binary protocol over WebSocket (and WSS):
// each binary message carries exactly one frame, in both directions
// (protocol-framing.md 1.1). Frames go to the node through the hub like
// TCP's; nothing here knows a command.
package websocket

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	ws "github.com/coder/websocket"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// Options are the listener's limits.
type Options struct {
	// FrameSizeMax caps one frame (= one message); 0 or above 64 MiB means 64 MiB.
	FrameSizeMax uint32
	// HandshakeTimeout bounds the HTTP upgrade (and TLS) of a new connection.
	HandshakeTimeout time.Duration
}

// handshakeTimeoutDefault is message_bus.handshake_grace's default.
const handshakeTimeoutDefault = 10 * time.Second

// Server accepts WebSocket upgrades on any path and feeds their frames to the hub.
type Server struct {
	ln   net.Listener
	http *http.Server
	hub  *transport.Hub
	opts Options
	log  *slog.Logger
}

// Listen binds addr, with TLS when tlsCfg is not nil.
func Listen(addr string, tlsCfg *tls.Config, hub *transport.Hub, opts Options, log *slog.Logger) (*Server, error) {
	raw, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("websocket listen on %s: %w", addr, err)
	}
	var ln net.Listener = transport.NewListener(raw, "websocket", hub.Gate(), log)
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	if opts.FrameSizeMax == 0 || opts.FrameSizeMax > wire.FrameSizeMax {
		opts.FrameSizeMax = wire.FrameSizeMax
	}
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = handshakeTimeoutDefault
	}
	s := &Server{ln: ln, hub: hub, opts: opts, log: log}
	s.http = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: opts.HandshakeTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	return s, nil
}

// Addr is the bound address (useful with port 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve accepts until Close.
func (s *Server) Serve() {
	if err := s.http.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.log.Warn("websocket serve failed", "err", err)
	}
}

// Close stops accepting. Upgraded connections are hijacked, so http.Server
// does not track them: the hub closes them.
func (s *Server) Close() error { return s.http.Close() }

// ServeHTTP upgrades the request and runs the connection until it ends.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := ws.Accept(w, r, &ws.AcceptOptions{
		// Non-browser SDKs send no Origin; the protocol authenticates in band.
		OriginPatterns:  []string{"*"},
		CompressionMode: ws.CompressionDisabled,
	})
	if err != nil {
		return // Accept has answered the HTTP request with the reason
	}
	// The library reads one byte past the limit to see a message is too big.
	c.SetReadLimit(int64(s.opts.FrameSizeMax))
	cn := newConn(c, s.hub.Limits())
	cn.id, cn.adm = s.hub.Open(cn, bus.TransportWebSocket, r.RemoteAddr)
	go cn.writeLoop()
	s.readLoop(cn)
}

// readLoop hands each message's frame to the hub; a text message, a bad
// size or data after the frame closes the connection (1.1).
func (s *Server) readLoop(c *conn) {
	defer func() {
		c.Close()
		s.hub.Closed(c.id)
	}()
	for {
		typ, r, err := c.ws.Reader(c.ctx)
		if err != nil {
			return
		}
		// The pre-login cap until the login succeeds, checked against the
		// frame's size field before its body is read.
		sizeMax := c.adm.FrameSizeMax(s.opts.FrameSizeMax)
		// The message started: it must arrive whole by its deadline,
		// or the connection is closed (a stalled half message holds
		// nothing for long). Between messages, no deadline.
		var late *time.Timer
		if d := s.hub.Limits().FrameDeadline(time.Now(), int(sizeMax)); !d.IsZero() {
			late = time.AfterFunc(time.Until(d), c.Close)
		}
		frame, err := readMessage(typ, r, sizeMax, c.adm.Hold)
		if late != nil {
			late.Stop()
		}
		if err != nil {
			s.log.Debug("websocket frame refused", "conn", c.id, "err", err)
			c.refuse(err)
			return
		}
		s.hub.Frame(c.id, frame)
	}
}
