package e2e

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// Bounds of the hostile-client tests. closeSlack is what a deadline may be
// late by on a loaded two-core machine.
const (
	closeSlack      = 2 * time.Second
	frameBytesHuge  = 64 << 20 // the largest frame the protocol allows
	preLoginCap     = 16 << 10 // transport.PreLoginFrameBytesMax
	rssGrowthMaxKiB = 64 << 10 // 64 MiB: far below one huge frame per attacker
)

// A connection that never logs in is closed once message_bus.handshake_grace
// has passed, whether it sends nothing or half a header; one that declares a
// frame above the pre-login cap is closed at once; a small frame (Ping) is
// still served before login. Issue 11, item 7 (and 3: the cap).
func TestUnauthenticatedConnectionsAreClosed(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_MESSAGE_BUS_HANDSHAKE_GRACE": graceShort}})
	pinger := rawDial(t, s.addr)
	if _, err := pinger.Write(pingFrame(1, 0)); err != nil {
		t.Fatal(err)
	}
	if h := readReply(t, pinger); h.Status != wire.OK {
		t.Fatalf("ping before login: status %d", h.Status)
	}
	cases := []struct {
		name  string
		send  []byte
		limit time.Duration
	}{
		{"silent", nil, time.Second + closeSlack},
		{"half a header", pingFrame(1, 0)[:100], time.Second + closeSlack},
		{"a declared 64 MiB frame", declaredHeader(frameBytesHuge), closeSlack},
		{"a frame just above the pre-login cap", declaredHeader(preLoginCap + 1), closeSlack},
	}
	var wg sync.WaitGroup
	for _, tc := range cases {
		c := rawDial(t, s.addr)
		if len(tc.send) > 0 {
			if _, err := c.Write(tc.send); err != nil {
				t.Fatal(err)
			}
		}
		wg.Go(func() {
			took, closed := closedWithin(c, tc.limit)
			if !closed {
				t.Errorf("%s: connection still open after %v", tc.name, took)
				return
			}
			t.Logf("%s: closed after %v", tc.name, took.Round(time.Millisecond))
		})
	}
	wg.Wait()
}

// A logged-in connection may stay silent between frames for longer than
// the grace (protocol-framing.md 4.2 keeps idle connections), but a frame it
// starts must arrive whole by its deadline (grace + size at 256 KiB/s).
// Issue 11, item 7.
func TestLoggedInFramesHaveDeadlines(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_MESSAGE_BUS_HANDSHAKE_GRACE": graceShort}})
	halfHeader := rawDial(t, s.addr)
	halfBody := rawDial(t, s.addr)
	sessions := []uint64{rawLogin(t, halfHeader, 1), rawLogin(t, halfBody, 2)}
	time.Sleep(2500 * time.Millisecond) // idle past the grace and the login deadline
	for i, c := range []net.Conn{halfHeader, halfBody} {
		if _, err := c.Write(pingFrame(uint64(i+1), sessions[i])); err != nil {
			t.Fatal(err)
		}
		if h := readReply(t, c); h.Status != wire.OK {
			t.Fatalf("ping after idling: status %d", h.Status)
		}
	}
	if _, err := halfHeader.Write(pingFrame(1, sessions[0])[:100]); err != nil {
		t.Fatal(err)
	}
	body := append(declaredHeader(wire.HeaderSize+1000), make([]byte, 100)...)
	if _, err := halfBody.Write(body); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]net.Conn{"half a header": halfHeader, "half a body": halfBody} {
		// The deadline is the grace and the frame's size at 256 KiB/s;
		// TCP cuts off up to one grace later.
		took, closed := closedWithin(c, 2*time.Second+closeSlack)
		if !closed {
			t.Errorf("%s after login: still open after %v", name, took)
		}
	}
}

// Twenty connections that declare 64 MiB frames and send all but the last
// byte, without logging in, make the server hold next to nothing: each is
// closed at its header. Issue 11, item 3 (RSS went from 39 to 1,318 MB).
func TestDeclaredHugeFramesHoldNoMemory(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	pid := s.cmd.Process.Pid
	before := vmRSSKiB(t, pid)
	const attackers = 20
	peak := sampleRSS(t, pid, func() {
		var wg sync.WaitGroup
		for range attackers {
			c := rawDial(t, s.addr)
			wg.Go(func() { sendHuge(c, time.Now().Add(10*time.Second)) })
		}
		wg.Wait()
	})
	after := vmRSSKiB(t, pid)
	t.Logf("%d attackers declaring 64 MiB frames: server RSS before %d KiB, peak %d KiB, after %d KiB", attackers, before, peak, after)
	if peak-before > rssGrowthMaxKiB {
		t.Errorf("server RSS grew by %d KiB under %d unauthenticated 64 MiB frames (bound %d KiB)", peak-before, attackers, rssGrowthMaxKiB)
	}
	s.root() // still serving
}

// sendHuge declares a 64 MiB frame on c and sends all of it but the last
// byte, until the server closes c or until deadline.
func sendHuge(c net.Conn, deadline time.Time) {
	_ = c.SetWriteDeadline(deadline)
	if _, err := c.Write(declaredHeader(frameBytesHuge)); err != nil {
		return
	}
	chunk := make([]byte, 1<<20)
	for left := frameBytesHuge - wire.HeaderSize - 1; left > 0; left -= len(chunk) {
		if _, err := c.Write(chunk[:min(left, len(chunk))]); err != nil {
			return
		}
	}
}

// rssSamplePeriod is how often sampleRSS reads the server's RSS.
const rssSamplePeriod = 20 * time.Millisecond

// sampleRSS runs f and returns the highest VmRSS of pid seen meanwhile.
// The sampler stops when f returns or stops the test, and at the first
// read that fails, which then fails the test (from the test's goroutine)
// once f has returned.
func sampleRSS(t *testing.T, pid int, f func()) int64 {
	t.Helper()
	done := make(chan struct{})
	type result struct {
		peak int64
		err  error
	}
	out := make(chan result, 1)
	go func() {
		var r result
		tick := time.NewTicker(rssSamplePeriod)
		defer tick.Stop()
		for {
			kib, err := readVmRSSKiB(pid)
			if err != nil {
				r.err = err
				out <- r
				return
			}
			r.peak = max(r.peak, kib)
			select {
			case <-done:
				out <- r
				return
			case <-tick.C:
			}
		}
	}()
	func() {
		defer close(done)
		f()
	}()
	r := <-out
	if r.err != nil {
		t.Fatalf("sampling the server's RSS: %v", r.err)
	}
	return r.peak
}

// Running out of descriptors does not stop the TCP listener: with the
// server's open-file limit lowered to a few above what it holds, a burst of
// connections makes accept fail (logged once), and once they are gone a
// client logs in, sends and polls again. Issue 11, item 2 (the listener
// returned on the first EMFILE and never accepted again).
// covers TRAN-1
func TestTCPListenerSurvivesDescriptorExhaustion(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		// The attackers stay until the test closes them.
		env: map[string]string{"IGGY_MESSAGE_BUS_HANDSHAKE_GRACE": "60 s"}})
	setOpenFileLimit(t, s.cmd.Process.Pid, uint64(openFDs(t, s.cmd.Process.Pid)+16))
	var attackers []net.Conn
	for range 64 {
		attackers = append(attackers, rawDial(t, s.addr)) // the backlog takes them
	}
	waitLog(t, s, "tcp accept failing", 10*time.Second)
	for _, c := range attackers {
		c.Close()
	}
	took := servedWithin(t, s.addr, 10*time.Second)
	t.Logf("served %v after the attackers closed", took.Round(time.Millisecond))
	if n := strings.Count(s.stderr.String(), "tcp accept failing"); n != 1 {
		t.Errorf("the accept failure was logged %d times, want once per burst", n)
	}
}

// setOpenFileLimit sets both open-file limits of pid (we run as root).
func setOpenFileLimit(t *testing.T, pid int, n uint64) {
	t.Helper()
	lim := unix.Rlimit{Cur: n, Max: n}
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &lim, nil); err != nil {
		t.Skipf("cannot lower the server's open-file limit: %v", err)
	}
}

// waitLog waits until the server's log holds want.
func waitLog(t *testing.T, s *server, want string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !strings.Contains(s.stderr.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log within %v\nstderr:\n%s", want, limit, s.stderr)
		}
		time.Sleep(readyPollPeriod)
	}
}

// servedWithin retries a whole session (dial, login, create, send, poll)
// until one succeeds, and returns how long that took; it fails t past limit.
func servedWithin(t *testing.T, addr string, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	var err error
	for n := 0; time.Since(start) < limit; n++ {
		if err = goodSession(addr, fmt.Sprintf("after-%d", n), time.Second); err == nil {
			return time.Since(start)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no session served within %v: %v", limit, err)
	return 0
}

// goodSession is a well-behaved client: it logs in, creates a stream and a
// topic named name, sends a message and polls it back.
func goodSession(addr, name string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err := client.Dial(ctx, addr, client.Options{RequestTimeout: timeout})
	if err != nil {
		return fmt.Errorf("dial: %w", err)
	}
	defer c.Close()
	if _, err := c.LoginUser(rootUsername, rootPassword); err != nil {
		return fmt.Errorf("login: %w", err)
	}
	return sendAndPoll(c, name)
}

// sendAndPoll creates stream and topic name, sends one message, polls it.
func sendAndPoll(c *client.Client, name string) error {
	if _, err := c.CreateStream(name); err != nil {
		return fmt.Errorf("create stream: %w", err)
	}
	stream := wire.NamedID(name)
	if _, err := c.CreateTopic(stream, name, 1, nil); err != nil {
		return fmt.Errorf("create topic: %w", err)
	}
	topic := wire.NamedID(name)
	payload := []byte("well-behaved " + name)
	part0 := wire.Partitioning{Kind: wire.PartitioningPartitionID, PartitionID: 0}
	if _, err := c.SendMessages(stream, topic, part0, []client.Message{{Payload: payload}}); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	part := uint32(0)
	_, msgs, err := c.PollMessages(client.Consumer(1), stream, topic, &part, wire.PollFirst, 0, 10, false)
	if err != nil {
		return fmt.Errorf("poll: %w", err)
	}
	if len(msgs) != 1 || string(msgs[0].Payload) != string(payload) {
		return fmt.Errorf("poll: %d messages, want the one sent", len(msgs))
	}
	return nil
}

// A server whose open-file limit cannot cover the storage of its shards and
// a connection per client-table session refuses to start with status 4,
// naming the numbers; the same limit serves a configuration it covers.
// (Not OPS-15, which is about running out at run time: this node retries
// a failed write instead, DESIGN "Durability".)
func TestOpenFileLimitTooLowExits4(t *testing.T) {
	t.Parallel()
	low := launch(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true, nofile: 1000}, freeAddr(t))
	if code := low.waitExit(); code != 4 {
		t.Fatalf("exit status %d with 1000 open files, want 4\nstderr:\n%s", code, low.stderr)
	}
	if !strings.Contains(low.stderr.String(), "open-file limit 1000 cannot cover") {
		t.Errorf("the refusal does not name the limit:\n%s", low.stderr)
	}
	fits := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true, nofile: 1300, env: map[string]string{
		"IGGY_SHARDING_CPU_ALLOCATION": "1", "IGGY_METADATA_CLIENTS_TABLE_MAX": "64"}})
	fits.root()
	// 1300 - 1024 (one shard's storage) - 64 (reserve) connections at most.
	waitLog(t, fits, "connections_max=212", 5*time.Second)
}

// The HTTP listener cuts off a request whose header or body stalls: the
// header within message_bus.handshake_grace, the whole request within the
// grace plus http.max_request_size at 256 KiB/s (here 1 s + 0.25 s).
// Issue 11, item 7 (half a body was held for 6 minutes).
func TestHTTPStalledRequestsAreCutOff(t *testing.T) {
	t.Parallel()
	h := startHTTPServer(t, map[string]string{"IGGY_MESSAGE_BUS_HANDSHAKE_GRACE": graceShort,
		"IGGY_HTTP_MAX_REQUEST_SIZE": "64 KiB"})
	addr := strings.TrimPrefix(h.base, "http://")
	halfHeader := rawDial(t, addr)
	halfBody := rawDial(t, addr)
	sends := map[net.Conn]string{
		halfHeader: "POST /users/login HTTP/1.1\r\nHost: iggy\r\nContent-Ty",
		halfBody: "POST /users/login HTTP/1.1\r\nHost: iggy\r\nContent-Type: application/json\r\n" +
			"Content-Length: 1000\r\n\r\n{\"username\": \"iggy\", ",
	}
	for c, text := range sends {
		if _, err := c.Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range map[string]net.Conn{"half a header": halfHeader, "half a body": halfBody} {
		took, closed := closedWithin(c, 1250*time.Millisecond+closeSlack)
		if !closed {
			t.Errorf("http %s: still open after %v", name, took)
			continue
		}
		t.Logf("http %s: closed after %v", name, took.Round(time.Millisecond))
	}
}
