package node_test

import (
	"encoding/binary"
	"path"
	"strings"
	"testing"

	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire"
	"github.com/zeebo/xxh3"
)

// The files of the first partition of stream 0, topic 0.
const (
	partition0Dir   = "streams/0/topics/0/partitions/0"
	partition0Seg   = partition0Dir + "/00000000000000000000.log"
	consumer1Offset = partition0Dir + "/offsets/consumers/1"
)

// newestSuperblock decodes the newer valid slot of the superblock pair
// named by slots (two paths) on replica i's disk, durable bytes only.
func (c *testCluster) newestSuperblock(i int, slots [2]string) (vsr.Superblock, bool) {
	var b [2][]byte
	for k, p := range slots {
		if img, ok := c.hosts[i].disk.File(p); ok {
			b[k] = img.Durable
		}
	}
	return vsr.Newest(b[0], b[1])
}

var metadataSlots = [2]string{"metadata/superblock.a", "metadata/superblock.b"}

// covers STOR-16
// A new primary's view change makes durable, in one superblock slot, the
// view it adopted with that view's log head (op and checksum): a restart
// needs both to tell a log that lost its tail.
func TestViewChangeRecordsTheAdoptedHead(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.client(1)
	cl.connect(0)
	mustOK(t, cl.login())
	mustOK(t, cl.createStream("s1", false))
	c.until("every replica applied the create", func() bool { return c.converged(3) })
	c.stop(0, true)
	c.until("a new primary", func() bool { return c.primary() > 0 })
	p := c.primary()
	g := c.hosts[p].n.Groups()[0]
	c.until("the adopted view's head in the superblock", func() bool {
		sb, ok := c.newestSuperblock(p, metadataSlots)
		return ok && sb.View == g.View && sb.LogView == g.View && sb.LogHeadOp == g.Op && sb.LogHeadChecksum != 0
	})
	if g.Op < 3 {
		t.Fatalf("the new primary's log ends at op %d, before the create", g.Op)
	}
}

// partitionSlots are the superblock slots of the first partition's group
// (its directory is named by the partition's incarnation).
func (c *testCluster) partitionSlots(i int) [2]string {
	for _, f := range c.hosts[i].disk.Files() {
		if dir, name := path.Split(f); strings.HasPrefix(dir, partition0Dir+"/prepares-") && name == "superblock.a" {
			return [2]string{f, dir + "superblock.b"}
		}
	}
	c.t.Fatalf("replica %d has no partition superblock", i)
	return [2]string{}
}

// covers STOR-18
// A partition group's superblock slot of a version this binary does not
// know, newer than the other slot, is refused at boot with a message that
// names the slot and the version, though the other slot is readable.
func TestPartitionSuperblockOfUnknownVersionRefused(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	mustOK(t, sent(cl.send("s", "t", 2)))
	c.until("every replica applied the send", func() bool { return c.partitionConverged(1) })
	const victim = 1
	c.stop(victim, false)
	slots := c.partitionSlots(victim)
	sb, ok := c.newestSuperblock(victim, slots)
	if !ok {
		t.Fatal("no valid partition superblock slot")
	}
	slot := sb.Encode()
	le := binary.LittleEndian
	le.PutUint64(slot[8:], sb.Sequence+1)
	le.PutUint32(slot[16:], 3) // a version from the future
	le.PutUint64(slot, xxh3.Hash(slot[8:]))
	c.hosts[victim].disk.PutFile(slots[sb.Sequence%2], slot) // the slot the next write would take
	c.fatals = map[int]string{}
	c.start(victim)
	c.until("the refusal", func() bool { return c.fatals[victim] != "" })
	if f := c.fatals[victim]; !strings.Contains(f, slots[sb.Sequence%2]) || !strings.Contains(f, "version 3") {
		t.Fatalf("the refusal does not name the slot and its version: %s", f)
	}
}

// storeOffset stores offset for consumer 1 in partition 0 of s/t with the
// Quorum acknowledgement; again sends the last request id once more.
func (cl *cclient) storeOffset(offset uint64, again bool) wire.Code {
	q := wire.StoreConsumerOffsetRequest{ConsumerOffsetRef: consumer1Ref(), Offset: offset, Ack: wire.AckQuorum}
	if again {
		cl.request--
	}
	code, _ := cl.do(wire.CmdStoreConsumerOffset, encode(q.Encode))
	return code
}

// offset reads consumer 1's stored offset in partition 0 of s/t.
func (cl *cclient) offset() (uint64, bool) {
	code, payload := cl.do(wire.CmdGetConsumerOffset, encode(consumer1Ref().Encode))
	info, found, dcode := wire.DecodeConsumerOffsetInfo(payload)
	if code != wire.OK || dcode != wire.OK {
		cl.c.t.Fatalf("get offset: %s %s", code.Name(), dcode.Name())
	}
	return info.StoredOffset, found
}

func consumer1Ref() wire.ConsumerOffsetRef {
	return wire.ConsumerOffsetRef{Consumer: wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: wire.NumericID(1)},
		StreamID: wire.NamedID("s"), TopicID: wire.NamedID("t"), Partition: wire.OptionalPartition{Given: true}}
}

// onPartitionPrimary moves the client to the partition's primary and logs
// it in there.
func (cl *cclient) onPartitionPrimary() {
	cl.connect(cl.c.partitionPrimary())
	cl.c.until("a session on the partition's primary", func() bool { return cl.login() == wire.OK })
}

// covers CGRP-12
// Under persisted consumer offsets with the Quorum acknowledgement, an
// explicit offset write answered OK survives a power loss of every
// replica right after the answer; sent again with the same request id
// after the restart it is answered OK and the offset is still the one
// written.
func TestClusterOffsetWriteSurvivesCrashAndRetry(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient(wire.Option{Key: wire.OptConsumerOffsetDurability, Kind: wire.KindString, Value: []byte("persisted")})
	mustOK(t, sent(cl.send("s", "t", 5)))
	mustOK(t, cl.storeOffset(3, false))
	for i := range c.hosts {
		c.stop(i, true)
	}
	c.inbox = nil
	for i := range c.hosts {
		c.start(i)
	}
	cl.onPartitionPrimary()
	if off, found := cl.offset(); !found || off != 3 {
		t.Fatalf("after the power loss: offset %d found %t, want 3", off, found)
	}
	mustOK(t, cl.storeOffset(3, true))
	if off, found := cl.offset(); !found || off != 3 {
		t.Fatalf("after the retry: offset %d found %t, want 3", off, found)
	}
}

// covers CGRP-9
// A replica set's stored offsets are replicated state: a replica whose
// segment rotted at rest cuts its log at boot below a stored offset, and
// keeps that offset (no clamp to the cut log) while the messages come
// back from a peer; so the consumer resumes from it, not from the cut.
func TestClusterKeepsOffsetsAheadOfACutLog(t *testing.T) {
	c := newTestCluster(t, 3, 4)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	for range 12 {
		mustOK(t, sent(cl.send("s", "t", 2)))
	}
	mustOK(t, cl.storeOffset(23, false)) // the last message, in the last record
	for range 3 {                        // reads are ops too: the checkpoint at op 16 covers the store
		if off, found := cl.offset(); !found || off != 23 {
			t.Fatalf("offset %d found %t", off, found)
		}
	}
	c.until("every replica applied the reads", func() bool { return c.partitionConverged(16) })
	for range 200 { // the checkpoint becomes durable everywhere
		c.round()
	}
	damaged := c.backupOf(c.partitionPrimary(), 1)
	c.rotLastRecord(damaged)
	mustOK(t, sent(cl.send("s", "t", 2)))
	c.until("the damaged replica caught up", func() bool { return c.partitionConverged(17) })
	img, ok := c.hosts[damaged].disk.File(consumer1Offset)
	if !ok || len(img.Volatile) < 8 {
		t.Fatalf("the damaged replica has no offset file for consumer 1")
	}
	if off := binary.LittleEndian.Uint64(img.Volatile); off != 23 {
		t.Fatalf("the damaged replica's stored offset is %d, want 23 (clamped at boot)", off)
	}
}
