package storagegate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// ReplicaFile binds a data directory to the replica set and the replica
// it was started as: the storage of replica 1 of cluster "a" started as
// replica 2, or as a node of cluster "b", would vote and acknowledge with
// another replica's log, so such a start is refused.
const ReplicaFile = "iggy-replica"

const (
	replicaTemp       = ReplicaFile + ".tmp"
	replicaBytesMax   = 512 // a cluster name (at most 255 bytes) and a replica id
	replicaFileFormat = "cluster %s\nreplica %d\n"
)

// BindReplica records cluster name and replica id in systemPath (admitted
// by Check) on the first start as a replica, and refuses, naming both,
// a later start as another replica or in another cluster.
func BindReplica(systemPath, cluster string, replica uint8) error {
	want := fmt.Sprintf(replicaFileFormat, strconv.Quote(cluster), replica)
	path := filepath.Join(systemPath, ReplicaFile)
	got, err := readBounded(path, replicaBytesMax)
	if errors.Is(err, os.ErrNotExist) {
		return publishReplica(systemPath, want)
	}
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("storage gate: refusing %s: its %s records %q, but this node starts as %q: start it with the cluster.name and --replica-id it was created with, or use --fresh to delete its data",
			systemPath, ReplicaFile, got, want)
	}
	return nil
}

// publishReplica writes the binding atomically, as initialize does the marker.
func publishReplica(dir, content string) error {
	temp := filepath.Join(dir, replicaTemp)
	if err := writeSynced(temp, []byte(content)); err != nil {
		return err
	}
	if err := os.Rename(temp, filepath.Join(dir, ReplicaFile)); err != nil {
		return fmt.Errorf("storage gate: publishing %s: %w", ReplicaFile, err)
	}
	return syncDir(dir)
}

// readBounded reads a small file whole; a larger one is not ours.
func readBounded(path string, sizeMax int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, sizeMax+1))
	if err != nil {
		return "", fmt.Errorf("storage gate: reading %s: %w", path, err)
	}
	if int64(len(b)) > sizeMax {
		return "", fmt.Errorf("storage gate: refusing %s: over %d bytes, not written by this server", path, sizeMax)
	}
	return string(b), nil
}
