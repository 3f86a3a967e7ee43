package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// leaderOf is the replica id a reachable node names leader of the
// metadata group, or -1.
func leaderOf(addrs []string) int {
	k := newClusterClient(addrs)
	defer k.Close()
	leader, _ := k.MetadataLeader()
	return leader
}

// identicalPartitions compares the segment files (.log) and consumer
// offset files of each node's data directory with node 0's (the nodes are
// stopped). The sparse .index holds an entry per local disk write, and
// prepares-*/ is each replica's own journal, so those differ by design.
func identicalPartitions(nodes []*node) (bool, string, error) {
	ref, err := partitionFiles(nodes[0].dataDir)
	if err != nil {
		return false, "", err
	}
	if len(ref) == 0 {
		return false, "node 0 holds no partition files", nil
	}
	for _, n := range nodes[1:] {
		files, err := partitionFiles(n.dataDir)
		if err != nil {
			return false, "", err
		}
		if len(files) != len(ref) {
			return false, fmt.Sprintf("node %d holds %d partition files, node 0 %d", n.id, len(files), len(ref)), nil
		}
		for name, data := range ref {
			if !bytes.Equal(files[name], data) {
				return false, fmt.Sprintf("%s differs between node 0 (%d bytes) and node %d (%d bytes)", name, len(data), n.id, len(files[name])), nil
			}
		}
	}
	return true, "partition files identical", nil
}

// partitionFiles reads the segment and consumer offset files under
// dir/streams by relative path.
func partitionFiles(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	root := filepath.Join(dir, "streams")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !replicated(path) {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		out[rel] = data
		return err
	})
	return out, err
}

// replicated reports a file every replica must hold byte for byte.
func replicated(path string) bool {
	return filepath.Ext(path) == ".log" || strings.Contains(path, string(filepath.Separator)+"offsets"+string(filepath.Separator))
}
