package main

import (
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"time"
)

// notifier speaks systemd's notification protocol: one datagram per state
// change to the unixgram socket named by NOTIFY_SOCKET ("@" names an
// abstract socket). READY=1 once every enabled transport accepts (OPS-11),
// WATCHDOG=1 at half of WATCHDOG_USEC while it runs (OPS-12), STOPPING=1
// when shutdown begins (OPS-13). Without NOTIFY_SOCKET it does nothing.
type notifier struct {
	log      *slog.Logger
	conn     *net.UnixConn // nil: notifications off
	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// watchdogIntervalMin bounds the ping rate whatever WATCHDOG_USEC says.
const watchdogIntervalMin = 10 * time.Millisecond

// newNotifier connects to NOTIFY_SOCKET, starts the watchdog pings and
// sends STOPPING=1 as soon as shutdown closes the stop channel.
func newNotifier(log *slog.Logger, shutdown <-chan struct{}) *notifier {
	n := newSocketNotifier(log)
	go func() {
		select {
		case <-shutdown: // a long drain is not a hang (OPS-13)
			n.Stopping()
		case <-n.stop:
		}
	}()
	return n
}

func newSocketNotifier(log *slog.Logger) *notifier {
	n := &notifier{log: log, stop: make(chan struct{}), done: make(chan struct{})}
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		close(n.done)
		return n
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		log.Warn("cannot reach the systemd notification socket", "socket", path, "err", err)
		close(n.done)
		return n
	}
	n.conn = conn
	if every, ok := watchdogInterval(); ok {
		go n.watchdog(every)
	} else {
		close(n.done)
	}
	return n
}

// watchdogInterval is half of WATCHDOG_USEC, when the watchdog is set for
// this process (WATCHDOG_PID, if present, names it).
func watchdogInterval() (time.Duration, bool) {
	usec, err := strconv.ParseUint(os.Getenv("WATCHDOG_USEC"), 10, 63)
	if err != nil || usec == 0 {
		return 0, false
	}
	if pid := os.Getenv("WATCHDOG_PID"); pid != "" && pid != strconv.Itoa(os.Getpid()) {
		return 0, false
	}
	return max(time.Duration(usec)*time.Microsecond/2, watchdogIntervalMin), true
}

func (n *notifier) watchdog(every time.Duration) {
	defer close(n.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
			n.send("WATCHDOG=1")
		}
	}
}

func (n *notifier) send(state string) {
	if n.conn == nil {
		return
	}
	if _, err := n.conn.Write([]byte(state + "\n")); err != nil {
		n.log.Warn("systemd notification failed", "state", state, "err", err)
	}
}

// Ready reports that the server is serving.
func (n *notifier) Ready() { n.send("READY=1") }

// Stopping reports that shutdown began and ends the watchdog pings; only
// the first call sends.
func (n *notifier) Stopping() {
	n.stopOnce.Do(func() {
		n.send("STOPPING=1")
		close(n.stop)
		<-n.done
	})
}

// Close sends STOPPING=1 if not sent yet and releases the socket.
func (n *notifier) Close() {
	n.Stopping()
	if n.conn != nil {
		_ = n.conn.Close()
	}
}
