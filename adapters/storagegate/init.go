package storagegate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// initialize creates dir if needed and publishes our marker atomically: the
// marker is written to a temporary name, synced, renamed, and the directory is
// synced, so a crash leaves either no marker or a complete one (STOR-1).
func initialize(dir string) (State, error) {
	if err := mkdirAllSynced(dir); err != nil {
		return 0, err
	}
	temp := filepath.Join(dir, markerTemp)
	if err := writeSynced(temp, []byte(FormatIdentity+"\n")); err != nil {
		return 0, err
	}
	if err := os.Rename(temp, filepath.Join(dir, MarkerFile)); err != nil {
		return 0, fmt.Errorf("storage gate: publishing the marker: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return 0, err
	}
	return StateInitialized, nil
}

// mkdirAllSynced creates dir and its missing parents, and syncs the parent of
// each directory it created so the new names survive a crash.
func mkdirAllSynced(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("storage gate: %w", err)
	}
	var missing []string // innermost first
	for p := abs; ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		} else if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("storage gate: %w", err)
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], dirPerm); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("storage gate: %w", err)
		}
		if err := syncDir(filepath.Dir(missing[i])); err != nil {
			return err
		}
	}
	return nil
}

func writeSynced(path string, content []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, filePerm)
	if err != nil {
		return fmt.Errorf("storage gate: %w", err)
	}
	_, err = f.Write(content)
	if err == nil {
		err = f.Sync()
	}
	if errClose := f.Close(); err == nil {
		err = errClose
	}
	if err != nil {
		return fmt.Errorf("storage gate: writing %s: %w", path, err)
	}
	return nil
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("storage gate: %w", err)
	}
	err = f.Sync()
	if errClose := f.Close(); err == nil {
		err = errClose
	}
	if err != nil {
		return fmt.Errorf("storage gate: syncing directory %s: %w", dir, err)
	}
	return nil
}
