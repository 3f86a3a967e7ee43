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
// offset files every node holds with the same file of the first node that
// holds it (the nodes are stopped; with a replication factor below the
// node count each partition lives on its members only). The sparse .index
// holds an entry per local disk write, and prepares-*/ is each replica's
// own journal, so those differ by design.
func identicalPartitions(nodes []*node) (bool, string, error) {
	first := map[string]int{} // file -> the node compared against
	held := map[int]map[string][]byte{}
	compared := 0
	for _, n := range nodes {
		files, err := partitionFiles(n.dataDir)
		if err != nil {
			return false, "", err
		}
		held[n.id] = files
		for name, data := range files {
			ref, ok := first[name]
			if !ok {
				first[name] = n.id
				continue
			}
			compared++
			if !bytes.Equal(held[ref][name], data) {
				return false, fmt.Sprintf("%s differs between node %d (%d bytes) and node %d (%d bytes)", name, ref, len(held[ref][name]), n.id, len(data)), nil
			}
		}
	}
	if len(first) == 0 {
		return false, "no node holds partition files", nil
	}
	return true, fmt.Sprintf("partition files identical (%d files, %d copies compared)", len(first), compared), nil
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
