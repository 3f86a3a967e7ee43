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
//
// A topic with partitions on host shards waits for those hosts' deletes
// (dirDelete): the directory delete must not run beside them, and opens
// under the stream wait until it completed.
func (n *Node) removeDeletedDirs(topics []topicKey) {
	done := map[string]bool{} // one tree delete per directory
	for _, k := range topics {
		if d := n.dirDeletes[k.stream]; d != nil && d.drops > 0 {
			n.cfg.Marks.Hit("node.shard.dir_delete_deferred")
			d.topics = append(d.topics, k)
			continue
		}
		if _, _, code := n.meta.Topic(wire.NumericID(k.stream), wire.NumericID(k.topic)); code == wire.OK {
			continue // only some of its partitions went
		}
		dir := topicDir(k)
		if _, ok := n.meta.Stream(wire.NumericID(k.stream)); !ok {
			dir = streamDir(k.stream)
		}
		if !done[dir] {
			done[dir] = true
			n.submitDirDelete(k.stream, dir)
		}
	}
}

// dirHeldMax bounds the hand-offs waiting for one stream's directory work:
// the front's connection queues bound the requests, metadata ops the rest.
const dirHeldMax = 1 << 20

// dirDelete is what a stream's directory waits for: hosts deleting
// partitions under it (drops), then the front's deletes of directories
// (inFlight); held are hand-offs for the stream that must wait for both.
type dirDelete struct {
	drops, inFlight int
	topics          []topicKey // whose directories are deleted once drops is 0
	held            []partBody
}

// submitDirDelete deletes a stream's or topic's directory on the front's
// disk. Until it completed, a partition another shard creates under the
// stream waits (streamSend): its files would be in the tree being deleted,
// on a disk that keeps no order with the front's. That holds when only
// the front's own partitions were dropped too: iggy-bench's end-to-end
// test deleted a stream whose one partition was the front's and at once
// created it again under the same id with a partition on a host, and the
// delete took that partition's new segment.
func (n *Node) submitDirDelete(stream uint32, dir string) {
	d := n.dirDeletes[stream]
	if d == nil {
		d = &dirDelete{}
		n.dirDeletes[stream] = d
	}
	d.inFlight++
	n.submit(owner{kind: ownerDirDelete, part: partKey{stream: stream}}, storage.Request{Op: storage.OpDeleteTree, File: dir})
}

// partitionDropped: a host deleted partition k's files.
func (n *Node) partitionDropped(k partKey) {
	d := n.dirDeletes[k.stream]
	d.drops--
	if d.drops > 0 {
		return
	}
	topics := d.topics
	d.topics = nil
	n.removeDeletedDirs(topics)
	n.releaseDirDelete(k.stream)
}

func (n *Node) dirDeleted(o owner, c storage.Completion) {
	if c.Result != storage.ResultOK && c.Result != storage.ResultNotFound {
		n.logf("deleting a directory of stream %d failed: %s", o.part.stream, c.Err)
	}
	n.dirDeletes[o.part.stream].inFlight--
	n.releaseDirDelete(o.part.stream)
}

// releaseDirDelete sends what waited once nothing is pending for the
// stream, in order; a drop among them makes the rest wait again.
func (n *Node) releaseDirDelete(stream uint32) {
	d := n.dirDeletes[stream]
	if d.drops > 0 || d.inFlight > 0 {
		return
	}
	delete(n.dirDeletes, stream)
	for _, b := range d.held {
		_, open := b.(shardOpen)
		n.streamSend(b, open)
	}
}
