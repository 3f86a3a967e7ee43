package e2e

import (
	"archive/zip"
	"bytes"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// GetSnapshotFile returns a ZIP with the requested parts to a manage_servers
// holder; read_servers alone is refused with 41.
// covers AUTH-1, AUTH-2
func TestGetSnapshotFile(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	root := s.root()
	w := wire.Writer{}
	wire.SnapshotRequest{Compression: wire.SnapshotCompressionDeflated, Types: []uint8{wire.SnapshotTypeAll}}.Encode(&w)
	h, body, err := root.Do(wire.OpNonReplicated, wire.CmdGetSnapshotFile, w.Buf)
	if err != nil || h.Status != wire.OK {
		t.Fatalf("snapshot: status %v err %v", h.Status, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatalf("reply is not a ZIP: %v", err)
	}
	names := map[string]bool{}
	for _, f := range zr.File {
		names[f.Name] = true
	}
	for _, want := range []string{"filesystem_overview.txt", "process_list.txt", "resource_usage.txt", "test.txt", "server_logs.txt", "server_config.toml"} {
		if !names[want] {
			t.Errorf("archive lacks %s (has %v)", want, names)
		}
	}

	perms := &wire.Permissions{Global: wire.GlobalPermissions{ReadServers: true}}
	if _, err := root.CreateUser("reader", "reader-pass", wire.UserStatusActive, perms); err != nil {
		t.Fatalf("create user: %v", err)
	}
	h, _, err = s.login("reader", "reader-pass").Do(wire.OpNonReplicated, wire.CmdGetSnapshotFile, w.Buf)
	if err != nil || h.Status != wire.Unauthorized {
		t.Fatalf("read_servers only: status %v err %v, want 41", h.Status, err)
	}
}
