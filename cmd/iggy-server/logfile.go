package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/iggygo/iggy/adapters/config"
)

// The live log file and its rotated archives, side by side under
// logging.path: iggy-server.log, then iggy-server.<UTC time>.log.
const (
	logFileName      = "iggy-server.log"
	logArchivePrefix = "iggy-server."
	logArchiveSuffix = ".log"
	logArchiveTime   = "20060102T150405.000000000"
)

// The log may name users, streams and client addresses: only the server's
// own user reads it, like the data files.
const (
	logDirPerm  = 0o700
	logFilePerm = 0o600
)

// logArchivesListedMax bounds the archives one prune looks at; rotation
// by size with a total cap keeps far fewer.
const logArchivesListedMax = 100_000

// logArchiveNameAttemptsMax bounds the search for a free archive name when
// two rotations share a timestamp.
const logArchiveNameAttemptsMax = 16

var errLogClosed = errors.New("log file closed")

// logHeldBytesMax bounds the records held until the file opens; later
// ones reach standard error only.
const logHeldBytesMax = 1 << 20

// logFile is the server's log file: appended to, rotated by size only
// (logging.max_file_size, 0 = never, OPS-7), its archives removed past
// logging.retention since their last write (OPS-8) and, oldest first,
// past logging.max_total_size. A sweep checks retention every
// logging.rotation_check_interval.
//
// The log directory is under system.path by default, and refused storage
// must be left unmodified: so the file opens only once the node has booted
// on the storage (Start), and the records before are held until then.
type logFile struct {
	mu        sync.Mutex
	dir       string
	cfg       config.Logging
	held      []byte // records before Start
	started   bool
	f         *os.File
	sizeBytes uint64
	stop      chan struct{}
	done      chan struct{}
}

func newLogFile(dir string, cfg config.Logging) *logFile {
	return &logFile{dir: dir, cfg: cfg, stop: make(chan struct{}), done: make(chan struct{})}
}

// Start opens the file, writes the records held so far and starts the
// retention sweep.
func (w *logFile) Start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return nil
	}
	if err := os.MkdirAll(w.dir, logDirPerm); err != nil {
		return err
	}
	if err := w.open(); err != nil {
		return err
	}
	w.started = true
	n, _ := w.f.Write(w.held)
	w.sizeBytes += uint64(n)
	w.held = nil
	w.prune(time.Now())
	go w.sweep()
	return nil
}

func (w *logFile) open() error {
	f, err := os.OpenFile(filepath.Join(w.dir, logFileName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, logFilePerm)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	w.f, w.sizeBytes = f, uint64(st.Size())
	return nil
}

// Write appends one record, rotating first when it would pass the size.
func (w *logFile) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started {
		if len(w.held)+len(p) <= logHeldBytesMax {
			w.held = append(w.held, p...)
		}
		return len(p), nil
	}
	if w.f == nil {
		return 0, errLogClosed
	}
	if limit := w.cfg.MaxFileSize; limit > 0 && w.sizeBytes > 0 && w.sizeBytes+uint64(len(p)) > limit {
		if err := w.rotate(time.Now()); err != nil && w.f == nil {
			return 0, err
		}
	}
	n, err := w.f.Write(p)
	w.sizeBytes += uint64(n)
	return n, err
}

// rotate renames the live file to a new archive and starts an empty one.
// A failed rename keeps appending to the live file.
func (w *logFile) rotate(now time.Time) error {
	live := filepath.Join(w.dir, logFileName)
	archive, err := w.freeArchiveName(now)
	if err != nil {
		return err
	}
	if err := os.Rename(live, archive); err != nil {
		return fmt.Errorf("rotating %s: %w", live, err)
	}
	w.f.Close()
	w.f = nil
	if err := w.open(); err != nil {
		return fmt.Errorf("reopening %s: %w", live, err)
	}
	w.prune(now)
	return nil
}

func (w *logFile) freeArchiveName(now time.Time) (string, error) {
	for i := range logArchiveNameAttemptsMax {
		name := logArchivePrefix + now.Add(time.Duration(i)).UTC().Format(logArchiveTime) + logArchiveSuffix
		path := filepath.Join(w.dir, name)
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			return path, nil
		}
	}
	return "", errors.New("no free log archive name")
}

// logArchive is one rotated file.
type logArchive struct {
	path      string
	sizeBytes uint64
	modified  time.Time
}

// archives lists the rotated files, oldest write first.
func (w *logFile) archives() []logArchive {
	entries, err := os.ReadDir(w.dir)
	if err != nil {
		return nil
	}
	var out []logArchive
	for _, e := range entries {
		name := e.Name()
		if len(out) >= logArchivesListedMax || !e.Type().IsRegular() || name == logFileName ||
			!strings.HasPrefix(name, logArchivePrefix) || !strings.HasSuffix(name, logArchiveSuffix) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, logArchive{path: filepath.Join(w.dir, name), sizeBytes: uint64(info.Size()), modified: info.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].modified.Equal(out[j].modified) {
			return out[i].modified.Before(out[j].modified)
		}
		return out[i].path < out[j].path
	})
	return out
}

// prune removes archives older than the retention, then the oldest ones
// while the archives and the live file pass max_total_size (0: no cap).
// The live file counts as full, as it grows up to max_file_size before the
// next prune, so the logs stay within the cap. The caller holds mu.
func (w *logFile) prune(now time.Time) {
	total := max(w.sizeBytes, w.cfg.MaxFileSize)
	var kept []logArchive
	for _, a := range w.archives() {
		if w.cfg.Retention > 0 && now.Sub(a.modified) > w.cfg.Retention {
			_ = os.Remove(a.path)
			continue
		}
		kept = append(kept, a)
		total += a.sizeBytes
	}
	for i := 0; w.cfg.MaxTotalSize > 0 && total > w.cfg.MaxTotalSize && i < len(kept); i++ {
		if os.Remove(kept[i].path) == nil {
			total -= kept[i].sizeBytes
		}
	}
}

// sweep applies the retention every rotation_check_interval until Close.
func (w *logFile) sweep() {
	defer close(w.done)
	every := max(w.cfg.RotationCheckInterval, time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case now := <-t.C:
			w.mu.Lock()
			w.prune(now)
			w.mu.Unlock()
		}
	}
}

// Close stops the sweep and closes the file; later writes fail. Records
// held by a file never started are dropped: the storage was not used.
func (w *logFile) Close() {
	if w == nil {
		return // file logging is off
	}
	w.mu.Lock()
	started := w.started
	w.started, w.held = true, nil
	w.mu.Unlock()
	if started {
		close(w.stop)
		<-w.done
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
}
