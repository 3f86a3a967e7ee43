package e2e

import (
	"fmt"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// clusterBatch is how many messages one acknowledged send carries.
const clusterBatch = 10

// ackedSend is a batch the set acknowledged: its first offset and messages.
type ackedSend struct {
	offset uint64
	msgs   []client.Message
}

// A client sends through one node and reads back through another, the
// routing client following 89 (NotPrimary) and PartitionRoutes to the
// partition's primary; then kill -9 of a backup and of the partition's
// primary, each restarted from its disk, loses no acknowledged message,
// and the set keeps taking sends throughout; so does kill -9 of the
// metadata primary, while a stream is created on the others.
// covers VSR-1, PLACE-20, PLACE-21
func TestClusterKillsLoseNoAcknowledgedMessage(t *testing.T) {
	tc := startCluster(t, 3)
	admin := tc.node(1) // a backup in view 0: the create is forwarded
	s, err := admin.CreateStream("kills")
	if err != nil {
		t.Fatalf("create stream: %v", err)
	}
	d, err := admin.CreateTopic(wire.NumericID(s.ID), "t", 1, nil)
	if err != nil {
		t.Fatalf("create topic: %v", err)
	}
	stream, topic := wire.NumericID(s.ID), wire.NumericID(d.Topic.ID)
	producer := tc.client()
	var acked []ackedSend
	send := func(rounds int) {
		for range rounds {
			acked = append(acked, tc.sendBatch(producer, stream, topic, len(acked)))
		}
	}
	send(5)
	tc.verify(tc.client(), stream, topic, acked)

	primary := tc.partitionPrimary(stream, topic)
	backup := (primary + 1) % len(tc.nodes)
	t.Logf("partition primary %d; killing backup %d, then the primary", primary, backup)
	tc.nodes[backup].kill()
	send(5)
	tc.nodes[backup] = tc.nodes[backup].restart()
	send(5)

	tc.nodes[primary].kill()
	send(5) // through the new primary, once the group changed view
	tc.nodes[primary] = tc.nodes[primary].restart()
	send(5)
	tc.verify(tc.client(), stream, topic, acked)

	leader := tc.metadataLeader()
	t.Logf("killing metadata primary %d", leader)
	tc.nodes[leader].kill()
	other := tc.client()
	tc.eventually("create a stream without the metadata primary", func() error {
		return other.Any(func(c *client.Client) error {
			_, err := c.CreateStream("after-the-leader")
			return err
		})
	})
	send(5)
	tc.nodes[leader] = tc.nodes[leader].restart()
	tc.verify(tc.client(), stream, topic, acked)
}

// metadataLeader is the replica id the set names leader of its metadata
// group.
func (tc *testCluster) metadataLeader() int {
	tc.t.Helper()
	k := tc.client()
	leader := -1
	tc.eventually("a metadata leader", func() error {
		var err error
		if leader, err = k.MetadataLeader(); err == nil && leader < 0 {
			err = fmt.Errorf("no leader yet")
		}
		return err
	})
	return leader
}

// sendBatch sends batch number n through k, retrying while the set
// changes view (a resend after a lost reply may store the batch twice;
// only the acknowledged offset counts).
func (tc *testCluster) sendBatch(k *client.Cluster, stream, topic wire.Identifier, n int) ackedSend {
	tc.t.Helper()
	msgs := make([]client.Message, clusterBatch)
	for i := range msgs {
		msgs[i] = client.Message{ID: messageID('k', uint64(n*clusterBatch+i)), Payload: []byte(fmt.Sprintf("batch %d message %d", n, i))}
	}
	var offset uint64
	tc.eventually(fmt.Sprintf("send batch %d", n), func() error {
		var err error
		offset, err = k.SendMessages(stream, topic, 0, msgs)
		return err
	})
	return ackedSend{offset: offset, msgs: msgs}
}

// partitionPrimary is the replica id of partition 0's primary, as node 0
// reports it.
func (tc *testCluster) partitionPrimary(stream, topic wire.Identifier) int {
	tc.t.Helper()
	routes, err := tc.node(0).PartitionRoutes(stream, topic)
	if err != nil || len(routes) != 1 {
		tc.t.Fatalf("routes %+v err %v", routes, err)
	}
	return int(routes[0].Primary)
}

// verify polls the partition through k and finds every acknowledged batch
// at its acknowledged offsets.
func (tc *testCluster) verify(k *client.Cluster, stream, topic wire.Identifier, acked []ackedSend) {
	tc.t.Helper()
	var got []client.ReceivedMessage
	tc.eventually("poll the partition", func() error {
		got = got[:0]
		for {
			_, msgs, err := k.PollMessages(client.Consumer(1), stream, topic, 0, wire.PollOffset, uint64(len(got)), pollChunk, false)
			if err != nil {
				return err
			}
			if len(msgs) == 0 {
				return nil
			}
			got = append(got, msgs...)
		}
	})
	checkContiguous(tc.t, 0, got)
	for n, a := range acked {
		for i, m := range a.msgs {
			at := a.offset + uint64(i)
			if at >= uint64(len(got)) {
				tc.t.Fatalf("batch %d message %d acknowledged at offset %d; the partition ends at %d", n, i, at, len(got))
			}
			if err := checkMessage(got[at], sentMessage{offset: at, msg: m}); err != nil {
				tc.t.Fatalf("batch %d message %d: %v", n, i, err)
			}
		}
	}
}
