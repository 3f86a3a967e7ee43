package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iggygo/iggy/adapters/config"
)

// covers OPS-4
func TestParseLogLevel(t *testing.T) {
	for _, tc := range []struct {
		filter string
		level  slog.Level
		off    bool
	}{
		{"info", slog.LevelInfo, false},
		{"WARN", slog.LevelWarn, false},
		{"trace", levelTrace, false},
		{"off", 0, true},
		{"none", 0, true},
		{"iggy=debug,error", slog.LevelError, false},
		{"iggy=debug,server=warn", slog.LevelDebug, false},
	} {
		level, off := parseLogLevel(tc.filter)
		if off != tc.off || (!off && level != tc.level) {
			t.Errorf("%q: level %v off %v, want %v %v", tc.filter, level, off, tc.level, tc.off)
		}
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// Records before Start are held, not written: the directory is created
// only once the storage is in use.
// covers OPS-5
func TestLogFileHeldUntilStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	w := newLogFile(dir, config.Logging{Retention: time.Hour, RotationCheckInterval: time.Hour})
	if _, err := w.Write([]byte("early\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("log directory made before Start: %v", err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("late\n")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	data, _ := os.ReadFile(filepath.Join(dir, logFileName))
	if string(data) != "early\nlate\n" {
		t.Errorf("log file %q", data)
	}
	unused := newLogFile(filepath.Join(t.TempDir(), "never"), config.Logging{})
	_, _ = unused.Write([]byte("refused\n"))
	unused.Close()
	if _, err := os.Stat(unused.dir); !os.IsNotExist(err) {
		t.Errorf("a log file never started made its directory: %v", err)
	}
}

// A file rotates by size; archives past max_total_size go oldest first and
// archives past the retention go.
// covers OPS-7, OPS-8
func TestLogFileRotationAndPruning(t *testing.T) {
	dir := t.TempDir()
	record := []byte(strings.Repeat("x", 99) + "\n")
	w := newLogFile(dir, config.Logging{MaxFileSize: 250, MaxTotalSize: 700, Retention: time.Hour, RotationCheckInterval: time.Hour})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := w.Write(record); err != nil {
			t.Fatal(err)
		}
	}
	var total int64
	for _, n := range names(t, dir) {
		st, _ := os.Stat(filepath.Join(dir, n))
		if st.Size() > 250 {
			t.Errorf("%s holds %d bytes, past max_file_size", n, st.Size())
		}
		total += st.Size()
	}
	if total > 700 {
		t.Errorf("%d bytes of logs kept, past max_total_size: %v", total, names(t, dir))
	}
	if len(names(t, dir)) < 2 {
		t.Fatalf("no rotation: %v", names(t, dir))
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, a := range w.archives() {
		if err := os.Chtimes(a.path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	w.mu.Lock()
	w.prune(time.Now())
	w.mu.Unlock()
	w.Close()
	if got := names(t, dir); len(got) != 1 || got[0] != logFileName {
		t.Errorf("after the retention: %v, want the live file alone", got)
	}
}
