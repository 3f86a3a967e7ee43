package metadata

import (
	"reflect"
	"testing"

	"github.com/iggygo/iggy/wire"
)

func partitionIDs(t *Topic) []uint32 {
	var out []uint32
	for _, p := range t.Partitions {
		out = append(out, p.ID)
	}
	return out
}

// covers RES-26, RES-29
func TestCreateAndDeletePartitions(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	h.topic(s, "t", 2)
	_, tp, _ := h.s.Topic(num(s), num(0))
	r := h.ok(RootUserID, &CreatePartitions{Stream: num(s), Topic: num(0), Count: 2})
	want := []Effect{
		PartitionCreated{Stream: s, Topic: 0, Partition: 2, Revision: h.op},
		PartitionCreated{Stream: s, Topic: 0, Partition: 3, Revision: h.op},
	}
	if !reflect.DeepEqual(r.Effects, want) || !reflect.DeepEqual(partitionIDs(tp), []uint32{0, 1, 2, 3}) {
		t.Fatalf("effects %+v partitions %v", r.Effects, partitionIDs(tp))
	}
	if tp.Partitions[0].CreatedRevision == h.op {
		t.Fatal("existing partition got a new revision")
	}
	created := h.op
	r = h.ok(RootUserID, &DeletePartitions{Stream: num(s), Topic: num(0), Count: 3})
	want = []Effect{
		PartitionDeleted{Stream: s, Topic: 0, Partition: 1, Revision: created - 1},
		PartitionDeleted{Stream: s, Topic: 0, Partition: 2, Revision: created},
		PartitionDeleted{Stream: s, Topic: 0, Partition: 3, Revision: created},
	}
	if !reflect.DeepEqual(r.Effects, want) || !reflect.DeepEqual(partitionIDs(tp), []uint32{0}) {
		t.Fatalf("effects %+v partitions %v", r.Effects, partitionIDs(tp))
	}
	// Ids append after the highest remaining one.
	h.ok(RootUserID, &CreatePartitions{Stream: num(s), Topic: num(0), Count: 1})
	h.ok(RootUserID, &DeletePartitions{Stream: num(s), Topic: num(0), Count: 2})
	h.ok(RootUserID, &CreatePartitions{Stream: num(s), Topic: num(0), Count: 1})
	if !reflect.DeepEqual(partitionIDs(tp), []uint32{0}) {
		t.Fatalf("partitions %v", partitionIDs(tp))
	}
	if h.s.PartitionsTotal() != 1 {
		t.Fatalf("total %d", h.s.PartitionsTotal())
	}
}

func TestPartitionRejections(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	h.topic(s, "t", 2)
	h.code(RootUserID, &CreatePartitions{Stream: num(s), Topic: num(0), Count: 0}, wire.TooManyPartitions)
	h.code(RootUserID, &CreatePartitions{Stream: num(s), Topic: num(0), Count: 1001}, wire.TooManyPartitions)
	h.code(RootUserID, &DeletePartitions{Stream: num(s), Topic: num(0), Count: 0}, wire.TooManyPartitions)
	h.code(RootUserID, &DeletePartitions{Stream: num(s), Topic: num(0), Count: 3}, wire.InvalidPartitionsCount)
	h.code(RootUserID, &CreatePartitions{Stream: num(s), Topic: num(4), Count: 1}, wire.TopicIdNotFound)
	h.code(RootUserID, &DeletePartitions{Stream: num(4), Topic: num(0), Count: 1}, wire.StreamIdNotFound)
}

func TestPartitionIDSpaceExhausted(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	h.topic(s, "t", 1)
	_, tp, _ := h.s.Topic(num(s), num(0))
	tp.Partitions[0].ID = partitionIDsMax - 2 // white box: a topic whose ids ran high
	h.ok(RootUserID, &CreatePartitions{Stream: num(s), Topic: num(0), Count: 1})
	h.code(RootUserID, &CreatePartitions{Stream: num(s), Topic: num(0), Count: 1}, wire.PartitionIdSpaceExhausted)
}

// covers RES-25, RES-27, RES-28
func TestFixedResizePolicy(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	c := newTopic(num(s), "t", 2)
	c.ResizePolicy = ResizeFixed
	h.ok(RootUserID, c)
	h.code(RootUserID, &CreatePartitions{Stream: num(s), Topic: num(0), Count: 1}, wire.PartitionResizeDisabled)
	h.code(RootUserID, &DeletePartitions{Stream: num(s), Topic: num(0), Count: 1}, wire.PartitionResizeDisabled)
	h.code(RootUserID, &UpdateResource{Scope: ScopeTopic, Stream: num(s), Topic: num(0),
		Set: block(opt("partition_resize_policy", kindString, []byte("mutable")))}, wire.OptionNotUpdatable)
	h.ok(RootUserID, &TruncatePartition{Stream: num(s), Topic: num(0), Partition: 1, Watermark: 5}) // retention still applies
}

// covers RES-44
func TestTruncatePartition(t *testing.T) {
	h := newHarness(t)
	s := h.stream("s")
	h.topic(s, "t", 2)
	rev := h.op
	r := h.ok(RootUserID, &TruncatePartition{Stream: num(s), Topic: named("t"), Partition: 1, Watermark: 900})
	want := []Effect{PartitionTruncated{Stream: s, Topic: 0, Partition: 1, Revision: rev, Watermark: 900}}
	if !reflect.DeepEqual(r.Effects, want) {
		t.Fatalf("effects %+v", r.Effects)
	}
	h.code(RootUserID, &TruncatePartition{Stream: num(s), Topic: num(0), Partition: 2}, wire.PartitionNotFound)
	h.code(RootUserID, &TruncatePartition{Stream: num(s), Topic: num(1), Partition: 0}, wire.TopicIdNotFound)
	h.code(RootUserID, &TruncatePartition{Stream: num(1), Topic: num(0), Partition: 0}, wire.StreamIdNotFound)
}
