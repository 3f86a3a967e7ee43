package quic

import (
	"github.com/iggygo/iggy/internal/assert"
	"github.com/iggygo/iggy/wire"
)

// pick is the index of the waiting stream a reply with header head answers,
// or -1 when none is waiting. A reply answers the oldest stream whose
// request id it echoes (1.5); an eviction carries no request id and stands
// in for the reply to the oldest request (1.6), as does a reply whose id no
// stream has.
func pick(waiting []waitingStream, head []byte) int {
	if len(waiting) == 0 {
		return -1
	}
	h, code := wire.DecodeReplyHeader(head)
	if code != wire.OK {
		return 0
	}
	for i, w := range waiting {
		if w.request == h.Request {
			return i
		}
	}
	return 0
}

// replyHead is the first 256 bytes of a reply, which may span its parts.
func replyHead(parts [][]byte) [wire.HeaderSize]byte {
	var head [wire.HeaderSize]byte
	n := 0
	for _, p := range parts {
		if n == len(head) {
			break
		}
		n += copy(head[n:], p)
	}
	if n != len(head) {
		assert.Failf("reply of %d bytes is shorter than a header", n)
	}
	return head
}
