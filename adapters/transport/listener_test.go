package transport

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// failingListener fails its first accepts with err, then accepts.
type failingListener struct {
	net.Listener
	fails int
	err   error
}

func (f *failingListener) Accept() (net.Conn, error) {
	if f.fails > 0 {
		f.fails--
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", f.err)}
	}
	return f.Listener.Accept()
}

func loopback(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// Accept failures for want of descriptors, or from an aborted handshake,
// are retried (once logged) until a connection comes; the listener
// survives them.
func TestAcceptRetriesDescriptorExhaustion(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ECONNABORTED} {
		raw := loopback(t)
		var logged bytes.Buffer
		l := NewListener(&failingListener{Listener: raw, fails: 5, err: errno}, "tcp", nil, slog.New(slog.NewTextHandler(&logged, nil)))
		go func() {
			if c, err := net.Dial("tcp", raw.Addr().String()); err == nil {
				defer c.Close()
				time.Sleep(time.Second)
			}
		}()
		c, err := l.Accept()
		if err != nil {
			t.Fatalf("%v: accept gave up: %v", errno, err)
		}
		c.Close()
		if n := strings.Count(logged.String(), "accept failing"); n != 1 {
			t.Fatalf("%v: the burst was logged %d times, want once:\n%s", errno, n, logged.String())
		}
		l.Close()
	}
}

// Another accept error (the listener closed) ends Accept, even one waiting
// out a retry delay.
func TestAcceptEndsOnClose(t *testing.T) {
	l := NewListener(&failingListener{Listener: loopback(t), fails: 1 << 30, err: syscall.EMFILE}, "tcp", nil, slog.New(slog.DiscardHandler))
	done := make(chan error, 1)
	go func() { _, err := l.Accept(); done <- err }()
	time.Sleep(20 * time.Millisecond)
	l.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Accept after Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept still waiting after Close")
	}
}

// Past the gate's bound a connection is accepted and closed at once; a
// closed connection gives its place back.
func TestGateBoundsOpenConnections(t *testing.T) {
	raw := loopback(t)
	l := NewListener(raw, "tcp", NewGate(1), slog.New(slog.DiscardHandler))
	defer l.Close()
	addr := raw.Addr().String()
	first, _ := net.Dial("tcp", addr)
	defer first.Close()
	inside, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	second, _ := net.Dial("tcp", addr)
	defer second.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			accepted <- c
		}
	}()
	_ = second.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := second.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("a connection past the bound: read %v, want it closed", err)
	}
	inside.Close()
	third, _ := net.Dial("tcp", addr)
	defer third.Close()
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("the place of a closed connection was not given back")
	}
}
