package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	serverStartTimeout = 20 * time.Second
	serverStopTimeout  = 10 * time.Second
	listeningMarker    = "tcp listening on "
)

// serverAddrs are the loopback addresses a started server listens on.
type serverAddrs struct{ tcp, quic, websocket string }

// startServer builds cmd/iggy-server (or takes IGGY_BENCH_SERVER_BIN, a
// prebuilt one) and runs it on fresh storage and a free loopback TCP port
// until the test ends.
func startServer(t *testing.T) string {
	t.Helper()
	return startServerWith(t, false).tcp
}

// freePort finds a free loopback port for network ("tcp" or "udp").
func freePort(t *testing.T, network string) string {
	t.Helper()
	if network == "udp" {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		return pc.LocalAddr().String()
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startServerWith starts the server as startServer does, with QUIC and
// WebSocket listening too when all is set.
func startServerWith(t *testing.T, all bool) serverAddrs {
	t.Helper()
	bin := os.Getenv("IGGY_BENCH_SERVER_BIN")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "iggy-server")
		build := exec.Command("go", "build", "-o", bin, "./cmd/iggy-server")
		build.Dir = "../.."
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./cmd/iggy-server: %v\n%s", err, out)
		}
	}
	addrs := serverAddrs{tcp: freePort(t, "tcp")}
	listeners := []string{"IGGY_QUIC_ENABLED=false", "IGGY_WEBSOCKET_ENABLED=false"}
	if all {
		addrs.quic, addrs.websocket = freePort(t, "udp"), freePort(t, "tcp")
		listeners = []string{"IGGY_QUIC_ADDRESS=" + addrs.quic, "IGGY_WEBSOCKET_ADDRESS=" + addrs.websocket}
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "--with-default-root-credentials")
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "IGGY_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "IGGY_SYSTEM_PATH="+filepath.Join(dir, "data"), "IGGY_TCP_ADDRESS="+addrs.tcp,
		"IGGY_HTTP_ENABLED=false")
	cmd.Env = append(cmd.Env, listeners...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start server: %v", err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), listeningMarker) {
				close(ready)
				break
			}
		}
		_, _ = bytes.NewBuffer(nil).ReadFrom(stdout)
	}()
	t.Cleanup(func() { stopServer(t, cmd) })
	select {
	case <-ready:
	case <-time.After(serverStartTimeout):
		t.Fatalf("server not listening after %v\n%s", serverStartTimeout, stderr.String())
	}
	return addrs
}

// stopServer ends the server it started, by its PID: SIGTERM, then SIGKILL.
func stopServer(t *testing.T, cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(serverStopTimeout):
		_ = cmd.Process.Kill()
		<-done
		t.Errorf("server ignored SIGTERM for %v", serverStopTimeout)
	}
}

// benchJSON runs iggy-bench in-process with --json and decodes its output.
func benchJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(append(args, "--json"), &out, &errOut); code != 0 {
		t.Fatalf("iggy-bench %v: exit %d\n%s", args, code, errOut.String())
	}
	var obj map[string]any
	dec := json.NewDecoder(&out)
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	if dec.More() {
		t.Fatalf("more than one JSON value on stdout:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), "iggy-bench "+args[0]+":") {
		t.Errorf("parameters not echoed:\n%s", errOut.String())
	}
	return obj
}

func checkResult(t *testing.T, obj map[string]any, actors int) {
	t.Helper()
	for _, k := range []string{"mb_per_sec", "msgs_per_sec", "p50_ms", "p99_ms", "p999_ms"} {
		v, ok := obj[k].(float64)
		if !ok || v <= 0 {
			t.Errorf("%s = %v, want a positive number", k, obj[k])
		}
	}
	if per, _ := obj["per_actor"].([]any); len(per) != actors {
		t.Errorf("per_actor has %d entries, want %d", len(per), actors)
	}
	if p, _ := obj["params"].(map[string]any); p == nil || p["message_size"] != float64(1000) {
		t.Errorf("params %v", obj["params"])
	}
}

// covers TOOL-12, TOOL-13, TOOL-14, TOOL-15
func TestBenchAgainstServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server")
	}
	addr := startServer(t)
	common := []string{"--addr", addr, "--actors", "2", "--message-size", "1000", "--messages-per-batch", "100", "--duration", "1s"}
	checkResult(t, benchJSON(t, append([]string{"pinned-producer"}, common...)...), 2)
	checkResult(t, benchJSON(t, append([]string{"pinned-consumer"}, common...)...), 2)
	checkResult(t, benchJSON(t, append([]string{"pinned-consumer", "--cold", "--stream-prefix", "cold"}, common...)...), 2)
	checkResult(t, benchJSON(t, append([]string{"pinned-producer", "--durability", "persisted"}, common...)...), 2)
	pc := benchJSON(t, append([]string{"pinned-producer-and-consumer"}, common...)...)
	checkResult(t, pc, 4)
	if pc["producers"] == nil || pc["consumers"] == nil {
		t.Errorf("producer and consumer summaries missing: %v", pc)
	}
	counted := []string{"--addr", addr, "--actors", "2", "--messages-per-batch", "100", "--total-messages", "4000"}
	g := benchJSON(t, append([]string{"consumer-group", "--partitions", "2"}, counted...)...)
	if g["total_messages"] != float64(4000) {
		t.Errorf("consumer group read %v messages, want 4000", g["total_messages"])
	}
	// A warm-up may read everything; the group starts over after it and the
	// measured phase reads it all again (TOOL-12).
	gw := benchJSON(t, append([]string{"consumer-group", "--partitions", "2", "--warmup", "300ms",
		"--stream-prefix", "warm"}, counted...)...)
	if gw["total_messages"] != float64(4000) {
		t.Errorf("consumer group after a warm-up read %v messages, want 4000", gw["total_messages"])
	}
	b := benchJSON(t, append([]string{"balanced-producer", "--warmup", "200ms", "--rate-limit", "50MB/s"}, counted...)...)
	if b["total_messages"] != float64(4000) {
		t.Errorf("balanced producers sent %v messages, want 4000", b["total_messages"])
	}
}

// The workloads run over QUIC and WebSocket too, with the same checks of
// what the consumers read.
//
// covers TOOL-13
func TestBenchOverQUICAndWebSocket(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server")
	}
	addrs := startServerWith(t, true)
	for transport, addr := range map[string]string{"quic": addrs.quic, "websocket": addrs.websocket} {
		common := []string{"--addr", addr, "--transport", transport, "--actors", "2", "--message-size", "1000",
			"--messages-per-batch", "100", "--duration", "1s", "--stream-prefix", transport}
		for _, workload := range []string{"pinned-producer", "pinned-consumer"} {
			obj := benchJSON(t, append([]string{workload}, common...)...)
			checkResult(t, obj, 2)
			if p, _ := obj["params"].(map[string]any); p["transport"] != transport {
				t.Errorf("%s over %s: params say transport %v", workload, transport, p["transport"])
			}
		}
	}
}
