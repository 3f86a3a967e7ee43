// Package snapshot builds the diagnostic archive of GetSnapshotFile (11):
// a ZIP of host facts the core cannot see. Every part is bounded so the
// archive fits one reply frame.
package snapshot

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/iggygo/iggy/io/compute"
	"github.com/iggygo/iggy/wire"
)

// Bounds of the archive's parts.
const (
	archiveBytesMax    = wire.BodySizeMax // the whole archive travels in one reply
	filesListedMax     = 10_000
	processesListedMax = 4096
	logTailBytesMax    = 16 << 20
)

// Sources are where the archive's parts come from.
type Sources struct {
	SystemPath string // data root, listed for the filesystem overview
	ConfigTOML string // the effective configuration, secrets masked
	LogDir     string // the server's log directory, if it writes log files
	// FlightDump, when the flight recorder is on, gives the part of an
	// archive of every type (All) that is the recorder's: its dump when it
	// fits in room bytes, else a note naming the file it was written to.
	FlightDump func(room int) (name string, content []byte)
}

// Build answers a KindSnapshotArchive job.
func Build(req compute.Request, src Sources) compute.Result {
	var method uint16
	switch req.Compression {
	case wire.SnapshotCompressionStored:
		method = zip.Store
	case wire.SnapshotCompressionDeflated:
		method = zip.Deflate
	default:
		return compute.Result{ID: req.ID, Code: uint32(wire.FeatureUnavailable)}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, t := range expand(req.Types) {
		name, content := part(t, src)
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err == nil {
			_, err = io.WriteString(w, content)
		}
		if err != nil {
			return compute.Result{ID: req.ID, Code: uint32(wire.SnapshotFileCompletionFailed)}
		}
	}
	if err := addFlightDump(zw, archiveBytesMax-buf.Len()-archiveSlackBytes, req.Types, src, method); err != nil {
		return compute.Result{ID: req.ID, Code: uint32(wire.SnapshotFileCompletionFailed)}
	}
	if err := zw.Close(); err != nil || buf.Len() > archiveBytesMax {
		return compute.Result{ID: req.ID, Code: uint32(wire.SnapshotFileCompletionFailed)}
	}
	return compute.Result{ID: req.ID, Data: buf.Bytes()}
}

// archiveSlackBytes is kept free of the flight dump for what the archive
// writer has buffered and its central directory.
const archiveSlackBytes = 1 << 20

// addFlightDump adds the flight recorder's part to an archive of every
// type, when the recorder is on; room is what the archive has left for it
// (its dump is stored whole or not at all: a cut dump does not replay).
func addFlightDump(zw *zip.Writer, room int, types []uint8, src Sources, method uint16) error {
	if src.FlightDump == nil || !slices.Contains(types, wire.SnapshotTypeAll) {
		return nil
	}
	name, content := src.FlightDump(max(room, 0))
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
	if err == nil {
		_, err = w.Write(content)
	}
	return err
}

// expand turns All (100) into every type, drops duplicates and sorts.
func expand(types []uint8) []uint8 {
	set := map[uint8]bool{}
	for _, t := range types {
		if t == wire.SnapshotTypeAll {
			for a := wire.SnapshotTypeFilesystemOverview; a <= wire.SnapshotTypeServerConfig; a++ {
				set[a] = true
			}
			continue
		}
		set[t] = true
	}
	out := make([]uint8, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func part(t uint8, src Sources) (string, string) {
	switch t {
	case wire.SnapshotTypeFilesystemOverview:
		return "filesystem_overview.txt", filesystemOverview(src.SystemPath)
	case wire.SnapshotTypeProcessList:
		return "process_list.txt", processList()
	case wire.SnapshotTypeResourceUsage:
		return "resource_usage.txt", readFiles("/proc/self/status", "/proc/loadavg", "/proc/meminfo")
	case wire.SnapshotTypeTest:
		return "test.txt", "test\n"
	case wire.SnapshotTypeServerLogs:
		return "server_logs.txt", serverLogs(src.LogDir)
	default:
		return "server_config.toml", src.ConfigTOML
	}
}

func filesystemOverview(root string) string {
	var b strings.Builder
	n := 0
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || n >= filesListedMax {
			return fs.SkipAll
		}
		n++
		size := int64(0)
		if info, err := d.Info(); err == nil && !d.IsDir() {
			size = info.Size()
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(&b, "%12d %s\n", size, rel)
		return nil
	})
	return b.String()
}

func processList() string {
	entries, _ := os.ReadDir("/proc")
	var b strings.Builder
	n := 0
	for _, e := range entries {
		if n >= processesListedMax || strings.Trim(e.Name(), "0123456789") != "" {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil {
			continue
		}
		n++
		fmt.Fprintf(&b, "%8s %s", e.Name(), comm)
	}
	return b.String()
}

func readFiles(paths ...string) string {
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintf(&b, "== %s: %v\n", p, err)
			continue
		}
		fmt.Fprintf(&b, "== %s\n%s\n", p, data)
	}
	return b.String()
}

// serverLogs is the tail of the log file written last (the live one; the
// rotated archives are older), or a note when the server writes no log
// files (logging.file_enabled = false).
func serverLogs(dir string) string {
	newest := ""
	if dir != "" {
		newest = newestFile(dir)
	}
	if newest == "" {
		return "no log files: the server logs to standard error\n"
	}
	data, err := os.ReadFile(filepath.Join(dir, newest))
	if err != nil {
		return fmt.Sprintf("cannot read %s: %v\n", newest, err)
	}
	if len(data) > logTailBytesMax {
		data = data[len(data)-logTailBytesMax:]
	}
	return string(data)
}

// logFilesListedMax bounds the entries of the log directory looked at.
const logFilesListedMax = 100_000

// newestFile names the regular file of dir written last ("" when none).
func newestFile(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	newest, newestTime := "", time.Time{}
	for i, e := range entries {
		if i >= logFilesListedMax || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err == nil && (newest == "" || info.ModTime().After(newestTime)) {
			newest, newestTime = e.Name(), info.ModTime()
		}
	}
	return newest
}
