package node_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	simdisk "github.com/iggygo/iggy/sim/disk"
	"github.com/iggygo/iggy/wire"
	"github.com/iggygo/iggy/wire/batch"
)

// partitionGroup returns replica i's state of the first partition group.
func (c *testCluster) partitionGroup(i int) (node.GroupState, bool) {
	h := c.hosts[i]
	if h.n == nil {
		return node.GroupState{}, false
	}
	for _, g := range h.n.Groups() {
		if g.Group.IsPartition {
			return g, true
		}
	}
	return node.GroupState{}, false
}

// partitionConverged: every live replica applied at least op of the
// partition group, and all applied the same prepare at the same op.
func (c *testCluster) partitionConverged(op uint64) bool {
	var first *node.GroupState
	for i := range c.hosts {
		if c.hosts[i].n == nil {
			continue
		}
		g, ok := c.partitionGroup(i)
		if !ok || g.Applied < op {
			return false
		}
		if first != nil && (g.Applied != first.Applied || g.AppliedChecksum != first.AppliedChecksum) {
			return false
		}
		first = &g
	}
	return true
}

func (cl *cclient) next() wire.RequestHeader {
	cl.request++
	return wire.RequestHeader{Client: cl.id, Request: cl.request, Session: cl.session}
}

// do sends command code with body and returns the reply's outcome.
func (cl *cclient) do(code wire.Command, body []byte) (wire.Code, []byte) {
	h := cl.next()
	h.Operation = wire.OperationForCommand(code)
	h.NRCode = code
	return replyOutcome(cl.c.t, cl.call(h, body))
}

func (cl *cclient) createTopic(stream, topic string, opts ...wire.Option) {
	q := wire.CreateTopicRequest{StreamID: wire.NamedID(stream), Name: topic, PartitionsCount: 1, Options: opts}
	mustOK(cl.c.t, first(cl.do(wire.CmdCreateTopic, encode(q.Encode))))
}

// send sends one batch of n messages to partition 0 of stream/topic.
func (cl *cclient) send(stream, topic string, n int) (wire.Code, uint64) {
	return cl.sendSized(stream, topic, n, 0)
}

// sendSized is send with payloads padded to size bytes.
func (cl *cclient) sendSized(stream, topic string, n, size int) (wire.Code, uint64) {
	return sendOutcome(cl.do(wire.CmdSendMessages, sendBody(cl.c.t, stream, topic, n, size, "m")))
}

// sendBody is a SendMessages body of n messages to partition 0, their
// payloads tag and their index, padded to size bytes.
func sendBody(t *testing.T, stream, topic string, n, size int, tag string) []byte {
	msgs := make([]batch.Message, n)
	for i := range msgs {
		payload := fmt.Appendf(nil, "%s%d", tag, i)
		payload = append(payload, make([]byte, max(0, size-len(payload)))...)
		msgs[i] = batch.Message{ID: [16]byte{byte(i + 1)}, Payload: payload}
	}
	rec, code := batch.Build(msgs)
	if code != wire.OK {
		t.Fatalf("batch: %s", code.Name())
	}
	q := wire.SendMessagesRequest{StreamID: wire.NamedID(stream), TopicID: wire.NamedID(topic),
		Partitioning: wire.Partitioning{Kind: wire.PartitioningPartitionID}, MessagesCount: uint32(n), Batch: rec}
	return encode(q.Encode)
}

// sendOutcome reads a send's reply: its code and base offset.
func sendOutcome(code wire.Code, payload []byte) (wire.Code, uint64) {
	if code != wire.OK {
		return code, 0
	}
	confs, _ := wire.DecodeSendConfirmations(payload)
	return code, confs[0].BaseOffset
}

// poll reads up to count messages of partition 0 from offset 0 and
// returns how many came and the partition's current offset.
func (cl *cclient) poll(stream, topic string, count uint32) (wire.Code, uint32, uint64) {
	q := wire.PollMessagesRequest{
		Consumer: wire.Consumer{Kind: wire.ConsumerKindConsumer, ID: wire.NumericID(1)},
		StreamID: wire.NamedID(stream), TopicID: wire.NamedID(topic),
		Partition: wire.OptionalPartition{Given: true}, Strategy: wire.PollingStrategy{Kind: wire.PollOffset}, Count: count,
	}
	h := cl.next()
	h.Operation, h.NRCode = wire.OpNonReplicated, wire.CmdPollMessages
	frame := cl.call(h, encode(q.Encode))
	code, payload := replyOutcome(cl.c.t, frame)
	if code != wire.OK || len(payload) < 16 {
		return code, 0, 0
	}
	return code, binary.LittleEndian.Uint32(payload[12:]), binary.LittleEndian.Uint64(payload[4:])
}

// partitionClient logs a client in on replica 0 and creates stream "s"
// with topic "t" of one partition, whose group then runs everywhere; the
// client then moves to the partition's primary. opts are the topic's.
func (c *testCluster) partitionClient(opts ...wire.Option) *cclient {
	cl := c.client(1)
	cl.connect(0)
	mustOK(c.t, cl.login())
	mustOK(c.t, cl.createStream("s", false))
	cl.createTopic("s", "t", opts...)
	c.until("the partition group on every replica", func() bool { return c.partitionConverged(0) })
	if p := c.partitionPrimary(); p != 0 {
		cl.connect(p)
		c.until("a session on the partition's primary", func() bool { return cl.login() == wire.OK })
	}
	return cl
}

// partitionPrimary is the replica leading the first partition group.
func (c *testCluster) partitionPrimary() int {
	p := -1
	c.until("a partition primary", func() bool {
		for i := range c.hosts {
			if g, ok := c.partitionGroup(i); ok && g.Primary {
				p = i
				return true
			}
		}
		return false
	})
	return p
}

// rotLastRecord stops replica i and flips a byte of the last record of its
// first partition's segment (boot scans from the last index entry, and
// cuts the log there), then starts it again.
func (c *testCluster) rotLastRecord(i int) {
	c.stop(i, false)
	img, ok := c.hosts[i].disk.File(partition0Seg)
	if !ok || len(img.Durable) < 200 {
		c.t.Fatalf("segment %s: %d bytes", partition0Seg, len(img.Durable))
	}
	img.Durable[len(img.Durable)-10] ^= 0xFF
	c.hosts[i].disk.PutFile(partition0Seg, img.Durable)
	c.start(i)
}

// backupOf is the k-th replica (k >= 1) after replica p.
func (c *testCluster) backupOf(p, k int) int { return (p + k) % len(c.hosts) }

func first(code wire.Code, _ []byte) wire.Code { return code }

func sent(code wire.Code, _ uint64) wire.Code { return code }

// covers VSR-1, VSR-2, STOR-30, PLACE-19, PLACE-21
// A partition of a replica set is its own group: the primary of its view
// alone orders its writes, a poll there sees every acknowledged one, a
// backup refuses partition requests with 89 (NotPrimary) and names the
// primary in its routes, and every replica's log applies the same ops. The group's
// journal is in the incarnation's own prepares-<revision> directory.
func TestClusterPartitionGroupSendPoll(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	for i := range 5 {
		code, base := cl.send("s", "t", 3)
		if code != wire.OK || base != uint64(3*i) {
			t.Fatalf("send %d: %s at %d", i, code.Name(), base)
		}
	}
	if code, n, current := cl.poll("s", "t", 100); code != wire.OK || n != 15 || current != 14 {
		t.Fatalf("poll: %s, %d messages, current offset %d", code.Name(), n, current)
	}
	p := c.partitionPrimary()
	backup := c.client(2)
	backup.connect(c.backupOf(p, 1))
	c.until("a session on a backup", func() bool { return backup.login() == wire.OK })
	if code, _ := backup.send("s", "t", 1); code != wire.NotPrimary {
		t.Fatalf("send to a backup: %s, want 89", code.Name())
	}
	code, payload := backup.do(wire.CmdPartitionRoutes, encode(wire.TopicRef{StreamID: wire.NamedID("s"), TopicID: wire.NamedID("t")}.Encode))
	routes, _ := wire.DecodePartitionRoutes(payload)
	if code != wire.OK || len(routes) != 1 || int(routes[0].Primary) != p {
		t.Fatalf("routes from a backup: %s %+v, primary %d", code.Name(), routes, p)
	}
	c.until("the partition group converges", func() bool { return c.partitionConverged(6) })
	g, _ := c.partitionGroup(2)
	wal := fmt.Sprintf("streams/0/topics/0/partitions/0/prepares-%d/%020d.wal", g.Group.Revision, 1)
	if _, ok := c.hosts[2].disk.File(wal); !ok {
		t.Fatalf("no journal segment %s among %v", wal, c.hosts[2].disk.Files())
	}
}

// covers VSR-19, VSR-22
// A replica cut off while the partition's group checkpoints past what its
// peers keep catches up by state transfer: the image names the log's
// length, and the messages it lacks are fetched from a peer, the rest of
// its log kept.
func TestClusterPartitionGroupStateTransfer(t *testing.T) {
	c := newTestCluster(t, 3, 4)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	mustOK(t, sent(cl.send("s", "t", 2)))
	c.until("the first batch everywhere", func() bool { return c.partitionConverged(1) })
	cut := c.backupOf(c.partitionPrimary(), 1)
	c.isolate(cut, true)
	for range 30 {
		mustOK(t, sent(cl.send("s", "t", 2)))
	}
	c.isolate(cut, false)
	c.until("the cut-off replica catches up", func() bool { return c.partitionConverged(31) })
	if c.marks["vsr.state_transfer.installed"] == 0 {
		t.Fatalf("no state transfer: %v", c.marks)
	}
}

// covers VSR-2, VSR-28, PLACE-22
// The partition's primary dies with its unsynced writes lost: a new
// primary of the partition's group takes over, sends continue there at
// the next offset, and the old primary comes back, converges, and refuses
// the partition's requests with 89.
func TestClusterPartitionGroupPrimaryCrash(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	mustOK(t, sent(cl.send("s", "t", 4)))
	first := c.partitionPrimary()
	c.stop(first, true)
	primary := c.partitionPrimary()
	other := c.client(2)
	other.connect(primary)
	c.until("a session on the new primary", func() bool { return other.login() == wire.OK })
	code, base := other.send("s", "t", 1)
	if code != wire.OK || base != 4 {
		t.Fatalf("send to the new primary: %s at %d, want offset 4", code.Name(), base)
	}
	c.start(first)
	c.until("convergence", func() bool { return c.partitionConverged(2) })
	old := c.client(3)
	old.connect(first)
	c.until("a session on the old primary", func() bool { return old.login() == wire.OK })
	var refused wire.Code
	c.until("evidence on the restarted replica", func() bool { // 58 until then (QEV-8)
		refused, _ = old.send("s", "t", 1)
		return refused != wire.TransientNotAccepted
	})
	if refused != wire.NotPrimary {
		t.Fatalf("send to the old primary: %s, want 89", refused.Name())
	}
}

// covers VSR-20, VSR-22
// With a repair budget of a few prepares, a partition group keeps no more
// for its peers although its op window would hold them all: a replica cut
// off meanwhile catches up by state transfer, not by repair.
func TestClusterPartitionGroupRepairBudget(t *testing.T) {
	c := newBudgetedCluster(t, 3, 0, 1024)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	cut := c.backupOf(c.partitionPrimary(), 1)
	c.isolate(cut, true)
	for range 70 { // past the default checkpoint spacing of 64 ops
		mustOK(t, sent(cl.send("s", "t", 2)))
	}
	c.isolate(cut, false)
	c.until("the cut-off replica catches up", func() bool { return c.partitionConverged(70) })
	if c.marks["vsr.state_transfer.installed"] == 0 || c.marks["vsr.repair.range_evicted"] == 0 {
		t.Fatalf("no state transfer after an evicted range: %v", c.marks)
	}
}

// covers VSR-3
// A partition group message naming incarnation 0 is refused: every
// partition's revision is the metadata op that created it, op 1 or later.
func TestClusterPartitionFrameOfIncarnationZeroRefused(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	c.hosts[1].n.Step(node.PeerMessage{Group: node.GroupID{IsPartition: true}, Msg: vsr.Message{Command: vsr.CmdCommit, From: 0, To: 1}})
	if c.marks["node.partition_group.incarnation_zero_refused"] != 1 {
		t.Fatalf("marks %v", c.marks)
	}
}

// covers STOR-10
// A replica whose disk was wiped comes back fresh while the others hold a
// quorum: it catches up on metadata and on the partition's messages from
// its peers.
func TestClusterFreshReplicaCatchesUp(t *testing.T) {
	c := newTestCluster(t, 3, 4)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	for range 10 {
		mustOK(t, sent(cl.send("s", "t", 3)))
	}
	c.stop(2, true)
	c.hosts[2].disk = simdisk.New(simdisk.Options{Seed: 99})
	c.start(2)
	c.until("the fresh replica catches up", func() bool { return c.converged(4) && c.partitionConverged(10) })
}

// covers STOR-42
// A replica whose partition segment rotted at rest cuts its log at boot
// below what its checkpoint covers, and the journal that held those
// messages is gone: before it applies anything more it fetches them from
// a peer, and its log ends up equal to the others'.
func TestClusterPartitionRefetchAfterDamage(t *testing.T) {
	c := newTestCluster(t, 3, 4)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	for range 12 {
		mustOK(t, sent(cl.send("s", "t", 2)))
	}
	c.until("every replica applied the sends", func() bool { return c.partitionConverged(12) })
	for range 200 { // the checkpoint at op 12 becomes durable everywhere
		c.round()
	}
	p := c.partitionPrimary()
	damaged := c.backupOf(p, 1)
	c.rotLastRecord(damaged)
	seg := partition0Seg
	mustOK(t, sent(cl.send("s", "t", 2)))
	c.until("the damaged replica caught up", func() bool { return c.partitionConverged(13) })
	c.until("its log equal to the primary's", func() bool {
		want, _ := c.hosts[p].disk.File(seg)
		got, _ := c.hosts[damaged].disk.File(seg)
		return string(got.Volatile) == string(want.Volatile)
	})
}

// covers OPS-2
// A backup of a partition counts a message only once it learns of the
// commit: right after the primary answered the send the backup may not
// count it, and on an idle cluster the commit broadcast (every 50 ticks,
// 500 ms) brings its count up within one interval (and a few ticks of
// message delivery).
func TestBackupCountsMessagesOnceCommitted(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	backup := c.client(2)
	backup.connect(c.backupOf(c.partitionPrimary(), 1))
	c.until("a session on a backup", func() bool { return backup.login() == wire.OK })
	mustOK(t, sent(cl.send("s", "t", 3)))
	start := c.ticks
	counted := func() uint64 {
		_, payload := backup.do(wire.CmdGetStats, nil)
		st, _ := wire.DecodeStats(payload)
		return st.MessagesCount
	}
	for counted() != 3 {
		if c.ticks-start > vsr.HeartbeatTicks+20 {
			t.Fatalf("the backup counts %d messages %d ticks after the send", counted(), c.ticks-start)
		}
		c.round()
	}
}

// covers STOR-42
// The partition's primary reads a record that rotted at rest, below the
// last index entry, where no boot scan looks: the poll answers
// CannotReadMessage, the replica checks its whole log, cuts it at the bad
// record and fetches the rest from a peer: its log ends up equal to a
// backup's, and a poll reads every message again.
func TestClusterPartitionReadRepair(t *testing.T) {
	c := newTestCluster(t, 3, 4)
	c.until("root", func() bool { return c.converged(1) })
	cl := c.partitionClient()
	for range 24 { // 1.5 MiB: the oldest records leave the 1 MiB tail cache
		mustOK(t, sent(cl.sendSized("s", "t", 1, 64<<10)))
	}
	c.until("every replica applied the sends", func() bool { return c.partitionConverged(24) })
	p := c.partitionPrimary()
	seg := "streams/0/topics/0/partitions/0/00000000000000000000.log"
	img, _ := c.hosts[p].disk.File(seg)
	img.Volatile[1000] ^= 0xFF // in the first record's payload
	c.hosts[p].disk.PutFile(seg, img.Volatile)
	if code, _, _ := cl.poll("s", "t", 1); code != wire.CannotReadMessage {
		t.Fatalf("poll of the rotted record: %s", code.Name())
	}
	backup := c.backupOf(p, 1)
	c.until("the repaired log equal to a backup's", func() bool {
		want, _ := c.hosts[backup].disk.File(seg)
		got, _ := c.hosts[p].disk.File(seg)
		return string(got.Volatile) == string(want.Volatile)
	})
	reader := c.client(4) // the reopened group restarted its primary: the view moved on
	reader.connect(c.partitionPrimary())
	c.until("a session on the partition's primary", func() bool { return reader.login() == wire.OK })
	c.until("every message served", func() bool {
		code, n, _ := reader.poll("s", "t", 100)
		return code == wire.OK && n == 24
	})
}
