package tcp

import (
	"bytes"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iggygo/iggy/adapters/transport"
	"github.com/iggygo/iggy/adapters/transport/transporttest"
	"github.com/iggygo/iggy/io/bus"
)

// Queued replies leave in order, joined into vectored writes, and each
// reply's written callback runs only after its bytes were handed over.
func TestWriteLoopOrderAndWrittenCallbacks(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	c := &conn{nc: server}
	c.q.Init(transport.Limits{}, func() { _ = server.Close() })
	var want bytes.Buffer
	var calls atomic.Int32
	const replies = 3 * writeBatchRepliesMax
	allWritten := make(chan struct{})
	for i := range replies {
		parts := [][]byte{{byte(i), 'a'}, bytes.Repeat([]byte{byte(i)}, 1000)}
		for _, p := range parts {
			want.Write(p)
		}
		if !c.SendThen(bus.Reply{Parts: parts}, func() {
			if calls.Add(1) == replies {
				close(allWritten)
			}
		}) {
			t.Fatal("queue full")
		}
	}
	go c.writeLoop()
	got := make([]byte, want.Len())
	if _, err := io.ReadFull(client, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("replies reordered or corrupted")
	}
	<-allWritten // every reply reports written, exactly once (a second close panics)
	c.Close()
}

// A client that stops reading: the reply its socket cannot take closes the
// connection once it has waited message_bus.client_write_stall_timeout.
// covers FLOW-4
func TestStalledReplyClosesConnection(t *testing.T) {
	const stall = 300 * time.Millisecond
	_, n := serveLimits(t, transport.Limits{WriteStallTimeout: stall})
	open := transporttest.Recv(t, n.Opened, "ConnOpened")
	transporttest.StallCutOff(t, n, open.Conn, make([]byte, 32<<20), stall)
}
