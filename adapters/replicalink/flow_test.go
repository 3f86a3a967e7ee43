package replicalink

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/vsr"
	"github.com/iggygo/iggy/wire/replica"
)

// bigPrepare is a prepare message carrying a body of size bytes.
func bigPrepare(from, to uint8, size int) node.PeerMessage {
	p := vsr.Prepare{Op: 1, View: 1, Kind: vsr.KindAppend, Body: make([]byte, size)}
	vsr.Seal(&p)
	return node.PeerMessage{Group: node.GroupID{IsPartition: true, Revision: 1},
		Msg: vsr.Message{Command: vsr.CmdPrepare, From: from, To: to, View: 1, Op: 1, Prepares: []vsr.Prepare{p}}}
}

// A peer that stops reading fills the link's queue; Send then drops and
// counts instead of blocking, and what was queued still arrives once the
// peer reads again.
func TestLinksQueueFullDrops(t *testing.T) {
	release := make(chan struct{})
	var delivered sync.WaitGroup
	nodes := cluster(t, 2, func(i int, c *Config) {
		c.QueueCapacity = 8
		if i == 1 {
			c.Deliver = func(node.PeerMessage) { <-release; delivered.Done() }
		}
	})
	waitLinked(t, nodes[0], 1)
	m := bigPrepare(0, 1, 1<<20)
	queued := 0
	const sendsMax = 10_000
	for range sendsMax {
		delivered.Add(1)
		start := time.Now()
		ok := nodes[0].bus.Send(m)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("Send blocked %v", d)
		}
		if !ok {
			delivered.Done()
			break
		}
		queued++
	}
	if s := nodes[0].bus.Stats(); queued == sendsMax || s.DroppedFull != 1 {
		t.Fatalf("%d queued of %d, stats %+v", queued, sendsMax, s)
	}
	close(release)
	delivered.Wait() // every queued message arrives
	if s := nodes[1].bus.Stats(); s.Received != uint64(queued) {
		t.Fatalf("received %d of %d queued", s.Received, queued)
	}
}

// A link comes back after either end restarts on the same address: the
// dialer redials a restarted acceptor, a restarted dialer replaces its
// old link. While down, Send drops and counts.
func TestLinksReconnect(t *testing.T) {
	nodes := cluster(t, 2, nil)
	exchange(t, nodes)
	for _, i := range []int{1, 0} {
		old := nodes[i]
		if err := old.bus.Close(); err != nil {
			t.Fatal(err)
		}
		other := nodes[1-i]
		waitFor(t, func() bool { return other.bus.Linked(old.cfg.Self) == 0 }, "link to %d down", i)
		if other.bus.Send(every(other.cfg.Self, old.cfg.Self)[0]) || other.bus.Stats().DroppedUnlinked == 0 {
			t.Fatal("a message to a stopped peer was queued")
		}
		ln, err := net.Listen("tcp", old.addr)
		if err != nil {
			t.Fatal(err)
		}
		cfg := old.cfg
		cfg.Log, cfg.Deliver = nil, nil
		nodes[i] = start(t, cfg, ln)
		exchange(t, nodes)
	}
}

// readRecorder records each read's buffer length and result.
type readRecorder struct {
	r     io.Reader
	mu    sync.Mutex
	calls []readCall
}

type readCall struct{ asked, got int }

func (rr *readRecorder) Read(p []byte) (int, error) {
	n, err := rr.r.Read(p)
	rr.mu.Lock()
	rr.calls = append(rr.calls, readCall{len(p), n})
	rr.mu.Unlock()
	return n, err
}

// readOver writes frames into a real socket, closes it, and runs
// readFrames over the other end; it returns the reads made and the
// messages delivered.
func readOver(t *testing.T, b *Bus, frames []byte, writeFirst bool) ([]readCall, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	out, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	in, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	write := func() { _, _ = out.Write(frames); _ = out.Close() }
	if writeFirst {
		write()
	} else {
		go write()
	}
	delivered := 0
	b.cfg.Deliver = func(node.PeerMessage) { delivered++ }
	rr := &readRecorder{r: in}
	if err := b.readFrames(rr, 0); err != io.EOF {
		t.Fatalf("read ended with %v", err)
	}
	return rr.calls, delivered
}

// A plaintext link reads through a buffer of replica_read_buffer_size:
// every whole frame one read brought in is decoded without another read,
// and a frame's rest at least as large as the buffer is read straight
// from the socket into the frame.
// covers FLOW-9
func TestReadBuffer(t *testing.T) {
	const bufSize = 32 << 10
	cfg := testConfig(1, []string{"", ""})
	cfg.ReadBufferSize = bufSize
	b := &Bus{cfg: cfg, codec: replica.Codec{Cluster: cfg.Cluster, Release: cfg.Identity.stamp()}}

	var small []byte
	for _, m := range every(0, 1) {
		small, _ = b.codec.Append(small, m)
	}
	calls, delivered := readOver(t, b, small, true)
	if delivered != len(every(0, 1)) || len(calls) != 2 || calls[0].got != len(small) || calls[0].asked != bufSize {
		t.Fatalf("%d frames of %d bytes: %d delivered over reads %v", len(every(0, 1)), len(small), delivered, calls)
	}

	big, _ := b.codec.Append(nil, bigPrepare(0, 1, 4<<20))
	calls, delivered = readOver(t, b, big, false)
	direct := 0
	for _, c := range calls {
		if c.asked > bufSize {
			direct += c.got
		}
	}
	if delivered != 1 || direct < len(big)-2*bufSize {
		t.Fatalf("%d delivered; %d of %d bytes read past the buffer, reads %v", delivered, direct, len(big), calls)
	}
}
