// Package client is a Go client for the Iggy binary protocol over TCP (and
// TCP+TLS), WebSocket (and WSS) and QUIC. It speaks protocol 0.12.2 and follows the Go SDK's rules for
// client ids, request ids and transient retries (protocol-framing.md 4), so
// the server sees exactly what an official SDK would send. One request is in
// flight per connection; a Client is safe for concurrent use, calls are
// serialized.
package client

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/iggygo/iggy/wire"
)

// Defaults of Options.
const (
	DialTimeoutDefault      = 10 * time.Second
	RequestTimeoutDefault   = 30 * time.Second
	TransientBudgetDefault  = 10 * time.Second
	transientRetryInterval  = 50 * time.Millisecond // the SDK's replay period for 57/58
	sdkName                 = "iggy-go-client"
	sdkVersion              = "0.12.2"
	protocolMajor           = 0
	protocolMinor           = 12
	protocolPatch           = 2
	requestCounterFirst     = 1 // every fresh client id starts its request ids here
	clientIDDrawAttemptsMax = 8 // crypto/rand returning 0 twice in a row is already absurd
)

// Transports of Options.Transport.
const (
	TransportTCP       = "tcp"
	TransportWebSocket = "ws"
	TransportQUIC      = "quic"
)

// Options tunes a connection. The zero value is plain TCP with the defaults.
type Options struct {
	// Transport is TransportTCP (also when empty), TransportWebSocket or
	// TransportQUIC; the frames and the session rules are the same on each.
	Transport string
	// TLS, when set, wraps the TCP connection in TLS with this config (WSS
	// for WebSocket; for QUIC, which always uses TLS, it replaces the
	// default that skips certificate verification).
	TLS *tls.Config
	// DialTimeout bounds connecting (and the TLS handshake).
	DialTimeout time.Duration
	// LocalIP, when set, is the TCP connection's source address (tests that
	// log in from several sources over loopback: 127.0.0.2, ...).
	LocalIP string
	// RequestTimeout bounds one round trip: writing a frame and reading its reply.
	RequestTimeout time.Duration
	// TransientBudget bounds how long a request answered with 57 or 58 is
	// replayed (every 50 ms) before the transient error is returned.
	TransientBudget time.Duration
	// ProtocolVersion overrides the version sent at login (tests of the gate).
	// Zero means 0.12.2.
	ProtocolVersion wire.ProtocolVersion
	// ReuseReplyBuffer reads every reply into one buffer kept by the client,
	// instead of a fresh one per reply. Everything a call returns that
	// points into its reply (message payloads, headers, raw bodies) is then
	// valid only until the next call on this client. For benchmarks, where
	// allocating and zeroing each reply costs the client more than reading it.
	ReuseReplyBuffer bool
}

func (o Options) withDefaults() Options {
	if o.DialTimeout <= 0 {
		o.DialTimeout = DialTimeoutDefault
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = RequestTimeoutDefault
	}
	if o.TransientBudget <= 0 {
		o.TransientBudget = TransientBudgetDefault
	}
	if o.ProtocolVersion == 0 {
		o.ProtocolVersion = wire.PackProtocolVersion(protocolMajor, protocolMinor, protocolPatch)
	}
	return o
}

// Client is one connection to a server and at most one session on it.
type Client struct {
	opts Options

	mu      sync.Mutex // one request in flight per connection
	conn    net.Conn   // nil once closed
	session sessionState
	replies []byte // the reused reply buffer (Options.ReuseReplyBuffer)
}

// sessionState is the SDK's per-session bookkeeping (protocol-framing.md 4.1, 4.5).
type sessionState struct {
	clientID wire.U128 // nonzero, fresh for every session
	counter  uint64    // the current request id; consumed by Logout and metadata ops
	session  uint64    // the Register reply's session number; 0 while unbound
	userID   uint32
}

func (s *sessionState) bound() bool { return s.session != 0 }

// Dial connects to addr ("host:port") over opts.Transport. The returned
// client is not logged in.
func Dial(ctx context.Context, addr string, opts Options) (*Client, error) {
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.DialTimeout)
	defer cancel()
	var conn net.Conn
	var err error
	switch opts.Transport {
	case "", TransportTCP:
		conn, err = dialTCP(ctx, addr, opts)
	case TransportWebSocket:
		conn, err = dialWebSocket(ctx, addr, opts)
	case TransportQUIC:
		conn, err = dialQUIC(ctx, addr, opts)
	default:
		return nil, fmt.Errorf("%w: transport %q", ErrInvalidArgument, opts.Transport)
	}
	if err != nil {
		return nil, err
	}
	c := &Client{opts: opts, conn: conn}
	if err := c.resetSession(); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// dialTCP connects over TCP with TCP_NODELAY, optionally wrapped in TLS.
func dialTCP(ctx context.Context, addr string, opts Options) (net.Conn, error) {
	var d net.Dialer
	if opts.LocalIP != "" {
		ip := net.ParseIP(opts.LocalIP)
		if ip == nil {
			return nil, fmt.Errorf("%w: local IP %q", ErrInvalidArgument, opts.LocalIP)
		}
		d.LocalAddr = &net.TCPAddr{IP: ip}
	}
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("iggy: dial %s: %w", addr, err)
	}
	if err := raw.(*net.TCPConn).SetNoDelay(true); err != nil {
		raw.Close()
		return nil, fmt.Errorf("iggy: set TCP_NODELAY: %w", err)
	}
	conn := raw
	if opts.TLS != nil {
		tc := tls.Client(raw, tlsConfigFor(opts.TLS, addr))
		if err := tc.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, fmt.Errorf("iggy: TLS handshake with %s: %w", addr, err)
		}
		conn = tc
	}
	return conn, nil
}

// tlsConfigFor fills ServerName from addr when the config leaves it empty,
// as crypto/tls.Dial does, so certificate verification has a name to check.
func tlsConfigFor(cfg *tls.Config, addr string) *tls.Config {
	if cfg.ServerName != "" || cfg.InsecureSkipVerify {
		return cfg
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	cfg = cfg.Clone()
	cfg.ServerName = host
	return cfg
}

// Close closes the connection. The server logs the session out implicitly.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeLocked()
}

func (c *Client) closeLocked() error {
	if c.conn == nil {
		return nil
	}
	err := c.conn.Close()
	c.conn = nil
	return err
}

// ClientID is the current session's random client id.
func (c *Client) ClientID() wire.U128 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session.clientID
}

// Session is the bound session number, 0 while not logged in.
func (c *Client) Session() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session.session
}

// UserID is the logged-in user's id (meaningful only while logged in).
func (c *Client) UserID() uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session.userID
}

// LocalAddr is the client side of the connection, or nil once closed.
func (c *Client) LocalAddr() net.Addr {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return nil
	}
	return c.conn.LocalAddr()
}
