package transport

import (
	"errors"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// Accept retries. An accept that fails for want of descriptors (EMFILE,
// ENFILE) or because the client gave up first (ECONNABORTED) says nothing
// about the listener: it is retried after a pause that doubles from
// acceptRetryDelayMin to acceptRetryDelayMax, so a burst of failures
// neither spins a core nor ends the listener.
const (
	acceptRetryDelayMin = 5 * time.Millisecond
	acceptRetryDelayMax = time.Second
)

// Listener is a net.Listener whose Accept survives running out of
// descriptors. It keeps one spare descriptor (/dev/null): when the process
// is out of them, it closes the spare, accepts the waiting connection,
// closes that at once (the client sees a refusal instead of hanging in the
// backlog) and opens the spare again. Failures are logged once per burst.
type Listener struct {
	net.Listener
	name   string
	log    *slog.Logger
	closed chan struct{}
	once   sync.Once

	mu    sync.Mutex // Accept is called by one goroutine; Close by another
	spare *os.File
}

// NewListener wraps ln (the raw TCP listener, under any TLS layer) for the
// transport named name.
func NewListener(ln net.Listener, name string, log *slog.Logger) *Listener {
	l := &Listener{Listener: ln, name: name, log: log, closed: make(chan struct{})}
	l.spare = openSpare()
	return l
}

// openSpare opens the reserve descriptor; nil when even that fails (it is
// tried again after the next refusal).
func openSpare() *os.File {
	f, err := os.Open(os.DevNull)
	if err != nil {
		return nil
	}
	return f
}

// Accept waits for a connection, retrying the failures above; any other
// error (the listener closed) is returned.
func (l *Listener) Accept() (net.Conn, error) {
	delay := time.Duration(0)
	failures, refused := 0, 0
	for {
		c, err := l.Listener.Accept()
		if err == nil {
			if failures > 0 {
				l.log.Info(l.name+" accepting again", "failures", failures, "refused", refused)
			}
			return c, nil
		}
		if !retryable(err) {
			return nil, err
		}
		if failures == 0 {
			l.log.Warn(l.name+" accept failing; retrying with backoff until it succeeds", "err", err)
		}
		failures++
		if outOfDescriptors(err) && l.refuseOne() {
			refused++
		}
		delay = min(max(2*delay, acceptRetryDelayMin), acceptRetryDelayMax)
		select {
		case <-l.closed:
			return nil, net.ErrClosed
		case <-time.After(delay):
		}
	}
}

// refuseOne spends the spare descriptor on the connection waiting in the
// backlog and closes it; false when there is no spare or nothing waited.
func (l *Listener) refuseOne() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spare == nil {
		l.spare = openSpare()
		return false
	}
	_ = l.spare.Close()
	l.spare = nil
	refused := false
	if ra, ok := l.Listener.(interface{ SetDeadline(time.Time) error }); ok {
		// Only a connection already waiting: the descriptor is back soon.
		_ = ra.SetDeadline(time.Now().Add(acceptRetryDelayMin))
		if c, err := l.Listener.Accept(); err == nil {
			_ = c.Close()
			refused = true
		}
		_ = ra.SetDeadline(time.Time{})
	}
	l.spare = openSpare()
	return refused
}

// Close stops Accept, including one waiting out a retry delay.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.closed) })
	l.mu.Lock()
	if l.spare != nil {
		_ = l.spare.Close()
		l.spare = nil
	}
	l.mu.Unlock()
	return l.Listener.Close()
}

// retryable are the accept failures that leave the listener sound.
func retryable(err error) bool {
	return outOfDescriptors(err) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN)
}

func outOfDescriptors(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}
