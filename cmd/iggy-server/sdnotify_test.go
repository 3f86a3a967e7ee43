package main

import (
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// covers OPS-12
func TestWatchdogInterval(t *testing.T) {
	t.Setenv("WATCHDOG_USEC", "")
	if _, ok := watchdogInterval(); ok {
		t.Error("watchdog without WATCHDOG_USEC")
	}
	t.Setenv("WATCHDOG_USEC", "3000000")
	if every, ok := watchdogInterval(); !ok || every != 1500*time.Millisecond {
		t.Errorf("interval %v ok %v, want half of 3 s", every, ok)
	}
	t.Setenv("WATCHDOG_PID", "1")
	if _, ok := watchdogInterval(); ok {
		t.Error("watchdog of another process taken")
	}
	t.Setenv("WATCHDOG_PID", strconv.Itoa(os.Getpid()))
	if _, ok := watchdogInterval(); !ok {
		t.Error("watchdog of this process ignored")
	}
}

// READY=1 and STOPPING=1 reach the socket once each, STOPPING=1 as soon as
// shutdown begins.
// covers OPS-11, OPS-13
func TestNotifierStates(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Skipf("unixgram: %v", err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", sock)
	t.Setenv("WATCHDOG_USEC", "")
	shutdown := make(chan struct{})
	n := newNotifier(slog.New(slog.DiscardHandler), shutdown)
	n.Ready()
	close(shutdown)
	var got []string
	buf := make([]byte, 256)
	for len(got) < 2 {
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		k, err := conn.Read(buf)
		if err != nil {
			t.Fatalf("read: %v (got %q)", err, got)
		}
		got = append(got, strings.TrimSpace(string(buf[:k])))
	}
	n.Close()
	if got[0] != "READY=1" || got[1] != "STOPPING=1" {
		t.Errorf("states %q, want READY=1 then STOPPING=1", got)
	}
}
