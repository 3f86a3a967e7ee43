// Package storagegate admits a data directory before anything reads or writes
// it: missing or empty storage is initialized with our format marker, storage
// with our marker is admitted, and anything else is refused untouched
// (STOR-1..5, STOR-7). Fresh implements --fresh (STOR-6).
package storagegate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MarkerFile is the name of the format marker inside the system path.
const MarkerFile = "iggy-storage-format"

// FormatIdentity is the storage format this build reads and writes (STOR-2).
const FormatIdentity = "IGGY-METADATA-CHANGE-LOG-1"

// legacyIdentities are earlier formats named by the release documents (STOR-3);
// they are refused like any unknown one, with a more helpful message.
var legacyIdentities = []string{"IGGY-RESOURCE-OPTIONS-1", "IGGY-BOUND-GRANTS-4", "IGGY-BOUND-GRANTS-5"}

const (
	markerTemp       = MarkerFile + ".tmp"
	markerBytesMax   = 256 // a marker is one short line; more means it is not ours
	entriesProbedMax = 3   // enough to tell "empty", "only our temp file" and "other content" apart
	dirPerm          = 0o700
	filePerm         = 0o600
)

// State says how Check admitted the directory.
type State uint8

const (
	// StateInitialized: the directory was missing or empty and now holds our marker.
	StateInitialized State = iota + 1
	// StateExisting: the directory already held our marker.
	StateExisting
)

func (s State) String() string {
	switch s {
	case StateInitialized:
		return "initialized"
	case StateExisting:
		return "existing"
	}
	return "unknown"
}

// Check admits systemPath or refuses it. A refusal modifies nothing (STOR-5)
// and its error names the path and the reason.
func Check(systemPath string) (State, error) {
	if systemPath == "" {
		return 0, errors.New("storage gate: the system path is empty")
	}
	info, err := os.Stat(systemPath)
	if errors.Is(err, os.ErrNotExist) {
		return initialize(systemPath)
	}
	if err != nil {
		return 0, fmt.Errorf("storage gate: %w", err)
	}
	if !info.IsDir() {
		return 0, fmt.Errorf("storage gate: refusing %s: it is not a directory", systemPath)
	}
	names, err := probeNames(systemPath)
	if err != nil {
		return 0, err
	}
	if onlyOursInProgress(names) {
		return initialize(systemPath)
	}
	if err := checkMarker(systemPath); err != nil {
		return 0, err
	}
	return StateExisting, nil
}

// onlyOursInProgress is true for an empty directory, or one holding only the
// temporary marker of an initialization that crashed before its rename.
func onlyOursInProgress(names []string) bool {
	return len(names) == 0 || (len(names) == 1 && names[0] == markerTemp)
}

func probeNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("storage gate: %w", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(entriesProbedMax)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("storage gate: listing %s: %w", dir, err)
	}
	return names, nil
}

// checkMarker returns nil when dir carries our marker, else the refusal.
func checkMarker(dir string) error {
	path := filepath.Join(dir, MarkerFile)
	info, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("storage gate: refusing %s: it is not empty and has no %s marker "+
			"(data from an earlier release such as 0.9.x, or not an iggy directory); "+
			"restore a compatible directory or start with --fresh to delete it", dir, MarkerFile)
	}
	if err != nil {
		return fmt.Errorf("storage gate: %w", err)
	}
	if !info.Mode().IsRegular() || info.Size() > markerBytesMax {
		return fmt.Errorf("storage gate: refusing %s: %s is not a format marker", dir, path)
	}
	content, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("storage gate: %w", err)
	}
	identity := strings.TrimSuffix(string(content), "\n")
	if identity == FormatIdentity {
		return nil
	}
	reason := "an unknown storage format"
	for _, legacy := range legacyIdentities {
		if identity == legacy {
			reason = "the earlier storage format " + legacy
		}
	}
	return fmt.Errorf("storage gate: refusing %s: %s holds %s, this build needs %s; "+
		"there is no in-place upgrade: re-ingest into fresh storage or start with --fresh to delete it",
		dir, path, reason, FormatIdentity)
}
