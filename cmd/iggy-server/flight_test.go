package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iggygo/iggy/flight"
)

// The diagnostic archive's flight recorder part: the dump itself when it
// fits in the room the archive has left, else a note naming the file the
// whole dump was written to (never a cut dump, which would not replay).
func TestFlightDumpForArchiveFitsOrGoesToAFile(t *testing.T) {
	b := &flightBox{rec: flight.NewRecorder(flight.Config{RingBytes: flight.RingBytesMin, Shards: 1}),
		dir: t.TempDir(), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	name, content := b.forArchive(1 << 20)
	if name != "flight_recorder.trace" || !flight.IsDump(content) {
		t.Fatalf("a dump with room: part %q of %d bytes", name, len(content))
	}
	room := len(content) - 1
	name, note := b.forArchive(room)
	files, _ := filepath.Glob(filepath.Join(b.dir, "flight-*.trace"))
	if name != "flight_recorder.txt" || len(files) != 1 || !strings.Contains(string(note), files[0]) {
		t.Fatalf("a dump without room: part %q %q, files %v", name, note, files)
	}
	written, err := os.ReadFile(files[0])
	if err != nil || !flight.IsDump(written) || len(written) <= room {
		t.Fatalf("the dump written instead: %d bytes, %v", len(written), err)
	}
}
