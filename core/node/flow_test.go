package node

import (
	"testing"

	"github.com/iggygo/iggy/io/bus"
	"github.com/iggygo/iggy/wire"
)

// flowFrame is a request of op (a Ping for NonReplicated) with a body of
// size bytes; the queue does not look inside.
func flowFrame(op wire.Operation, size int) []byte {
	h, _ := wire.StampRequest(wire.U128{Lo: 7}, op, wire.CmdPing, 1, 1)
	frame := make([]byte, wire.HeaderSize+size)
	h.Put(frame, size)
	return frame
}

// flowBusy is a node with connection 1 open and running a request, so
// what it sends next queues.
func flowBusy(t *testing.T, bytesMax uint64) (*Node, *conn) {
	t.Helper()
	n := New(Config{ServerVersion: "test", SegmentSizeBytes: 1 << 20, RequestQueueBytesMax: bytesMax}, nil)
	n.Step(ConnOpened{Conn: 1, Transport: bus.TransportTCP, Addr: "127.0.0.1:1"})
	c := n.conns[1]
	c.busy = true
	return n, c
}

// refused is the result a reply reports (header status or result section).
func refused(t *testing.T, r bus.Reply) wire.Code {
	t.Helper()
	var frame []byte
	for _, p := range r.Parts {
		frame = append(frame, p...)
	}
	h, code := wire.DecodeReplyHeader(frame)
	if code != wire.OK || r.Close {
		t.Fatalf("reply %x close %v: %v", frame, r.Close, code)
	}
	body, code := wire.SplitReplyBody(h, frame[wire.HeaderSize:])
	if code != wire.OK {
		t.Fatalf("reply body %x: %v", frame[wire.HeaderSize:], code)
	}
	return body.Result
}

// At most 1024 frames queue behind the request a connection runs; the next
// one is answered 58 at once and the queue keeps what it held.
// covers FLOW-5
func TestRequestQueueFramesCap(t *testing.T) {
	n, c := flowBusy(t, 0)
	for range connQueuedFramesMax {
		n.Step(ClientFrame{Conn: 1, Frame: flowFrame(wire.OpNonReplicated, 0)})
	}
	if got := n.TakeReady().Replies; len(got) != 0 || len(c.queued) != connQueuedFramesMax {
		t.Fatalf("%d frames queued, %d replies; want %d queued, no reply", len(c.queued), len(got), connQueuedFramesMax)
	}
	for _, op := range []wire.Operation{wire.OpNonReplicated, wire.OpCreateStream, wire.OpSendMessages, wire.OpRegister} {
		n.Step(ClientFrame{Conn: 1, Frame: flowFrame(op, 16)})
		got := n.TakeReady().Replies
		if len(got) != 1 || refused(t, got[0]) != wire.TransientNotAccepted {
			t.Fatalf("frame %d past the cap (%v): replies %+v, want one 58", connQueuedFramesMax+1, op, got)
		}
	}
	if len(c.queued) != connQueuedFramesMax || !c.busy {
		t.Fatalf("the refusals changed the queue: %d queued, busy %v", len(c.queued), c.busy)
	}
}

// Queued frames total at most client_request_queue_bytes_max: a frame that
// would pass it gets 58, a smaller one that fits is still queued, and a
// frame arriving while the queue is empty is queued whatever its size.
// covers FLOW-6, FLOW-7
func TestRequestQueueBytesCap(t *testing.T) {
	const bytesMax = 4096
	n, c := flowBusy(t, bytesMax)
	big := flowFrame(wire.OpCreateStream, 2*bytesMax)
	n.Step(ClientFrame{Conn: 1, Frame: big})
	if got := n.TakeReady().Replies; len(got) != 0 || len(c.queued) != 1 {
		t.Fatalf("a frame of %d bytes at an empty queue: %d replies, %d queued; want it queued", len(big), len(got), len(c.queued))
	}
	n.Step(ClientFrame{Conn: 1, Frame: flowFrame(wire.OpNonReplicated, 0)})
	if got := n.TakeReady().Replies; len(got) != 1 || refused(t, got[0]) != wire.TransientNotAccepted {
		t.Fatalf("a frame past %d queued bytes: replies %+v, want one 58", bytesMax, got)
	}

	n, c = flowBusy(t, bytesMax)
	small := flowFrame(wire.OpNonReplicated, 1000) // 1256 bytes: three fit, a fourth does not
	for range 3 {
		n.Step(ClientFrame{Conn: 1, Frame: small})
	}
	n.Step(ClientFrame{Conn: 1, Frame: small})
	got := n.TakeReady().Replies
	if len(got) != 1 || refused(t, got[0]) != wire.TransientNotAccepted || len(c.queued) != 3 || c.queuedBytes != 3*uint64(len(small)) {
		t.Fatalf("4 frames of %d bytes under a cap of %d: %d replies, %d queued (%d bytes); want the fourth refused",
			len(small), bytesMax, len(got), len(c.queued), c.queuedBytes)
	}
}
