package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cliCommandTimeout bounds one run of the iggy binary.
const cliCommandTimeout = 30 * time.Second

// cli runs the iggy binary against one server with a private HOME.
type cli struct {
	t         *testing.T
	addr      string
	transport string // empty: the default (tcp), or the saved session's
	env       []string
}

func newCLI(t *testing.T, s *server, home string, env ...string) *cli {
	return &cli{t: t, addr: s.addr, env: append([]string{"HOME=" + home}, env...)}
}

// run executes iggy with --output json (and --address, unless addr is
// empty) and returns its exit code, stdout and stderr.
func (c *cli) run(stdin string, args ...string) (int, []byte, []byte) {
	c.t.Helper()
	flags := []string{"--output", "json"}
	if c.addr != "" {
		flags = append(flags, "--address", c.addr)
	}
	if c.transport != "" {
		flags = append(flags, "--transport", c.transport)
	}
	cmd := exec.Command(cliBin, append(flags, args...)...)
	cmd.Env = c.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	timer := time.AfterFunc(cliCommandTimeout, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	code := 0
	if err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			c.t.Fatalf("iggy %q: %v", args, err)
		}
		code = exit.ExitCode()
	}
	return code, out.Bytes(), errOut.Bytes()
}

// ok runs iggy, requires exit 0 and decodes its JSON output into v (nil: ignore).
func (c *cli) ok(stdin string, v any, args ...string) {
	c.t.Helper()
	code, out, errOut := c.run(stdin, args...)
	if code != 0 {
		c.t.Fatalf("iggy %q: exit %d: %s", args, code, errOut)
	}
	if v != nil {
		if err := json.Unmarshal(out, v); err != nil {
			c.t.Fatalf("iggy %q: output is not JSON: %v\n%s", args, err, out)
		}
	}
}

// The real iggy binary drives the real server through a whole session with
// --output json: create a stream and a topic, send from standard input,
// poll back, set a topic option, create a user, take a snapshot, keep a
// login session, delete, and see a refusal's code and exit status.
func TestCLISession(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	cliSession(t, s, s.addr, "")
}

// The same session through the server's REST API (--transport http): a
// JWT login, then the saved personal access token as the bearer.
func TestCLISessionOverHTTP(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true, env: map[string]string{
		"IGGY_HTTP_ENABLED": "true", "IGGY_HTTP_ADDRESS": "127.0.0.1:0"}})
	cliSession(t, s, listeningAddr(t, s, "http listening on "), transportHTTP)
}

// cliSession runs the session against s at addr over transport.
func cliSession(t *testing.T, s *server, addr, transport string) {
	home := t.TempDir()
	withEnv := newCLI(t, s, home, "IGGY_USERNAME="+rootUsername, "IGGY_PASSWORD="+rootPassword)
	withEnv.addr, withEnv.transport = addr, transport
	var ping struct{ OK bool }
	withEnv.ok("", &ping, "ping")
	// A saved login session serves the later commands, given no
	// credentials: one argon2 check in all, not one per command.
	withEnv.ok("", nil, "session", "login", "--expiry", "1h")
	if fi, err := os.Stat(filepath.Join(home, ".iggy", "session.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("session file: %v, %v (want rights 0600)", fi, err)
	}
	c := newCLI(t, s, home)
	c.addr, c.transport = addr, transport
	var me struct {
		UserID    uint32 `json:"user_id"`
		Transport string `json:"transport"`
	}
	c.ok("", &me, "me")
	// Given no address either, a command goes to the session's server.
	(&cli{t: t, env: c.env}).ok("", &me, "me")
	if transport != "" && me.Transport != transport {
		t.Fatalf("me over the saved %s session: transport %q", transport, me.Transport)
	}

	var stream struct {
		ID   uint32
		Name string
	}
	c.ok("", &stream, "stream", "create", "orders")
	if stream.Name != "orders" {
		t.Fatalf("stream create: %+v", stream)
	}
	var topic struct {
		Name       string
		Partitions []struct{ ID uint32 }
	}
	c.ok("", &topic, "topic", "create", "orders", "events", "2")
	if topic.Name != "events" || len(topic.Partitions) != 2 {
		t.Fatalf("topic create: %+v", topic)
	}

	var sent struct {
		MessagesCount int `json:"messages_count"`
	}
	c.ok("one\ntwo\nthree\n", &sent, "message", "send", "orders", "events", "--partition", "1", "--header", "source:string:cli")
	if sent.MessagesCount != 3 {
		t.Fatalf("sent %d messages, want 3", sent.MessagesCount)
	}
	var polled struct {
		Messages []struct {
			Offset  uint64
			Payload string
			Headers map[string]string
		}
	}
	c.ok("", &polled, "message", "poll", "orders", "events", "1", "--offset", "0", "--count", "10")
	var got []string
	for i, m := range polled.Messages {
		got = append(got, m.Payload)
		if m.Offset != uint64(i) || m.Headers["source"] != "cli" {
			t.Errorf("message %d: %+v", i, m)
		}
	}
	if strings.Join(got, ",") != "one,two,three" {
		t.Fatalf("polled %q", got)
	}

	c.ok("", nil, "topic", "update", "orders", "events", "--set", "message_expiry=1 day")
	var updated struct{ Options map[string]string }
	c.ok("", &updated, "topic", "get", "orders", "events")
	if updated.Options["message_expiry"] != "86400000000" {
		t.Fatalf("message_expiry after update: %q (%v)", updated.Options["message_expiry"], updated.Options)
	}

	var user struct {
		Username    string
		Permissions []string `json:"global_permissions"`
	}
	c.ok("", &user, "user", "create", "alice", "alice-pass", "--permissions", "read_streams,poll_messages")
	if user.Username != "alice" || strings.Join(user.Permissions, ",") != "read_streams,poll_messages" {
		t.Fatalf("user create: %+v", user)
	}

	cliTour(t, c)

	dir := t.TempDir()
	var snap struct{ Path string }
	c.ok("", &snap, "snapshot", "--dir", dir)
	if zip, err := os.ReadFile(snap.Path); err != nil || !bytes.HasPrefix(zip, []byte("PK")) {
		t.Fatalf("snapshot %q: %v", snap.Path, err)
	}

	c.ok("", nil, "topic", "delete", "orders", "events")
	c.ok("", nil, "stream", "delete", "orders")
	var streams []any
	c.ok("", &streams, "stream", "list")
	if len(streams) != 0 {
		t.Fatalf("streams after delete: %v", streams)
	}
	code, _, errOut := c.run("", "stream", "create", "orders", "--no-such-flag")
	if code != 2 {
		t.Fatalf("a wrong flag: exit %d, want 2 (%s)", code, errOut)
	}
	code, _, errOut = c.run("", "topic", "create", "no-such-stream", "t", "1")
	var refusal struct {
		Error struct {
			Code uint32
			Name string
		}
	}
	if code != 1 || json.Unmarshal(errOut, &refusal) != nil || refusal.Error.Code == 0 || refusal.Error.Name == "" {
		t.Fatalf("a refused create: exit %d, stderr %s", code, errOut)
	}
	if transport == transportHTTP {
		// A command the REST API has no route for refuses before sending.
		if code, _, errOut := c.run("", "consumer-group", "join", "orders", "events", "g"); code != 2 || !bytes.Contains(errOut, []byte("REST API")) {
			t.Fatalf("consumer-group join over http: exit %d, want 2 (%s)", code, errOut)
		}
	}
	c.ok("", nil, "session", "logout")
	if code, _, errOut := c.run("", "stream", "list"); code != 2 {
		t.Fatalf("no credentials after logout: exit %d, want 2 (%s)", code, errOut)
	}
}

// The CLI speaks QUIC and WebSocket as well as TCP: `me` over each reports
// the transport the server saw.
func TestCLIOverQUICAndWebSocket(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true, env: map[string]string{
		"IGGY_WEBSOCKET_ENABLED": "true", "IGGY_WEBSOCKET_ADDRESS": "127.0.0.1:0",
		"IGGY_QUIC_ENABLED": "true", "IGGY_QUIC_ADDRESS": "127.0.0.1:0",
	}})
	token, err := s.root().CreatePersonalAccessToken("cli-transports", 0)
	if err != nil {
		t.Fatal(err)
	}
	for transport, marker := range map[string]string{"ws": "websocket listening on ", "quic": "quic listening on "} {
		c := newCLI(t, s, t.TempDir(), "IGGY_TOKEN="+token)
		c.addr = listeningAddr(t, s, marker)
		var me struct {
			Transport string `json:"transport"`
		}
		c.ok("", &me, "--transport", transport, "me")
		if me.Transport != transport {
			t.Errorf("--transport %s: the server saw %q", transport, me.Transport)
		}
	}
}

// cliTour runs the commands the session above does not, each parsed from
// its JSON: follow, partitions, offsets, groups, tokens, options, stats,
// cluster metadata and the user commands.
func cliTour(t *testing.T, c *cli) {
	t.Helper()
	var followed []map[string]any
	code, out, errOut := c.run("", "message", "poll", "orders", "events", "1", "--first", "--count", "2", "--follow", "--limit", "3")
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("poll --follow output: %v\n%s", err, out)
		}
		followed = append(followed, m)
	}
	if code != 0 || len(followed) != 3 || followed[2]["payload"] != "three" {
		t.Fatalf("poll --follow: exit %d, %v (%s)", code, followed, errOut)
	}
	c.ok("", nil, "partition", "create", "orders", "events", "1")
	var parts []struct{ ID uint32 }
	c.ok("", &parts, "partition", "list", "orders", "events")
	if len(parts) != 3 {
		t.Fatalf("partitions after adding one: %v", parts)
	}
	c.ok("", nil, "consumer-offset", "set", "7", "orders", "events", "1", "1")
	var off struct {
		Stored uint64 `json:"stored_offset"`
	}
	c.ok("", &off, "consumer-offset", "get", "7", "orders", "events", "1")
	if off.Stored != 1 {
		t.Fatalf("stored offset %d, want 1", off.Stored)
	}
	c.ok("", nil, "consumer-group", "create", "orders", "events", "billing")
	var groups []struct{ Name string }
	c.ok("", &groups, "consumer-group", "list", "orders", "events")
	if len(groups) != 1 || groups[0].Name != "billing" {
		t.Fatalf("groups: %v", groups)
	}
	c.ok("", nil, "consumer-group", "get", "orders", "events", "billing")
	c.ok("", nil, "consumer-group", "delete", "orders", "events", "billing")
	var pat struct{ Token string }
	c.ok("", &pat, "pat", "create", "ci", "--expiry", "24h")
	var pats []struct{ Name string }
	c.ok("", &pats, "pat", "list")
	if pat.Token == "" || len(pats) < 2 {
		t.Fatalf("pat create %+v, list %v", pat, pats)
	}
	c.ok("", nil, "pat", "delete", "ci")
	var catalog []struct{ Key string }
	c.ok("", &catalog, "options", "describe", "topic")
	var stats struct {
		Streams uint32 `json:"streams_count"`
	}
	c.ok("", &stats, "stats")
	var meta struct{ Nodes []any }
	c.ok("", &meta, "cluster", "metadata")
	if len(catalog) == 0 || stats.Streams != 1 || len(meta.Nodes) == 0 {
		t.Fatalf("options %d keys, stats %+v, cluster %+v", len(catalog), stats, meta)
	}
	c.ok("", nil, "stream", "update", "orders", "--set", "name=orders")
	c.ok("", nil, "user", "create", "bob", "bob-pass")
	c.ok("", nil, "user", "permissions", "bob", "--permissions", "read_topics")
	c.ok("", nil, "user", "password", "bob", "bob-pass-2", "--current", "bob-pass")
	c.ok("", nil, "user", "update", "bob", "--set", "status=inactive")
	var bob struct {
		Status      string
		Permissions []string `json:"global_permissions"`
	}
	c.ok("", &bob, "user", "get", "bob")
	if bob.Status != "inactive" || len(bob.Permissions) != 1 {
		t.Fatalf("bob: %+v", bob)
	}
	c.ok("", nil, "user", "delete", "bob")
}
