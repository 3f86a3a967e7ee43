package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// With a journal of 256 slots, 600 metadata ops force several checkpoints: the
// journal is released behind them, and a crash restart restores the latest
// image and replays only the ops after it, resources and sessions included.
// covers ROOT-9, ROOT-11, STOR-9
func TestCheckpointsBoundTheJournal(t *testing.T) {
	dir := newDataDir(t)
	cfg := serverConfig{dataDir: dir, defaultRoot: true, env: map[string]string{"IGGY_METADATA_JOURNAL_SLOTS": "256"}}
	s := startServer(t, cfg)
	c := s.root()
	const streams = 600
	for i := range streams {
		if _, err := c.CreateStream(fmt.Sprintf("s%03d", i)); err != nil {
			t.Fatalf("create stream %d: %v", i, err)
		}
	}
	if images, _ := filepath.Glob(filepath.Join(dir, "metadata", "snapshot-*.bin")); len(images) == 0 || len(images) > 2 {
		t.Fatalf("checkpoint images after %d ops: %v; want the latest (and at most the one before it)", streams, images)
	}
	segments, err := os.ReadDir(filepath.Join(dir, "metadata", "journal"))
	if err != nil || len(segments) > 3 {
		t.Fatalf("journal segments %d (err %v): checkpoints should release all but the last few", len(segments), err)
	}

	s.kill()
	s = s.restart()
	got, err := s.root().GetStreams()
	if err != nil || len(got) != streams {
		t.Fatalf("after restart: %d streams, err %v; want %d", len(got), err, streams)
	}
	if _, found, err := s.root().GetStream(wire.NamedID("s599")); err != nil || !found {
		t.Fatalf("stream s39 after restart: found %v err %v", found, err)
	}
}
