// Package httpapi serves the HTTP REST API (http.md) as a client of the
// node: every authenticated principal owns a hub connection of transport
// HTTP with its own node session, each REST call is encoded into the binary
// request the node already serves, and the reply is decoded into JSON. No
// command is implemented twice; the adapter only authenticates bearers,
// translates shapes and maps codes to statuses.
package httpapi

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/adapters/transport"
)

// Bounds and periods of the adapter.
const (
	// principalsMax caps the node sessions the adapter holds (http.md 3.1:
	// clients_table_max / 2).
	principalsMax = 4096
	// sweepInterval is how often expired principals and revocations are dropped.
	sweepInterval = 30 * time.Second
	// Server timeouts: a client that stalls is cut off, not waited for.
	// The header and body deadlines come from message_bus.handshake_grace
	// (readTimeouts); a kept-alive connection waits idleTimeout for its
	// next request.
	idleTimeout     = 60 * time.Second
	shutdownTimeout = 5 * time.Second
	// headerBytesMax caps a request's header lines (net/http's default is
	// 1 MiB); a bearer token and the usual headers fit many times over.
	headerBytesMax = 64 << 10
)

// Options configures a Server.
type Options struct {
	HTTP config.HTTP
	Log  *slog.Logger
	// DataDir is the server's data directory (system.path), where the
	// revocations of logged-out and spent tokens are kept across restarts;
	// "" keeps them in memory only.
	DataDir string
	// Now is the clock of token checks; nil is time.Now (tests move it).
	Now func() time.Time
	// Grace is message_bus.handshake_grace: the time a request's header may
	// take, and the fixed part of the whole request's; 0 is
	// graceDefault.
	Grace time.Duration
	// DiskWriteFailures, when set, is the disk_write_failures_total
	// counter of /metrics: partition writes that failed.
	DiskWriteFailures func() uint64
	// Cluster, in a replica set, is this node's place in it: partition
	// calls are relayed to the partition's primary and control-plane
	// writes count as forwards. nil: a standalone node.
	Cluster *Cluster
}

// graceDefault is message_bus.handshake_grace's default.
const graceDefault = 10 * time.Second

// readTimeouts are the header and the whole-request read deadlines: the
// grace, plus max_request_size at transport.ReadBytesPerSecondMin for a
// body (the same rule as a binary frame's).
func (o Options) readTimeouts() (header, request time.Duration) {
	grace := o.Grace
	if grace <= 0 {
		grace = graceDefault
	}
	return grace, transport.Limits{Grace: grace}.FrameTimeout(int(o.HTTP.MaxRequestSize))
}

// Server is the HTTP listener bound to one node through its hub.
type Server struct {
	opts    Options
	hub     *transport.Hub
	log     *slog.Logger
	now     func() time.Time
	tokens  *tokenIssuer
	trusted *trustedIssuers
	table   *principals
	revoked *revocations
	metrics *metrics
	ping    *anonConn
	mux     *http.ServeMux
	cors    *corsPolicy
	// cluster, forwards and relayClient serve forwarding and relays
	// (relay.go); cluster is nil on a standalone node.
	cluster     *Cluster
	forwards    forwardSlots
	relayClient *http.Client
	balanced    atomic.Uint32 // the turn of balanced sends that are routed here (relay.go)
	// partitionDeadline and forwardBudget are the constants of RELAY-19 and
	// RELAY-18 (tests shorten them).
	partitionDeadline time.Duration
	forwardBudget     time.Duration

	srv  *http.Server
	ln   net.Listener
	stop chan struct{}
	wg   sync.WaitGroup
}

// New builds a server for the node behind hub; Listen binds it.
func New(opts Options, hub *transport.Hub) (*Server, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	tokens, err := newTokenIssuer(opts.HTTP.JWT, opts.Now)
	if err != nil {
		return nil, err
	}
	revoked, err := loadRevocations(opts.DataDir, opts.Log, opts.Now())
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, hub: hub, log: opts.Log, now: opts.Now, tokens: tokens,
		trusted: newTrustedIssuers(opts.HTTP.JWT, opts.Now), table: newPrincipals(principalsMax),
		revoked: revoked, metrics: newMetrics(), ping: &anonConn{hub: hub},
		cors: newCORSPolicy(opts.HTTP.CORS), stop: make(chan struct{}),
		cluster: opts.Cluster, forwards: make(forwardSlots, forwardsMax), relayClient: newRelayClient(nil),
		partitionDeadline: partitionDeadline, forwardBudget: metadataForwardBudget}
	s.mux = s.routes()
	return s, nil
}

// Listen binds addr (with TLS when http.tls.enabled: ALPN h2, then http/1.1).
func (s *Server) Listen(addr string) error {
	header, request := s.opts.readTimeouts()
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: header, ReadTimeout: request, IdleTimeout: idleTimeout,
		MaxHeaderBytes: headerBytesMax, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	if s.opts.HTTP.TLS.Enabled {
		cert, err := tls.LoadX509KeyPair(s.opts.HTTP.TLS.CertFile, s.opts.HTTP.TLS.KeyFile)
		if err != nil {
			return fmt.Errorf("http tls: %w", err)
		}
		s.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.relayClient = newRelayClient(&cert)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("http listen on %s: %w", addr, err)
	}
	s.ln = transport.NewListener(ln, "http", s.hub.Gate(), s.log)
	return nil
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve answers requests until Close.
func (s *Server) Serve() {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.sweepLoop()
	}()
	var err error
	if s.srv.TLSConfig != nil {
		err = s.srv.ServeTLS(s.ln, "", "") // the certificate is in TLSConfig; h2 is offered first
	} else {
		err = s.srv.Serve(s.ln)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.log.Warn("http serve failed", "err", err)
	}
}

// Close stops the listener and ends every node session the adapter holds.
func (s *Server) Close() error {
	close(s.stop)
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	for _, p := range s.table.all() {
		if p.conn != nil {
			p.conn.release()
		}
	}
	s.ping.close()
	s.wg.Wait()
	s.revoked.sweep(s.now()) // retries a failed write of the revocations
	return err
}

// sweepLoop drops expired principals (ending their node sessions) and
// expired revocations.
func (s *Server) sweepLoop() {
	t := time.NewTicker(sweepInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			now := s.now()
			for _, p := range s.table.expired(now) {
				p.mu.Lock()
				if p.conn != nil {
					p.conn.release()
				}
				p.mu.Unlock()
			}
			s.revoked.sweep(now)
		}
	}
}

// ServeHTTP is the outermost layer: CORS, the body cap, the route and the
// request metrics.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	_, pattern := s.mux.Handler(r)
	route := pattern
	if route == "" {
		route = "unmatched"
	}
	defer func() { s.metrics.observeRoute(route, rec.status, time.Since(start)) }()
	if s.cors.handle(rec, r) {
		return
	}
	if max := s.opts.HTTP.MaxRequestSize; max > 0 {
		if r.ContentLength > int64(max) {
			rec.Header().Set("Connection", "close")
			writeError(rec, plainError(http.StatusRequestEntityTooLarge, "Failed to buffer the request body: length limit exceeded"))
			return
		}
		r.Body = http.MaxBytesReader(rec, r.Body, int64(max))
	}
	if pattern == "" {
		rec.quiet404 = true // http.md 1: an unknown route is 404 with an empty body
	}
	s.mux.ServeHTTP(rec, r)
}

// statusWriter remembers the status for the metrics.
type statusWriter struct {
	http.ResponseWriter
	status   int
	wrote    bool
	quiet404 bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	if code == http.StatusNotFound && w.quiet404 {
		w.Header().Del("Content-Type")
		w.Header().Del("X-Content-Type-Options")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.status == http.StatusNotFound && w.quiet404 {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// handler is a route's body; a non-nil error is written as the answer.
type handler func(w http.ResponseWriter, r *http.Request) *apiError

func (s *Server) handle(m *http.ServeMux, pattern string, h handler) {
	m.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if e := h(w, r); e != nil {
			if e.status == http.StatusRequestEntityTooLarge {
				w.Header().Set("Connection", "close")
			}
			writeError(w, e)
		}
	})
}
