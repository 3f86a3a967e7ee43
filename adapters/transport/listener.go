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
	// acceptBurstQuiet ends a burst of failures: the first accept that
	// succeeds this long after the last failure reports the burst over, so
	// accepts that alternate with failures are one burst, logged once.
	acceptBurstQuiet = time.Second
)

// Listener is a net.Listener whose Accept survives running out of
// descriptors. It keeps one spare descriptor (/dev/null): when the process
// is out of them, it closes the spare, accepts the waiting connection,
// closes that at once (the client sees a refusal instead of hanging in the
// backlog) and opens the spare again. Failures are logged once per burst.
// With a Gate, a connection past its bound is closed the same way.
type Listener struct {
	net.Listener
	name   string
	gate   *Gate // nil: no bound
	log    *slog.Logger
	closed chan struct{}
	once   sync.Once
	// The current bursts (Accept runs on one goroutine): accept failures,
	// the connections refused meanwhile, and refusals at the gate.
	failures, shut burst
	refused        int

	mu    sync.Mutex // Accept is called by one goroutine; Close by another
	spare *os.File
}

// NewListener wraps ln (the raw TCP listener, under any TLS layer) for the
// transport named name; gate may be nil.
func NewListener(ln net.Listener, name string, gate *Gate, log *slog.Logger) *Listener {
	l := &Listener{Listener: ln, name: name, gate: gate, log: log, closed: make(chan struct{})}
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
	for {
		c, err := l.Listener.Accept()
		if err == nil {
			l.succeeded()
			if c, ok := l.admit(c); ok {
				return c, nil
			}
			continue
		}
		if !retryable(err) {
			return nil, err
		}
		l.failed(err)
		delay = min(max(2*delay, acceptRetryDelayMin), acceptRetryDelayMax)
		select {
		case <-l.closed:
			return nil, net.ErrClosed
		case <-time.After(delay):
		}
	}
}

// burst is a run of events (accept failures, refusals) logged once: at
// its first event, and with its count at the first calm moment
// acceptBurstQuiet after its last.
type burst struct {
	count int
	last  time.Time
}

// hit counts an event; true for the first of a burst.
func (b *burst) hit() bool {
	b.count++
	b.last = time.Now()
	return b.count == 1
}

// calm ends a burst that has been quiet long enough and returns its count.
func (b *burst) calm() (int, bool) {
	if b.count == 0 || time.Since(b.last) < acceptBurstQuiet {
		return 0, false
	}
	n := b.count
	b.count = 0
	return n, true
}

// failed counts a retryable failure, logging the first of a burst, and
// spends the spare descriptor when the process is out of them.
func (l *Listener) failed(err error) {
	if l.failures.hit() {
		l.log.Warn(l.name+" accept failing; retrying with backoff until it succeeds", "err", err)
	}
	if outOfDescriptors(err) && l.refuseOne() {
		l.refused++
	}
}

// succeeded ends the burst of failures once accepts have succeeded for
// acceptBurstQuiet.
func (l *Listener) succeeded() {
	if n, ended := l.failures.calm(); ended {
		l.log.Info(l.name+" accepting again", "failures", n, "refused", l.refused)
		l.refused = 0
	}
}

// admit passes c through the gate, or closes it when the gate is full
// (logged once per burst of refusals).
func (l *Listener) admit(c net.Conn) (net.Conn, bool) {
	if l.gate == nil {
		return c, true
	}
	if !l.gate.enter() {
		_ = c.Close()
		if l.shut.hit() {
			l.log.Warn(l.name+" refusing connections: the open connections are at their bound", "max", l.gate.max)
		}
		return nil, false
	}
	if n, ended := l.shut.calm(); ended {
		l.log.Info(l.name+" admitting connections again", "refused", n)
	}
	return &gatedConn{Conn: c, gate: l.gate}, true
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
