package e2e

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/iggygo/iggy/client"
)

// Bounds of the harness. A server that needs longer than startTimeout to
// listen, or stopTimeout to exit on SIGTERM, fails the test.
const (
	startTimeout     = 20 * time.Second
	stopTimeout      = 15 * time.Second
	exitTimeout      = 15 * time.Second
	readyPollPeriod  = 20 * time.Millisecond
	listeningMarker  = "tcp listening on "
	rootUsername     = "iggy"
	rootPassword     = "iggy"
	requestTimeout   = 10 * time.Second
	outputBytesMax   = 8 << 20 // captured stdout/stderr per process
	outputTailBytes  = 4 << 10 // of each stream, in the report of a failed test's server
	buildTimeoutNote = "go build ./cmd/iggy-server ./cmd/iggy"
	// serverBinEnv names a server binary to test instead of the one built
	// here (one built with -race, say: go build -race -tags debug).
	serverBinEnv = "E2E_SERVER_BIN"
)

// serverBin is the server binary built once by TestMain, cliBin the iggy
// CLI built beside it.
var serverBin, cliBin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "iggy-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	serverBin = filepath.Join(dir, "iggy-server")
	cliBin = filepath.Join(dir, "iggy")
	// The debug tag makes unknown IGGY_ variables stop the boot (decisions.md),
	// which catches a misspelt variable in these tests.
	build := exec.Command("go", "build", "-tags", "debug", "-o", dir+"/", "./cmd/iggy-server", "./cmd/iggy")
	build.Dir = ".."
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %s failed: %v\n", buildTimeoutNote, err)
		return 1
	}
	if bin := os.Getenv(serverBinEnv); bin != "" {
		serverBin = bin
	}
	return m.Run()
}

// serverConfig is how one server process is started.
type serverConfig struct {
	dataDir     string            // IGGY_SYSTEM_PATH
	defaultRoot bool              // --with-default-root-credentials
	args        []string          // further flags (--fresh)
	env         map[string]string // further variables (IGGY_ROOT_USERNAME, ...)
	nofile      int               // when > 0, the soft and hard open-file limit the process starts with
	bin         string            // when set, the executable started instead of serverBin
}

// server is one running (or exited) iggy-server process.
type server struct {
	t      *testing.T
	cfg    serverConfig
	addr   string // the TCP address clients dial
	cmd    *exec.Cmd
	stdout *capture
	stderr *capture
	ready  chan string   // the address from the "tcp listening on" line
	done   chan struct{} // closed when the process has exited
	err    error         // Wait's result, valid once done is closed
	// exitedAt is when Wait returned, valid once done is closed.
	exitedAt time.Time
	// ended: the harness ended the process (stop, kill, cleanup) or the
	// test waits for it to exit (waitExit); any other exit is unexpected.
	ended atomic.Bool
}

// newDataDir returns a fresh, not yet existing data directory path.
func newDataDir(t *testing.T) string {
	return filepath.Join(t.TempDir(), "data")
}

// startServer starts a server on a fresh free port and waits until it
// accepts TCP connections. The process is always stopped by t.Cleanup.
func startServer(t *testing.T, cfg serverConfig) *server {
	t.Helper()
	s := launch(t, cfg, freeAddr(t))
	s.waitReady()
	return s
}

// freeAddr picks a loopback port that is free right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pick a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
}

// launch starts the process without waiting for it to serve.
func launch(t *testing.T, cfg serverConfig, addr string) *server {
	t.Helper()
	args := append([]string(nil), cfg.args...)
	if cfg.defaultRoot {
		args = append(args, "--with-default-root-credentials")
	}
	bin := cmp.Or(cfg.bin, serverBin)
	cmd := exec.Command(bin, args...)
	if cfg.nofile > 0 {
		limit := fmt.Sprintf("ulimit -n %d && exec \"$0\" \"$@\"", cfg.nofile)
		cmd = exec.Command("sh", append([]string{"-c", limit, bin}, args...)...)
	}
	cmd.Dir = filepath.Dir(cfg.dataDir)
	cmd.Env = serverEnv(cfg, addr)
	s := &server{t: t, cfg: cfg, addr: addr, cmd: cmd, ready: make(chan string, 1), done: make(chan struct{}),
		stdout: &capture{}, stderr: &capture{}}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("stdout pipe: %v", err)
	}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", serverBin, err)
	}
	t.Cleanup(s.cleanup)
	go s.scanStdout(stdout)
	return s
}

// serverEnv is the parent's environment without any IGGY_ variable (a stray
// one would stop a debug build), plus the test's settings.
func serverEnv(cfg serverConfig, addr string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "IGGY_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"IGGY_SYSTEM_PATH="+cfg.dataDir,
		"IGGY_TCP_ADDRESS="+addr,
		"IGGY_HTTP_ENABLED=false",
		"IGGY_QUIC_ENABLED=false",
		"IGGY_WEBSOCKET_ENABLED=false",
	)
	for k, v := range cfg.env {
		env = append(env, k+"="+v)
	}
	return env
}

// scanStdout captures stdout and reports the first "tcp listening on" line,
// then waits for the process (after stdout closes, as exec requires).
func (s *server) scanStdout(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	reported := false
	for sc.Scan() {
		line := sc.Text()
		s.stdout.Write([]byte(line + "\n"))
		if i := strings.Index(line, listeningMarker); i >= 0 && !reported {
			reported = true
			s.ready <- strings.TrimSpace(line[i+len(listeningMarker):])
		}
	}
	_, _ = io.Copy(s.stdout, r) // a line too long for the scanner
	s.err = s.cmd.Wait()
	s.exitedAt = time.Now()
	close(s.done)
}

// waitReady waits for the listening line or for the port to accept,
// whichever comes first, and fails the test if the process exits first.
func (s *server) waitReady() {
	s.t.Helper()
	deadline := time.After(startTimeout)
	tick := time.NewTicker(readyPollPeriod)
	defer tick.Stop()
	for {
		select {
		case addr := <-s.ready:
			if _, _, err := net.SplitHostPort(addr); err == nil {
				s.addr = addr
			}
			return
		case <-s.done:
			s.ended.Store(true) // reported here
			s.t.Fatalf("server exited before serving: %v\nstdout:\n%s\nstderr:\n%s", s.err, s.stdout, s.stderr)
		case <-deadline:
			s.t.Fatalf("server not listening on %s after %v\nstderr:\n%s", s.addr, startTimeout, s.stderr)
		case <-tick.C:
			if conn, err := net.DialTimeout("tcp", s.addr, readyPollPeriod*5); err == nil {
				conn.Close()
				return
			}
		}
	}
}

// stop sends SIGTERM and waits for a clean exit (status 0).
func (s *server) stop() {
	s.t.Helper()
	if s.exited() {
		return
	}
	s.ended.Store(true)
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(stopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.done
		s.t.Fatalf("server did not exit within %v of SIGTERM\nstderr:\n%s", stopTimeout, s.stderr)
	}
	if s.err != nil {
		s.t.Fatalf("server exited with %v after SIGTERM\nstderr:\n%s", s.err, s.stderr)
	}
}

// kill sends SIGKILL (a crash) and waits for the process to be gone.
func (s *server) kill() {
	if s.exited() {
		return
	}
	s.ended.Store(true)
	_ = s.cmd.Process.Kill()
	<-s.done
}

// restart starts a new process with the same configuration, data directory
// and address; the old one must have exited.
func (s *server) restart() *server {
	s.t.Helper()
	if !s.exited() {
		s.t.Fatal("restart of a running server")
	}
	next := launch(s.t, s.cfg, s.addr)
	next.waitReady()
	return next
}

func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// cleanup kills the process by PID if the test left it running. A process
// that exited by itself fails the test; when the test failed either way the
// process's fate and the tail of its output are reported, so a failure is
// never blamed on a crash that was the harness's own kill (a killed process
// shows as a zombie until it is reaped), nor a crash lost.
func (s *server) cleanup() {
	unexpected := s.exited() && !s.ended.Load()
	if !s.exited() {
		s.ended.Store(true)
		_ = s.cmd.Process.Kill()
		<-s.done
		if s.t.Failed() {
			s.t.Logf("server %s (pid %d) was running when the test ended and was killed by the harness\n%s", s.addr, s.cmd.Process.Pid, s.outputTail())
		}
		return
	}
	if unexpected {
		s.t.Errorf("server %s (pid %d) exited by itself during the test, %v before its end: %v\n%s",
			s.addr, s.cmd.Process.Pid, time.Since(s.exitedAt).Round(time.Millisecond), s.exitStatus(), s.outputTail())
	} else if s.t.Failed() {
		s.t.Logf("server %s (pid %d) was ended by the test: %v\n%s", s.addr, s.cmd.Process.Pid, s.exitStatus(), s.outputTail())
	}
}

// exitStatus is how the exited process ended: its exit code or the signal.
func (s *server) exitStatus() string {
	if st := s.cmd.ProcessState; st != nil {
		return st.String()
	}
	return fmt.Sprint(s.err)
}

// outputTail is the last outputTailBytes of the process's stdout and stderr.
func (s *server) outputTail() string {
	return fmt.Sprintf("stdout (tail):\n%s\nstderr (tail):\n%s", s.stdout.Tail(), s.stderr.Tail())
}

// waitExit waits for a process that is expected to exit by itself and
// returns its exit code.
func (s *server) waitExit() int {
	s.t.Helper()
	s.ended.Store(true)
	select {
	case <-s.done:
	case <-time.After(exitTimeout):
		s.t.Fatalf("server still running after %v; expected it to exit\nstderr:\n%s", exitTimeout, s.stderr)
	}
	var exit *exec.ExitError
	if errors.As(s.err, &exit) {
		return exit.ExitCode()
	}
	if s.err != nil {
		s.t.Fatalf("wait: %v", s.err)
	}
	return 0
}

// dial connects a new client that is not logged in.
func (s *server) dial() *client.Client {
	s.t.Helper()
	c, err := client.Dial(context.Background(), s.addr, client.Options{RequestTimeout: requestTimeout})
	if err != nil {
		s.t.Fatalf("dial %s: %v", s.addr, err)
	}
	s.t.Cleanup(func() { c.Close() })
	return c
}

// login dials and logs in as the given user.
func (s *server) login(username, password string) *client.Client {
	s.t.Helper()
	c := s.dial()
	if _, err := c.LoginUser(username, password); err != nil {
		s.t.Fatalf("login as %q: %v", username, err)
	}
	return c
}

// root dials and logs in as the default root user.
func (s *server) root() *client.Client {
	s.t.Helper()
	return s.login(rootUsername, rootPassword)
}

// capture is a bounded, concurrency-safe output buffer: the first
// outputBytesMax bytes, and the last outputTailBytes, where a crash's
// last words are however much came before.
type capture struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	last  []byte
	total int
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := outputBytesMax - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	c.total += len(p)
	c.last = append(c.last, p[max(0, len(p)-outputTailBytes):]...)
	if drop := len(c.last) - outputTailBytes; drop > 0 {
		c.last = append(c.last[:0], c.last[drop:]...)
	}
	return len(p), nil
}

// Tail is the last outputTailBytes written, from a line start when there
// is one in them, marked when something came before.
func (c *capture) Tail() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := string(c.last)
	if c.total <= len(c.last) {
		return out
	}
	if i := strings.IndexByte(out, '\n'); i >= 0 && i < len(out)-1 {
		out = out[i+1:]
	}
	return fmt.Sprintf("[%d bytes before]\n%s", c.total-len(out), out)
}

func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
