package node_test

import (
	"bytes"
	"testing"

	"github.com/iggygo/iggy/wire"
)

// A resent metadata request within the reply cache gets the cached reply
// again byte for byte (protocol-framing.md 4.5), the whole frame, not only
// its body.
//
// covers SESS-18
func TestResendReplaysTheWholeFrame(t *testing.T) {
	w := newWorld(t, 1)
	for _, line := range []string{"boot root=iggy/iggy", "connect c1", "login c1 iggy iggy",
		"create-stream c1 a", "create-stream c1 b", "resend c1 request=1"} {
		w.run(line)
	}
	c := w.clients["c1"]
	first, again := c.sent[1].reply, c.last.reply
	if len(first) != len(again) || !bytes.Equal(first[wire.HeaderSize:], again[wire.HeaderSize:]) {
		t.Fatalf("bodies differ: %x / %x", first[wire.HeaderSize:], again[wire.HeaderSize:])
	}
	if !bytes.Equal(first, again) {
		for i := range first {
			if first[i] != again[i] {
				t.Fatalf("the resent reply differs from the first at byte %d", i)
			}
		}
	}
}
