package client

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/quic-go/quic-go"
)

// quicKeepAlivePeriod keeps an idle client connection open (the server's
// default idle timeout is 30 s); the SDK's default keep-alive is 10 s too.
const quicKeepAlivePeriod = 10 * time.Second

// streamReleased is the error code with which a finished reply stream's
// receive side is released.
const streamReleased quic.StreamErrorCode = 0

// dialQUIC connects over QUIC. Without opts.TLS the server's certificate is
// not verified (servers generate a self-signed one by default). No ALPN is
// offered, as the reference server selects none.
func dialQUIC(ctx context.Context, addr string, opts Options) (net.Conn, error) {
	tlsCfg := &tls.Config{InsecureSkipVerify: true}
	if opts.TLS != nil {
		tlsCfg = tlsConfigFor(opts.TLS, addr)
	}
	qc, err := quic.DialAddr(ctx, addr, tlsCfg, &quic.Config{KeepAlivePeriod: quicKeepAlivePeriod})
	if err != nil {
		return nil, fmt.Errorf("iggy: quic dial %s: %w", addr, err)
	}
	return &quicConn{qc: qc}, nil
}

// quicConn presents a QUIC connection as the net.Conn of the client's round
// trip: each Write (one whole request frame, the client writes a frame with
// one call) opens a bidirectional stream, writes the frame and finishes the
// stream; Reads come from that stream, which carries the reply
// (protocol-framing.md 1.1). The client serializes calls, so one stream is
// in use at a time.
type quicConn struct {
	qc *quic.Conn
	st *quic.Stream // the stream of the latest request
	// beside are requests written while st's reply was unread (a deferred
	// poll's cancel), oldest first; their replies are read after st's.
	beside        []*quic.Stream
	readDeadline  time.Time
	writeDeadline time.Time
}

func (c *quicConn) Write(p []byte) (int, error) {
	c.release()
	ctx := context.Background()
	if !c.writeDeadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, c.writeDeadline)
		defer cancel()
	}
	st, err := c.qc.OpenStreamSync(ctx)
	if err != nil {
		return 0, fmt.Errorf("open a request stream: %w", err)
	}
	_ = st.SetReadDeadline(c.readDeadline)
	_ = st.SetWriteDeadline(c.writeDeadline)
	c.st = st
	n, err := st.Write(p)
	if err != nil {
		return n, err
	}
	return n, st.Close()
}

// release gives up the receive side of the previous request's stream, so
// quic-go can forget the stream (its reply has been read).
func (c *quicConn) release() {
	if c.st != nil {
		c.st.CancelRead(streamReleased)
		c.st = nil
	}
	for _, st := range c.beside {
		st.CancelRead(streamReleased)
	}
	c.beside = nil
}

// WriteBeside sends frame on a stream of its own while the latest
// request's reply is still being read; NextReply then reads its reply.
func (c *quicConn) WriteBeside(frame []byte) error {
	st, err := c.qc.OpenStream()
	if err != nil {
		return fmt.Errorf("open a request stream: %w", err)
	}
	_ = st.SetReadDeadline(c.readDeadline)
	_ = st.SetWriteDeadline(c.writeDeadline)
	if _, err := st.Write(frame); err != nil {
		return err
	}
	c.beside = append(c.beside, st)
	return st.Close()
}

// NextReply moves reading on to the oldest request written beside.
func (c *quicConn) NextReply() {
	if len(c.beside) == 0 {
		return
	}
	next := c.beside[0]
	c.beside = c.beside[1:]
	if c.st != nil {
		c.st.CancelRead(streamReleased)
	}
	c.st = next
}

func (c *quicConn) Read(p []byte) (int, error) {
	if c.st == nil {
		return 0, io.EOF // no request, so no reply to read
	}
	return c.st.Read(p)
}

func (c *quicConn) Close() error {
	c.release()
	return c.qc.CloseWithError(0, "")
}

func (c *quicConn) LocalAddr() net.Addr  { return c.qc.LocalAddr() }
func (c *quicConn) RemoteAddr() net.Addr { return c.qc.RemoteAddr() }

func (c *quicConn) SetDeadline(t time.Time) error {
	_ = c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *quicConn) SetReadDeadline(t time.Time) error {
	c.readDeadline = t
	if c.st != nil {
		return c.st.SetReadDeadline(t)
	}
	return nil
}

func (c *quicConn) SetWriteDeadline(t time.Time) error {
	c.writeDeadline = t
	if c.st != nil {
		return c.st.SetWriteDeadline(t)
	}
	return nil
}
