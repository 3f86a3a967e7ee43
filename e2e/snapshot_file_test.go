package e2e

import (
	"archive/zip"
	"bytes"
	"io"
	"maps"
	"slices"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// GetSnapshotFile returns a ZIP with the requested parts to a manage_servers
// holder; read_servers alone is refused with 41.
// covers AUTH-1, AUTH-2
func TestGetSnapshotFile(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	root := s.root()
	parts := snapshotAll(t, root)
	for _, want := range []string{"filesystem_overview.txt", "process_list.txt", "resource_usage.txt", "test.txt", "server_logs.txt", "server_config.toml"} {
		if _, ok := parts[want]; !ok {
			t.Errorf("archive lacks %s (has %v)", want, slices.Sorted(maps.Keys(parts)))
		}
	}

	perms := &wire.Permissions{Global: wire.GlobalPermissions{ReadServers: true}}
	if _, err := root.CreateUser("reader", "reader-pass", wire.UserStatusActive, perms); err != nil {
		t.Fatalf("create user: %v", err)
	}
	h, _, err := s.login("reader", "reader-pass").Do(wire.OpNonReplicated, wire.CmdGetSnapshotFile, snapshotAllRequest())
	if err != nil || h.Status != wire.Unauthorized {
		t.Fatalf("read_servers only: status %v err %v, want 41", h.Status, err)
	}
}

// snapshotAllRequest is a GetSnapshotFile body asking for every part, deflated.
func snapshotAllRequest() []byte {
	w := wire.Writer{}
	wire.SnapshotRequest{Compression: wire.SnapshotCompressionDeflated, Types: []uint8{wire.SnapshotTypeAll}}.Encode(&w)
	return w.Buf
}

// snapshotAll fetches a snapshot of every part through c and returns the
// archive's files by name.
func snapshotAll(t *testing.T, c *client.Client) map[string]string {
	t.Helper()
	h, body, err := c.Do(wire.OpNonReplicated, wire.CmdGetSnapshotFile, snapshotAllRequest())
	if err != nil || h.Status != wire.OK {
		t.Fatalf("snapshot: status %v err %v", h.Status, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatalf("reply is not a ZIP: %v", err)
	}
	parts := map[string]string{}
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		parts[f.Name] = string(b)
	}
	return parts
}
