package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// Root credentials from the environment.
const (
	envRootUsername = "IGGY_ROOT_USERNAME"
	envRootPassword = "IGGY_ROOT_PASSWORD"
	adminUsername   = "admin"
	adminPassword   = "s3cret-pass"
)

// A fresh server without root variables and without
// --with-default-root-credentials does not start: it exits non-zero and
// names the missing variables, inventing no credential.
// covers ROOT-3, ROOT-4
func TestFreshWithoutRootCredentialsRefuses(t *testing.T) {
	t.Parallel()
	s := launch(t, serverConfig{dataDir: newDataDir(t)}, freeAddr(t))
	if code := s.waitExit(); code == 0 {
		t.Fatalf("server exited 0 without root credentials\nstderr:\n%s", s.stderr)
	}
	out := s.stdout.String() + s.stderr.String()
	for _, name := range []string{envRootUsername, envRootPassword} {
		if !strings.Contains(out, name) {
			t.Errorf("output does not name %s:\n%s", name, out)
		}
	}
}

// Root is created from IGGY_ROOT_USERNAME/IGGY_ROOT_PASSWORD, neither value
// is ever printed, and a restart without the variables keeps root's
// original password.
// covers ROOT-1, ROOT-9, ROOT-10, AUTH-11
func TestRootFromEnvironment(t *testing.T) {
	t.Parallel()
	cfg := serverConfig{dataDir: newDataDir(t), env: map[string]string{
		envRootUsername: adminUsername, envRootPassword: adminPassword}}
	s := startServer(t, cfg)
	c := s.login(adminUsername, adminPassword)
	if c.UserID() != 0 {
		t.Errorf("root has user id %d, want 0", c.UserID())
	}
	_, err := s.dial().LoginUser(rootUsername, rootPassword)
	wantEviction(t, "default credentials on an env-created root", err, wire.EvictInvalidCredentials)
	s.stop()
	checkNoSecrets(t, s)

	s.cfg.env = nil
	s = s.restart()
	if got := s.login(adminUsername, adminPassword).UserID(); got != 0 {
		t.Errorf("after restart root has user id %d", got)
	}
	s.stop()
	checkNoSecrets(t, s)
}

// checkNoSecrets fails if the root username or password appears in the
// process's output.
func checkNoSecrets(t *testing.T, s *server) {
	t.Helper()
	out := s.stdout.String() + s.stderr.String()
	for _, secret := range []string{adminUsername, adminPassword} {
		if strings.Contains(out, secret) {
			t.Errorf("output contains the root credential value %q", secret)
		}
	}
}

// A data directory of a foreign format is refused before anything is read
// or written: non-zero exit, the path named, every file unchanged; --fresh
// then wipes it and the server starts clean.
// covers STOR-2, STOR-4, STOR-5, STOR-6, STOR-7, STOR-1
func TestStorageGate(t *testing.T) {
	t.Parallel()
	dir := newDataDir(t)
	foreign := map[string][]byte{
		"foreign.txt":       []byte("not an iggy data directory\n"),
		"streams/0/old.log": bytes.Repeat([]byte{0xAB}, 4096),
		"metadata":          []byte("IGGY-RESOURCE-OPTIONS-1"),
	}
	for name, data := range foreign {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshotDir(t, dir)

	s := launch(t, serverConfig{dataDir: dir, defaultRoot: true}, freeAddr(t))
	if code := s.waitExit(); code == 0 {
		t.Fatalf("server accepted a foreign data directory\nstderr:\n%s", s.stderr)
	}
	if out := s.stdout.String() + s.stderr.String(); !strings.Contains(out, dir) {
		t.Errorf("refusal does not name %s:\n%s", dir, out)
	}
	if after := snapshotDir(t, dir); !equalSnapshots(before, after) {
		t.Fatalf("refused directory changed:\nbefore %v\nafter  %v", keys(before), keys(after))
	}

	fresh := startServer(t, serverConfig{dataDir: dir, defaultRoot: true, args: []string{"--fresh"}})
	c := fresh.root()
	if streams, err := c.GetStreams(); err != nil || len(streams) != 0 {
		t.Fatalf("fresh server streams %v err %v", streams, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "foreign.txt")); !os.IsNotExist(err) {
		t.Errorf("--fresh kept foreign.txt (stat: %v)", err)
	}
}

// snapshotDir maps every path under dir (directories included) to its bytes.
func snapshotDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			out[rel+"/"] = nil
			return nil
		}
		data, err := os.ReadFile(path)
		out[rel] = data
		return err
	})
	if err != nil {
		t.Fatalf("snapshot %s: %v", dir, err)
	}
	return out
}

func equalSnapshots(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
