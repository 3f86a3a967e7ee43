package httpapi

import (
	"encoding/json"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// The decoder adapters keep the three answers of a read apart: absent
// (404), held, and a reply that does not decode (502).
func TestReplyAdapters(t *testing.T) {
	decode := func(b []byte) (int, wire.Code) {
		if len(b) != 1 {
			return 0, wire.InvalidCommand
		}
		return int(b[0]), wire.OK
	}
	absent := emptyIsAbsent(decode)
	if _, found, code := absent(nil); found || code != wire.OK {
		t.Fatalf("empty reply: found %v code %v", found, code)
	}
	if v, found, code := absent([]byte{7}); !found || code != wire.OK || v != 7 {
		t.Fatalf("held reply: %d %v %v", v, found, code)
	}
	if _, _, code := absent([]byte{1, 2}); code == wire.OK {
		t.Fatal("a bad reply decoded")
	}
	held := mustHold(absent)
	if _, code := held(nil); code == wire.OK {
		t.Fatal("a create's empty reply decoded")
	}
	if v, code := held([]byte{9}); code != wire.OK || v != 9 {
		t.Fatalf("a create's reply: %d %v", v, code)
	}
}

// An empty list is [] in JSON, never null.
func TestListIsNeverNull(t *testing.T) {
	b, err := json.Marshal(list([]int(nil), func(v int) int { return v }))
	if err != nil || string(b) != "[]" {
		t.Fatalf("empty list as %s (%v)", b, err)
	}
}

// partitionReadError maps the generic not-found codes to 404 and keeps nil nil.
func TestPartitionReadError(t *testing.T) {
	if partitionReadError(nil) != nil {
		t.Fatal("nil became an error")
	}
	if e := partitionReadError(fromCode(wire.TopicIdNotFound, "")); e.id != 404 {
		t.Fatalf("topic not found on the partition plane: %+v", e)
	}
	if e := partitionReadError(fromCode(wire.PartitionNotFound, "")); e.id != uint32(wire.PartitionNotFound) {
		t.Fatalf("partition not found lost its code: %+v", e)
	}
}
