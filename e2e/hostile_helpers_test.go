package e2e

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iggygo/iggy/wire"
)

// Helpers of the hostile-client tests: raw connections that speak only as
// much of the protocol as an attacker needs.

// graceShort is message_bus.handshake_grace in these tests, so the
// deadlines it sets are met within a test's run time.
const graceShort = "1 s"

// rawDial opens a plain TCP connection to addr, closed by t.Cleanup.
func rawDial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, requestTimeout)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// declaredHeader is a request header whose size field declares size bytes.
func declaredHeader(size uint32) []byte {
	h := pingFrame(1, 0)
	binary.LittleEndian.PutUint32(h[48:], size)
	return h
}

// pingFrame is a whole Ping request of client in session (0 before login;
// a Ping is served before login, 4.2).
func pingFrame(client, session uint64) []byte {
	h := wire.RequestHeader{Client: wire.U128{Lo: client}, Operation: wire.OpNonReplicated, NRCode: wire.CmdPing}
	if session != 0 {
		h.Session, h.Request = session, 1
	}
	return h.Bytes(0)
}

// loginFrame is a Register request with the root credentials.
func loginFrame(client uint64) []byte {
	var w wire.Writer
	wire.LoginPrefix{Version: wire.ProtocolVersionCurrent, SDKName: "e2e", SDKVersion: "1"}.Encode(&w)
	wire.LoginPassword{Username: rootUsername, Password: rootPassword}.Encode(&w)
	h := wire.RequestHeader{Client: wire.U128{Lo: client}, Operation: wire.OpRegister}
	return append(h.Bytes(len(w.Buf)), w.Buf...)
}

// readReply reads one reply frame and returns its header.
func readReply(t *testing.T, c net.Conn) wire.ReplyHeader {
	t.Helper()
	h, _ := readReplyBody(t, c)
	return h
}

// rawLogin logs c in as root over the raw protocol and returns the session.
func rawLogin(t *testing.T, c net.Conn, client uint64) uint64 {
	t.Helper()
	if _, err := c.Write(loginFrame(client)); err != nil {
		t.Fatalf("send login: %v", err)
	}
	h := readReply(t, c)
	if h.Status != wire.OK || h.Operation != wire.OpRegister {
		t.Fatalf("login reply: status %d operation %d", h.Status, h.Operation)
	}
	return h.Op // a Register reply carries the session in op (4.3)
}

// closedWithin waits up to limit for the server to close c (a read that
// ends in EOF or a reset, whatever arrived before) and returns how long it
// took; ok is false when c was still open at limit.
func closedWithin(c net.Conn, limit time.Duration) (time.Duration, bool) {
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(limit))
	buf := make([]byte, 64<<10)
	for {
		_, err := c.Read(buf)
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return time.Since(start), false
		}
		return time.Since(start), true
	}
}

// vmRSSKiB reads a process's resident set size (VmRSS, KiB).
func vmRSSKiB(t *testing.T, pid int) int64 {
	t.Helper()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skipf("no /proc status: %v", err)
	}
	kib, err := readVmRSSKiB(pid)
	if err != nil {
		t.Fatal(err)
	}
	return kib
}

// readVmRSSKiB is vmRSSKiB for a goroutine other than the test's, which
// must not stop the test: an exited process (a zombie until it is reaped)
// has no VmRSS.
func readVmRSSKiB(pid int) (int64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("rss of pid %d: %w", pid, err)
	}
	state := "unknown"
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "State:"); ok {
			state = strings.TrimSpace(rest)
		}
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				return n, nil
			}
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d (state %s): it has exited", pid, state)
}

// openFDs counts a process's open descriptors.
func openFDs(t *testing.T, pid int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		t.Skipf("no /proc fd: %v", err)
	}
	return len(entries)
}

// readReplyBody reads one reply frame and returns its header and body.
func readReplyBody(t *testing.T, c net.Conn) (wire.ReplyHeader, []byte) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(requestTimeout))
	defer c.SetReadDeadline(time.Time{})
	head := make([]byte, wire.HeaderSize)
	if _, err := io.ReadFull(c, head); err != nil {
		t.Fatalf("read a reply header: %v", err)
	}
	h, code := wire.DecodeReplyHeader(head)
	if code != wire.OK {
		t.Fatalf("reply header: code %d", code)
	}
	body := make([]byte, int(h.Size)-wire.HeaderSize)
	if _, err := io.ReadFull(c, body); err != nil {
		t.Fatalf("read a reply body: %v", err)
	}
	return h, body
}
