package node_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// groupCall creates or joins consumer group name of stream s, topic t.
func groupCall(w *world, c *simClient, code wire.Command, s, t, name string) {
	var body []byte
	if code == wire.CmdCreateConsumerGroup {
		body = encode(wire.CreateConsumerGroupRequest{StreamID: ident(s), TopicID: ident(t), Name: name}.Encode)
	} else {
		body = encode(wire.GroupRef{StreamID: ident(s), TopicID: ident(t), GroupID: ident(name)}.Encode)
	}
	w.call(c, "group", code, body, decodeBytes)
	w.finish()
}

// A member storing the offset of a partition another member owns gets
// 5009, and the node's diagnostic names it by its full 128-bit VSR client
// id, not the 32-bit connection id GetClient shows. (covers CGRP-6)
func TestNotOwnedNamesFullClientID(t *testing.T) {
	w := newWorld(t, 1)
	for _, line := range []string{"boot root=iggy/iggy", "connect a", "login a iggy iggy", "connect b", "login b iggy iggy",
		"create-stream a s", "create-topic a s t partitions=1"} {
		w.run(line)
	}
	a, b := w.clients["a"], w.clients["b"]
	groupCall(w, a, wire.CmdCreateConsumerGroup, "s", "t", "g")
	groupCall(w, a, wire.CmdJoinConsumerGroup, "s", "t", "g")
	groupCall(w, b, wire.CmdJoinConsumerGroup, "s", "t", "g")
	out := strings.Join(w.run("store-offset b s t partition=0 offset=1 group=g"), "\n")
	want := fmt.Sprintf("client %016x%016x does not own partition 0 (5009)", b.id.Hi, b.id.Lo)
	if !strings.Contains(out, "5009") || !strings.Contains(out, want) || b.id.Hi == 0 {
		t.Fatalf("store by a member without the partition:\n%s\nwant a line with %q", out, want)
	}
	if out := strings.Join(w.run("store-offset a s t partition=0 offset=1 group=g"), "\n"); strings.Contains(out, "5009") {
		t.Fatalf("the owner's store: %s", out)
	}
}
