package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/iggygo/iggy/adapters/config"
)

// levelTrace is below slog's Debug, as trace is below debug in the
// reference's filter words.
const levelTrace = slog.LevelDebug - 4

// logLevels maps the filter words of logging.level (config.md, CONF-11).
var logLevels = map[string]slog.Level{
	"trace": levelTrace, "debug": slog.LevelDebug, "info": slog.LevelInfo,
	"warn": slog.LevelWarn, "error": slog.LevelError,
}

// parseLogLevel reads a level filter: a bare level word wins; with only
// "target=level" directives the most verbose applies, since every target
// is this server. off reports that nothing is logged.
func parseLogLevel(filter string) (level slog.Level, off bool) {
	bare, directive, seen := "", slog.LevelError, false
	for _, d := range strings.Split(filter, ",") {
		target, word, hasTarget := strings.Cut(strings.TrimSpace(d), "=")
		if !hasTarget {
			word = target
		}
		word = strings.ToLower(strings.TrimSpace(word))
		if !hasTarget {
			bare = word
			continue
		}
		if l, ok := logLevels[word]; ok {
			directive, seen = min(directive, l), true
		}
	}
	switch {
	case bare == "off" || bare == "none":
		return 0, true
	case bare != "":
		l, ok := logLevels[bare]
		if !ok {
			return slog.LevelInfo, false // validated by config; not reached
		}
		return l, false
	case seen:
		return directive, false
	}
	return slog.LevelInfo, false
}

// logFilter is logging.level, unless RUST_LOG overrides it (config.md 7).
func logFilter(cfg *config.Config) (string, string) {
	if v, ok := os.LookupEnv("RUST_LOG"); ok && strings.TrimSpace(v) != "" {
		if config.ValidLogLevel(v) {
			return v, ""
		}
		return cfg.Logging.Level, fmt.Sprintf("RUST_LOG %q is not a valid level filter; using logging.level", v)
	}
	return cfg.Logging.Level, ""
}

// logDir is logging.path: under system.path unless absolute.
func logDir(cfg *config.Config) string {
	if filepath.IsAbs(cfg.Logging.Path) {
		return cfg.Logging.Path
	}
	return filepath.Join(cfg.System.Path, cfg.Logging.Path)
}

// newLogger builds the server's logger from the configuration: standard
// error always, and the rotating log file under logging.path when
// logging.file_enabled (OPS-4..OPS-8). The file is nil without one; its
// caller starts it once the storage is in use and closes it at exit.
func newLogger(cfg *config.Config) (*slog.Logger, *logFile, []string) {
	filter, warning := logFilter(cfg)
	var notes []string
	if warning != "" {
		notes = append(notes, warning)
	}
	level, off := parseLogLevel(filter)
	if off {
		return slog.New(slog.DiscardHandler), nil, notes
	}
	var out io.Writer = os.Stderr
	var file *logFile
	if cfg.Logging.FileEnabled {
		file = newLogFile(logDir(cfg), cfg.Logging)
		out = fanout{os.Stderr, file}
	}
	return slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level})), file, notes
}

// configuredLogger replaces the start-up logger with the configured one and
// logs what loading the configuration said.
func configuredLogger(cfg *config.Config, infos, warnings []string) (*slog.Logger, *logFile) {
	log, file, notes := newLogger(cfg)
	logAll(log, slog.LevelInfo, infos)
	logAll(log, slog.LevelWarn, append(notes, warnings...))
	return log, file
}

func logAll(log *slog.Logger, level slog.Level, lines []string) {
	for _, line := range lines {
		log.Log(context.Background(), level, line)
	}
}

// fanout writes each record to the console and the log file. A failing
// file does not stop the console, and the handler's lock keeps records
// whole in both.
type fanout struct {
	console io.Writer
	file    io.Writer
}

func (w fanout) Write(p []byte) (int, error) {
	_, _ = w.file.Write(p)
	return w.console.Write(p)
}
