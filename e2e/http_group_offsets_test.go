package e2e

import (
	"strconv"
	"testing"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// A consumer group member stores its group's offset over TCP; the offset
// reads back over HTTP with kind=consumer_group, by the group's id or
// name, without membership; the same consumer id read as a plain consumer
// holds nothing; an unknown kind is 400. (covers CGRP-11)
func TestHTTPReadsGroupMemberOffsets(t *testing.T) {
	t.Parallel()
	h := startHTTPServer(t, nil)
	c := h.root()
	stream, topic := createStreamTopic(t, c, "cg", "t", 1)
	msgs := make([]client.Message, 5)
	for i := range msgs {
		msgs[i] = client.Message{ID: messageID(0xC0, uint64(i)), Payload: []byte{byte(i)}}
	}
	if _, err := c.SendMessages(stream, topic, wire.Partitioning{Kind: wire.PartitioningPartitionID}, msgs); err != nil {
		t.Fatalf("send: %v", err)
	}
	g, err := c.CreateConsumerGroup(stream, topic, "workers")
	if err != nil {
		t.Fatal(err)
	}
	group := wire.Consumer{Kind: wire.ConsumerKindGroup, ID: wire.NumericID(g.ID)}
	if err := c.JoinConsumerGroup(stream, topic, group.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.StoreOffset(group, stream, topic, 0, 3); err != nil {
		t.Fatalf("member's store: %v", err)
	}
	tok := h.rootToken(t)
	for _, id := range []string{strconv.Itoa(int(g.ID)), "workers"} {
		o := h.getObj(t, "/streams/cg/topics/t/consumer-offsets?kind=consumer_group&partition_id=0&consumer_id="+id, tok)
		if o["stored_offset"] != float64(3) || o["current_offset"] != float64(4) {
			t.Fatalf("group %s over HTTP: %v", id, o)
		}
	}
	h.do(t, "GET", "/streams/cg/topics/t/consumer-offsets?partition_id=0&consumer_id="+strconv.Itoa(int(g.ID)), tok, nil).
		fails(t, 404, 404, "", "the same id as a plain consumer")
	h.do(t, "GET", "/streams/cg/topics/t/consumer-offsets?kind=group&partition_id=0&consumer_id=0", tok, nil).
		ok(t, 400, "an unknown kind")
}
