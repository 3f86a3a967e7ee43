package node

import (
	"strconv"

	"github.com/iggygo/iggy/io/storage"
	"github.com/iggygo/iggy/wire"
)

func streamDir(stream uint32) string {
	return "streams/" + strconv.FormatUint(uint64(stream), 10)
}

func topicDir(k topicKey) string {
	return streamDir(k.stream) + "/topics/" + strconv.FormatUint(uint64(k.topic), 10)
}

// removeDeletedDirs removes the directory of each topic whose partitions
// an op deleted when the topic itself is gone, or its stream's when that is
// gone too (STOR-31): deleting the partition trees alone leaves the topic
// directory behind. Like the partition deletes, it is not awaited (a delete
// cut short by a restart leaves a directory a later create adopts or
// replaces); the disk runs a tree delete in order with everything below
// it, so a create of the same ids after it finds no leftover.
func (n *Node) removeDeletedDirs(topics []topicKey) {
	done := map[string]bool{} // one tree delete per directory
	for _, k := range topics {
		if _, _, code := n.meta.Topic(wire.NumericID(k.stream), wire.NumericID(k.topic)); code == wire.OK {
			continue // only some of its partitions went
		}
		dir := topicDir(k)
		if _, ok := n.meta.Stream(wire.NumericID(k.stream)); !ok {
			dir = streamDir(k.stream)
		}
		if !done[dir] {
			done[dir] = true
			n.submit(owner{kind: ownerMisc}, storage.Request{Op: storage.OpDeleteTree, File: dir})
		}
	}
}
