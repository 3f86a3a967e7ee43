package e2e

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
	"github.com/zeebo/xxh3"
)

// firstSegment is the journal segment a fresh server writes op 1 into.
func firstSegment(dir string) string {
	return filepath.Join(dir, "metadata", "journal", vsr.SegmentName(1))
}

// preparedStorage starts a server on fresh storage, creates one stream (op 2
// after root's op 1 and the login's register), stops it and returns the
// server (stopped) and the prepares of its only journal segment. The
// superblock still has its checkpoint at op 0, as few ops committed.
func preparedStorage(t *testing.T) (*server, []vsr.Prepare) {
	t.Helper()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	if _, err := s.root().CreateStream("kept"); err != nil {
		t.Fatalf("create stream: %v", err)
	}
	s.stop()
	if sb := readSuperblock(t, s.cfg.dataDir); sb.CheckpointOp != 0 {
		t.Fatalf("superblock checkpoint op %d, want 0 for this test", sb.CheckpointOp)
	}
	data, err := os.ReadFile(firstSegment(s.cfg.dataDir))
	if err != nil {
		t.Fatalf("read journal: %v", err)
	}
	ps, valid := vsr.Scan(data)
	if valid != len(data) || len(ps) < 3 || ps[0].Op != 1 {
		t.Fatalf("journal: %d prepares, %d of %d bytes valid", len(ps), valid, len(data))
	}
	return s, ps
}

func readSuperblock(t *testing.T, dir string) vsr.Superblock {
	t.Helper()
	var slots [2][]byte
	for i, name := range []string{"superblock.a", "superblock.b"} {
		slots[i], _ = os.ReadFile(filepath.Join(dir, "metadata", name))
	}
	sb, ok := vsr.Newest(slots[0], slots[1])
	if !ok {
		t.Fatal("no valid superblock slot")
	}
	return sb
}

// writeSegment replaces the first journal segment by the given prepares,
// each encoded (and checksummed) anew.
func writeSegment(t *testing.T, dir string, ps []vsr.Prepare) {
	t.Helper()
	var out []byte
	for i := range ps {
		out = ps[i].Encode(out)
	}
	if err := os.WriteFile(firstSegment(dir), out, 0o644); err != nil {
		t.Fatalf("write journal: %v", err)
	}
}

// refusedBoot restarts s on its (edited) storage, expects a non-zero exit
// and returns the output.
func refusedBoot(t *testing.T, s *server) string {
	t.Helper()
	next := launch(t, s.cfg, freeAddr(t))
	if code := next.waitExit(); code == 0 {
		t.Fatalf("server started on a journal it should refuse\nstderr:\n%s", next.stderr)
	}
	return next.stdout.String() + next.stderr.String()
}

// With its checkpoint at op 0, a data directory is not taken as initialized:
// the journal must hold the root creation as op 1. A journal whose entries
// are all complete but whose op 1 is a session registration instead is
// refused before replay, and the error names the journal and the op-1 kind.
// covers ROOT-12, ROOT-14, ROOT-15
func TestCovJournalWithoutRootAtOp1Refused(t *testing.T) {
	t.Parallel()
	s, ps := preparedStorage(t)
	// Op 1 becomes a copy of op 2 (the login's session registration).
	edited := append([]vsr.Prepare(nil), ps...)
	reg := ps[1]
	if reg.Kind != vsr.KindRegister {
		t.Fatalf("op 2 has kind %d, want a registration (%d)", reg.Kind, vsr.KindRegister)
	}
	reg.Op = 1
	edited[0] = reg
	writeSegment(t, s.cfg.dataDir, edited)
	before := snapshotDir(t, s.cfg.dataDir)
	out := refusedBoot(t, s)
	for _, want := range []string{"metadata/journal", "op 1", "kind 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("refusal does not name %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "replayed metadata ops") {
		t.Errorf("the journal was replayed before the refusal:\n%s", out)
	}
	if after := snapshotDir(t, s.cfg.dataDir); !equalSnapshots(before, after) {
		t.Error("the refused data directory changed")
	}

	// Without op 1 at all (the segment starts at op 2), the refusal stands.
	writeSegment(t, s.cfg.dataDir, ps[1:])
	out = refusedBoot(t, s)
	if !strings.Contains(out, "metadata/journal") {
		t.Errorf("refusal does not name the journal:\n%s", out)
	}
}

// Without an initialized checkpoint, root's creation is found as op 1 by its
// op number wherever the entry sits in the segment: a journal whose ops are
// complete but stored out of order (as repair may write them) boots, and
// root logs in.
// covers ROOT-13
func TestCovJournalRootFoundByOpNumber(t *testing.T) {
	t.Parallel()
	s, ps := preparedStorage(t)
	swapped := append([]vsr.Prepare{ps[1], ps[0]}, ps[2:]...)
	writeSegment(t, s.cfg.dataDir, swapped)
	s = s.restart()
	c := s.root()
	if _, found, err := c.GetStream(wire.NamedID("kept")); err != nil || !found {
		t.Fatalf("stream after boot: found %v err %v", found, err)
	}
}

// A superblock slot written in an envelope version this binary does not
// know is refused, even though the other slot is readable: the server does
// not fall back to the older slot.
// covers STOR-18
func TestCovSuperblockUnknownVersionRefused(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	s.stop()
	sb := readSuperblock(t, s.cfg.dataDir)
	slot := sb.Encode()
	le := binary.LittleEndian
	le.PutUint64(slot[8:], sb.Sequence+1) // the newer slot
	le.PutUint32(slot[16:], 3)            // a version from the future
	le.PutUint64(slot, xxh3.Hash(slot[8:]))
	for _, name := range []string{"superblock.a", "superblock.b"} {
		path := filepath.Join(s.cfg.dataDir, "metadata", name)
		if cur, _ := os.ReadFile(path); len(cur) > 0 {
			if got, ok := vsr.DecodeSuperblock(cur); ok && got.Sequence == sb.Sequence {
				continue // keep the readable slot
			}
		}
		if err := os.WriteFile(path, slot, 0o644); err != nil {
			t.Fatal(err)
		}
		break
	}
	before := snapshotDir(t, s.cfg.dataDir)
	next := launch(t, s.cfg, freeAddr(t))
	if code := next.waitExit(); code == 0 {
		t.Fatalf("server started with a superblock slot of unknown version")
	}
	if out := next.stderr.String(); !strings.Contains(out, "metadata/superblock.") || !strings.Contains(out, "version 3") {
		t.Errorf("the refusal does not name the slot and its version:\n%s", out)
	}
	if after := snapshotDir(t, s.cfg.dataDir); !equalSnapshots(before, after) {
		t.Error("the refused data directory changed")
	}
}

// A data directory that holds the format marker but neither a metadata
// journal nor a superblock starts a new cluster: root is created from the
// credentials and nothing else exists.
// covers STOR-8
func TestCovNoMetadataStartsNew(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true})
	if _, err := s.root().CreateStream("gone"); err != nil {
		t.Fatalf("create stream: %v", err)
	}
	s.stop()
	if err := os.RemoveAll(filepath.Join(s.cfg.dataDir, "metadata")); err != nil {
		t.Fatal(err)
	}
	s.cfg.defaultRoot = false
	s.cfg.env = map[string]string{envRootUsername: adminUsername, envRootPassword: adminPassword}
	s = s.restart()
	c := s.login(adminUsername, adminPassword)
	if c.UserID() != 0 {
		t.Errorf("new root has user id %d", c.UserID())
	}
	if streams, err := c.GetStreams(); err != nil || len(streams) != 0 {
		t.Errorf("new cluster streams %v err %v, want none", streams, err)
	}
	if sb := readSuperblock(t, s.cfg.dataDir); sb.Sequence == 0 {
		t.Error("no superblock written for the new cluster")
	}
}
