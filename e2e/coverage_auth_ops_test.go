package e2e

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iggygo/iggy/wire"
)

// calloutRecorder is a stand-in external auth service that records every
// request and answers deny.
type calloutRecorder struct {
	mu     sync.Mutex
	bodies []string
}

func (r *calloutRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	r.mu.Lock()
	r.bodies = append(r.bodies, req.Method+" "+string(b))
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"decision":"deny"}`)
}

func (r *calloutRecorder) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies...)
}

func newCalloutRecorder(t *testing.T) (*calloutRecorder, string) {
	t.Helper()
	rec := &calloutRecorder{}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return rec, srv.URL
}

// With external_auth disabled (its default) no callout is made, even with a
// service URL configured, and a login naming an unknown user fails.
// covers AUTH-28
func TestCovExternalAuthDisabled(t *testing.T) {
	t.Parallel()
	rec, url := newCalloutRecorder(t)
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_EXTERNAL_AUTH_URL": url}})
	_, err := s.dial().LoginUser("nobody-here", "whatever-pass")
	wantEviction(t, "unknown user", err, wire.EvictInvalidCredentials)
	if calls := rec.calls(); len(calls) != 0 {
		t.Errorf("callouts with external_auth disabled: %q", calls)
	}
}

// With external_auth enabled, neither a wrong password for a known user nor
// a personal-access-token login (good or bad) calls the service out (an
// unknown user's login does: TestExternalAuthDecisions).
// covers AUTH-20, AUTH-21
func TestCovExternalAuthNoCalloutForKnownUsersAndTokens(t *testing.T) {
	t.Parallel()
	rec, url := newCalloutRecorder(t)
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_EXTERNAL_AUTH_ENABLED": "true", "IGGY_EXTERNAL_AUTH_URL": url}})
	root := s.root()
	if _, err := root.CreateUser("known-user", "known-pass", wire.UserStatusActive, nil); err != nil {
		t.Fatal(err)
	}
	token, err := root.CreatePersonalAccessToken("cli", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.dial().LoginUser("known-user", "wrong-pass")
	wantEviction(t, "wrong password", err, wire.EvictInvalidCredentials)
	if _, err := s.dial().LoginWithToken(token); err != nil {
		t.Fatalf("token login: %v", err)
	}
	_, err = s.dial().LoginWithToken(strings.Repeat("0", len(token)))
	wantEviction(t, "unknown token", err, wire.EvictInvalidToken)
	if calls := rec.calls(); len(calls) != 0 {
		t.Errorf("callouts: %q", calls)
	}
}

// At start the server raises its soft open-file limit to the hard limit:
// started with a soft limit of 256, it runs with soft = hard.
// covers OPS-14
func TestCovOpenFileLimitRaised(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to lower the soft limit")
	}
	dir := newDataDir(t)
	addr := freeAddr(t)
	cfg := serverConfig{dataDir: dir, defaultRoot: true}
	cmd := exec.Command("sh", "-c", `ulimit -S -n 256 && exec "$0" --with-default-root-credentials`, serverBin)
	cmd.Dir = filepath.Dir(dir)
	cmd.Env = serverEnv(cfg, addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(startTimeout)
	for {
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("server not listening")
		}
		time.Sleep(readyPollPeriod)
	}
	soft, hard := openFileLimits(t, cmd.Process.Pid)
	if soft != hard {
		t.Errorf("open files: soft %s, hard %s; want the soft limit raised to the hard one", soft, hard)
	}
}

// openFileLimits reads "Max open files" from /proc/<pid>/limits.
func openFileLimits(t *testing.T, pid int) (string, string) {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	if err != nil {
		t.Skipf("no /proc limits: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			f := strings.Fields(rest)
			if len(f) >= 2 {
				return f[0], f[1]
			}
		}
	}
	t.Fatalf("no open-files line in %s", data)
	return "", ""
}

// logFiles lists the regular files under dir.
func logFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// With logging.file_enabled = false no log file is written, neither under
// the configured logging.path nor anywhere else in the data directory.
// covers OPS-6
func TestCovNoLogFileWhenDisabled(t *testing.T) {
	t.Parallel()
	logDir := filepath.Join(t.TempDir(), "logs")
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_LOGGING_FILE_ENABLED": "false", "IGGY_LOGGING_PATH": logDir}})
	if _, err := s.root().CreateStream("logged"); err != nil {
		t.Fatal(err)
	}
	s.stop()
	if files := logFiles(t, logDir); len(files) != 0 {
		t.Errorf("log files written with file_enabled = false: %v", files)
	}
	for _, f := range logFiles(t, s.cfg.dataDir) {
		if strings.HasSuffix(f, ".log") && !strings.Contains(f, string(filepath.Separator)+"streams"+string(filepath.Separator)) {
			t.Errorf("a log file in the data directory: %s", f)
		}
	}
}

// logging.path names where log files are written: with file logging on, the
// server's log lines land in a file there.
// covers OPS-5
func TestCovLogFileWritten(t *testing.T) {
	t.Parallel()
	logDir := filepath.Join(t.TempDir(), "logs")
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_LOGGING_FILE_ENABLED": "true", "IGGY_LOGGING_PATH": logDir}})
	s.stop()
	files := logFiles(t, logDir)
	if len(files) == 0 {
		t.Fatalf("no log file under %s", logDir)
	}
	data, _ := os.ReadFile(files[0])
	if !strings.Contains(string(data), listeningMarker) {
		t.Errorf("log file %s lacks the listening line:\n%s", files[0], data)
	}
}

// logging.level sets the level: at "warn" no info line is written.
// covers OPS-4
func TestCovLogLevel(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_LOGGING_LEVEL": "warn"}})
	s.stop()
	if out := s.stderr.String(); strings.Contains(out, "level=INFO") {
		t.Errorf("info lines at level warn:\n%s", out)
	}
}

// With systemd notification (NOTIFY_SOCKET) the server sends READY=1 once
// its transports accept connections, WATCHDOG=1 at half of WATCHDOG_USEC,
// and STOPPING=1 when shutdown begins.
// covers OPS-11, OPS-12, OPS-13
func TestCovSystemdNotify(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Skipf("unixgram: %v", err)
	}
	defer conn.Close()
	var mu sync.Mutex
	var got []string
	var stamps []time.Time
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			mu.Lock()
			got = append(got, string(buf[:n]))
			stamps = append(stamps, time.Now())
			mu.Unlock()
		}
	}()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"NOTIFY_SOCKET": sock, "WATCHDOG_USEC": "1000000"}})
	_ = s.root() // accepting
	time.Sleep(2 * time.Second)
	s.stop()
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(got, "\n")
	for _, want := range []string{"READY=1", "WATCHDOG=1", "STOPPING=1"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %s among %q", want, got)
		}
	}
	watchdogs := strings.Count(all, "WATCHDOG=1")
	if watchdogs < 3 {
		t.Errorf("%d watchdog pings in ~2 s at WATCHDOG_USEC=1s, want one per 0.5 s", watchdogs)
	}
}
