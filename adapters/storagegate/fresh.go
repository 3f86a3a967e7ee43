package storagegate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// namesRemovedPerBatch bounds one directory read while Fresh empties the path.
const namesRemovedPerBatch = 1024

// Fresh deletes everything under systemPath for --fresh (STOR-6). The directory
// itself stays (it may be a mount point or a symbolic link), and its marker goes
// first, so a crash half-way leaves a directory the gate refuses rather than
// admits with partial data. A missing path is already fresh.
func Fresh(systemPath string) error {
	if systemPath == "" {
		return errors.New("fresh: the system path is empty")
	}
	info, err := os.Stat(systemPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("fresh: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("fresh: refusing to delete %s: it is not a directory", systemPath)
	}
	resolved, err := filepath.EvalSymlinks(systemPath)
	if err == nil {
		resolved, err = filepath.Abs(resolved)
	}
	if err != nil {
		return fmt.Errorf("fresh: %w", err)
	}
	if resolved == filepath.Dir(resolved) {
		return fmt.Errorf("fresh: refusing to delete %s: it is the file system root", systemPath)
	}
	if err := removeMarker(resolved); err != nil {
		return err
	}
	if err := removeContents(resolved); err != nil {
		return err
	}
	return syncDir(resolved)
}

func removeMarker(dir string) error {
	err := os.Remove(filepath.Join(dir, MarkerFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("fresh: %w", err)
	}
	return syncDir(dir)
}

// removeContents deletes every entry of dir in bounded batches. Each batch
// removes at least one entry or fails, so the loop ends.
func removeContents(dir string) error {
	for {
		names, err := readNames(dir, namesRemovedPerBatch)
		if err != nil {
			return err
		}
		if len(names) == 0 {
			return nil
		}
		for _, name := range names {
			if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("fresh: %w", err)
			}
		}
	}
}

func readNames(dir string, n int) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("fresh: %w", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(n)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("fresh: listing %s: %w", dir, err)
	}
	return names, nil
}
